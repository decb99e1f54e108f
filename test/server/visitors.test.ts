import { afterEach, describe, expect, it } from 'vitest';
import { testServer, webhookReceiver, type Receiver, type TestServer } from '../helpers/server.js';

let t: TestServer;
let receiver: Receiver | undefined;
afterEach(async () => {
  await t?.server.close();
  await receiver?.close();
  receiver = undefined;
});

const ada = { id: 'user-42', email: 'ada@example.com', name: 'Ada Lovelace', verified: true };

async function start(token: string, message: string, visitor?: unknown, conversationId?: string) {
  return t.call('POST', '/v0/chat', { token, body: { message, ...(visitor ? { visitor } : {}), ...(conversationId ? { conversation_id: conversationId } : {}) } });
}

describe('conversations of a visitor (POST /v0/chat `visitor`)', () => {
  it('records the visitor, returns it with the conversation, and lists their conversations newest first', async () => {
    t = await testServer();
    const token = await t.token();
    const first = (await start(token, 'How do refunds work?', ada)).body.conversation_id as string;
    await t.answer();
    const other = (await start(token, 'Someone else asks', { id: 'user-7' })).body.conversation_id as string;
    const anonymous = (await start(token, 'Nobody in particular')).body.conversation_id as string;
    const second = (await start(token, `${'A long question '.repeat(10)}end`, ada)).body.conversation_id as string;
    await t.answer();

    const got = await t.call('GET', `/v0/chat/${first}`, { token });
    expect(got.body.visitor).toEqual(ada);
    expect((await t.call('GET', `/v0/chat/${anonymous}`, { token })).body.visitor).toBeUndefined();

    const listed = await t.call('GET', '/v0/chat?visitor_id=user-42', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.conversations.map((c: { id: string }) => c.id)).toEqual([second, first]);
    expect(listed.body.conversations[1]).toEqual({ id: first, status: 'completed', created_at: expect.any(String), updated_at: expect.any(String), title: 'How do refunds work?' });
    expect(listed.body.conversations[0].title).toHaveLength(80);
    expect(listed.body.conversations[0].title.endsWith('…')).toBe(true);
    // A follow-up moves the conversation to the top.
    expect((await start(token, 'And for annual plans?', ada, first)).status).toBe(202);
    const after = await t.call('GET', '/v0/chat?visitor_id=user-42&limit=1', { token });
    expect(after.body.conversations.map((c: { id: string }) => c.id)).toEqual([first]);
    expect((await t.call('GET', '/v0/chat?visitor_id=user-7', { token })).body.conversations.map((c: { id: string }) => c.id)).toEqual([other]);
    expect((await t.call('GET', '/v0/chat?visitor_id=nobody', { token })).body).toEqual({ conversations: [] });
  });

  it('keeps a verified visitor apart from an anonymous one of the same id when asked (verified=true|false)', async () => {
    t = await testServer();
    const token = await t.token();
    const signedIn = (await start(token, 'Signed in', ada)).body.conversation_id as string;
    const anonymous = (await start(token, 'Same id, anonymous', { id: ada.id, verified: false })).body.conversation_id as string;
    const ids = async (query: string) => (await t.call('GET', `/v0/chat?visitor_id=${ada.id}${query}`, { token })).body.conversations.map((c: { id: string }) => c.id);
    expect(await ids('&verified=true')).toEqual([signedIn]);
    expect(await ids('&verified=false')).toEqual([anonymous]);
    expect((await ids('')).sort()).toEqual([signedIn, anonymous].sort());
    for (const bad of ['&verified=yes', '&verified=true&verified=false']) {
      const refused = await t.call('GET', `/v0/chat?visitor_id=${ada.id}${bad}`, { token });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toContain('"verified"');
    }
  });

  it("refuses a follow-up that names another visitor (404), and a malformed visitor (400)", async () => {
    t = await testServer();
    const token = await t.token();
    const id = (await start(token, 'Question', ada)).body.conversation_id as string;
    await t.answer();
    expect((await start(token, 'Mine now?', { id: 'user-7', verified: true }, id)).status).toBe(404);
    // The same id, unverified (an anonymous visitor's random id that happens to match), is another visitor.
    expect((await start(token, 'Mine now?', { id: 'user-42' }, id)).status).toBe(404);
    expect((await start(token, 'Still me', ada, id)).status).toBe(202);
    for (const visitor of ['x', [], { id: '' }, { id: 'a'.repeat(257) }, { id: 'a\nb' }, { id: 'a', email: 'not-an-email' }, { id: 'a', verified: 'yes' }, { id: 'a', role: 'admin' }, { id: 'a', name: ' ' }]) {
      const res = await start(token, 'Hello', visitor);
      expect(res.status, JSON.stringify(visitor)).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
    }
  });

  it('keeps organizations apart, needs chat:read to list and chat:write to delete, and checks the query', async () => {
    t = await testServer();
    const acme = await t.token('acme');
    const globex = await t.token('globex');
    await start(acme, 'Acme question', ada);
    expect((await t.call('GET', '/v0/chat?visitor_id=user-42', { token: globex })).body.conversations).toEqual([]);
    expect((await t.call('DELETE', '/v0/chat?visitor_id=user-42', { token: globex })).body).toEqual({ deleted: 0 });
    expect((await t.call('GET', '/v0/chat?visitor_id=user-42', { token: acme })).body.conversations).toHaveLength(1);
    const writer = await t.token('acme', ['chat:write']);
    const reader = await t.token('acme', ['chat:read']);
    expect((await t.call('GET', '/v0/chat?visitor_id=user-42', { token: writer })).status).toBe(403);
    expect((await t.call('DELETE', '/v0/chat?visitor_id=user-42', { token: reader })).status).toBe(403);
    expect((await t.call('GET', '/v0/chat?visitor_id=user-42')).status).toBe(401);
    for (const query of ['', '?visitor_id=', '?visitor_id=a&visitor_id=b', `?visitor_id=${'a'.repeat(257)}`, '?visitor_id=a&limit=0', '?visitor_id=a&limit=101', '?visitor_id=a&limit=1e1', '?visitor_id=a&limit=x']) {
      expect((await t.call('GET', `/v0/chat${query}`, { token: acme })).status, query).toBe(400);
    }
  });

  it('deletes every conversation of one visitor in one call, and nothing of anyone else', async () => {
    t = await testServer();
    const token = await t.token();
    const mine = [(await start(token, 'One', ada)).body.conversation_id, (await start(token, 'Two', ada)).body.conversation_id] as string[];
    const theirs = (await start(token, 'Three', { id: 'user-7' })).body.conversation_id as string;
    await t.answer();
    await t.call('POST', `/v0/chat/${mine[0]}/feedback`, { token, body: { rating: 'up', message_index: 1 } });
    const deleted = await t.call('DELETE', '/v0/chat?visitor_id=user-42', { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: 2 });
    for (const id of mine) expect((await t.call('GET', `/v0/chat/${id}`, { token })).status).toBe(404);
    expect((await t.call('GET', `/v0/chat/${theirs}`, { token })).status).toBe(200);
    expect((await t.call('GET', '/v0/chat?visitor_id=user-42', { token })).body.conversations).toEqual([]);
    expect((await t.call('DELETE', '/v0/chat?visitor_id=user-42', { token })).body).toEqual({ deleted: 0 });
  });

  it('counts distinct visitors in the insights report, up to the conversation started this very millisecond', async () => {
    // A stopped clock: every conversation starts at the instant the report is asked for.
    const instant = Date.now();
    t = await testServer({ now: () => instant });
    const token = await t.token();
    await start(token, 'One', ada);
    await start(token, 'Two', ada);
    await start(token, 'Three', { id: 'user-7' });
    await start(token, 'Four', { id: 'anon-1', verified: false });
    await start(token, 'Five');
    const reader = await t.token('acme', ['insights:read']);
    const report = await t.call('GET', '/v0/insights', { token: reader });
    expect(report.status).toBe(200);
    expect(report.body.totals).toMatchObject({ conversations: 5, visitors: 3 });
  });

  it("says in the ticket that a signed-in visitor's email was verified by the site, and only then", async () => {
    receiver = await webhookReceiver();
    t = await testServer({ env: { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: 'visitor-test-secret' } });
    const token = await t.token();
    const known = (await start(token, 'Invoice wrong', ada)).body.conversation_id as string;
    const typedOther = (await start(token, 'Invoice wrong', ada)).body.conversation_id as string;
    const unverified = (await start(token, 'Invoice wrong', { ...ada, verified: false })).body.conversation_id as string;
    await t.answer();
    const escalate = (id: string, email: string) => t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { integration: 'webhook', name: 'Ada Lovelace', email } });
    expect((await escalate(known, 'ADA@example.com')).status).toBe(200);
    expect((await escalate(typedOther, 'someone@example.com')).status).toBe(200);
    expect((await escalate(unverified, 'ada@example.com')).status).toBe(200);
    const [first, second, third] = receiver.deliveries.map((d) => JSON.parse(d.body) as { customer: { verified: boolean } });
    expect(first!.customer).toEqual({ name: 'Ada Lovelace', email: 'ADA@example.com', verified: true });
    expect(second!.customer.verified).toBe(false);
    expect(third!.customer.verified).toBe(false);
  });
});

describe('ticket bodies of a verified email', () => {
  it('say so in Markdown, HTML and Plain components, and not otherwise', async () => {
    const { ticketMarkdown, ticketHtml } = await import('../../src/server/helpdesks/transcript.js');
    const { plainComponents } = await import('../../src/server/helpdesks/plain/client.js');
    const draft = { orgId: 'acme', conversationId: 'conv_1', title: 'T', summary: 'S', transcript: [], labelTypeIds: [], customer: { name: 'Ada', email: 'ada@example.com', verified: true } };
    // The Markdown escapes what the visitor gave (Linear tickets, issue 25).
    expect(ticketMarkdown(draft)).toContain('Ada \\<ada\\@example\\.com\\> (email verified by the site)');
    expect(ticketHtml(draft)).toContain('&lt;ada@example.com&gt; (email verified by the site)');
    expect(plainComponents(draft).at(-1)!.componentText.text).toContain('ada@example.com (email verified by the site)');
    const plain = { ...draft, customer: { name: 'Ada', email: 'ada@example.com' } };
    expect(ticketMarkdown(plain)).not.toContain('verified');
    expect(ticketHtml(plain)).not.toContain('verified');
    expect(plainComponents(plain).at(-1)!.componentText.text).not.toContain('verified');
  });
});
