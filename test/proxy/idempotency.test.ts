/**
 * One message, one turn (issue 43), the real proxy in front of the real server: a message the
 * browser keys (`Idempotency-Key`) and sends again after its 202 was lost is the same turn, a first
 * message included (its retry comes without the cookie that 202 carried); the key is scoped to the
 * visitor, so another visitor sending the same key makes their own turn and never sees this one;
 * a malformed key is 400 before anything goes upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportProxy } from '../../src/proxy/index.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer } from '../../src/server/index.js';
import { createTestEngine } from '../helpers/test-engine.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const SITE = 'https://www.example.com';
let api: Awaited<ReturnType<typeof startServer>>;
let proxy: ReturnType<typeof createSupportProxy>;
let keys = 0;

beforeAll(async () => {
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false });
  const token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write'] })).token;
  proxy = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET });
});
afterAll(async () => api.close());

/** A fresh key as the widget makes them: 16 random bytes, base64url. */
const newKey = () => `k${(++keys).toString(36)}${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url')}`;

/** Sends a message as a browser at `address` holding `cookie` (none: a new visitor). */
async function send(message: string, init: { key?: string; cookie?: string; conversationId?: string; address?: string } = {}) {
  const headers: Record<string, string> = { origin: SITE, 'content-type': 'application/json' };
  if (init.key !== undefined) headers['idempotency-key'] = init.key;
  if (init.cookie) headers.cookie = init.cookie;
  const body = JSON.stringify(init.conversationId ? { message, conversation_id: init.conversationId } : { message });
  const response = await proxy(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers, body }), { remoteAddress: init.address ?? '198.51.100.7' });
  return {
    status: response.status,
    body: (await response.json()) as { conversation_id?: string; error?: { code: string; message: string } },
    cookie: response.headers.get('set-cookie')?.split(';')[0],
  };
}

const userMessages = async (conversationId: string) =>
  ((await api.server.sql.get("SELECT count(*) AS n FROM messages WHERE conversation_id = ? AND role = 'user'", [conversationId])) as { n: number }).n;
const conversations = async () => ((await api.server.sql.get('SELECT count(*) AS n FROM conversations')) as { n: number }).n;

describe('one message, one turn', () => {
  it('answers a first message sent again after its 202 was lost (no cookie either time) with the same turn', async () => {
    const key = newKey();
    const before = await conversations();
    const lost = await send('How do I reset my password?', { key });
    expect(lost.status).toBe(202);
    // The browser never saw that answer, nor its cookie: it sends the same message with the same key.
    const again = await send('How do I reset my password?', { key });
    expect(again.status).toBe(202);
    expect(again.body.conversation_id).toBe(lost.body.conversation_id);
    expect(await conversations()).toBe(before + 1);
    expect(await userMessages(again.body.conversation_id!)).toBe(1);
    // The cookie of the answer that got through holds the conversation.
    const read = await proxy(new Request(`${SITE}/api/support/chat/${again.body.conversation_id}`, { headers: { origin: SITE, cookie: again.cookie! } }), { remoteAddress: '198.51.100.7' });
    expect(read.status).toBe(200);
  });

  it('answers a later message sent again after its 202 was lost with the same turn, even once its answer is done', async () => {
    const first = await send('How do I install it?', { key: newKey() });
    await api.server.worker.runOnce();
    const key = newKey();
    const lost = await send('And on Windows?', { key, cookie: first.cookie, conversationId: first.body.conversation_id });
    expect(lost.status).toBe(202);
    await api.server.worker.runOnce();
    const again = await send('And on Windows?', { key, cookie: first.cookie, conversationId: first.body.conversation_id });
    expect(again.status).toBe(202);
    expect(again.body.conversation_id).toBe(first.body.conversation_id);
    expect(await userMessages(first.body.conversation_id!)).toBe(2);
  });

  it('scopes the key to the visitor: another visitor sending the same key and message makes their own turn', async () => {
    const a = await send('Where are my invoices?', { key: newKey() });
    const b = await send('Where are my invoices?', { key: newKey() });
    const key = newKey();
    const fromA = await send('Can I export them?', { key, cookie: a.cookie });
    const fromB = await send('Can I export them?', { key, cookie: b.cookie });
    expect([fromA.status, fromB.status]).toEqual([202, 202]);
    expect(fromB.body.conversation_id).not.toBe(fromA.body.conversation_id);
    // B's cookie does not hold A's conversation.
    const read = await proxy(new Request(`${SITE}/api/support/chat/${fromA.body.conversation_id}`, { headers: { origin: SITE, cookie: fromB.cookie! } }), { remoteAddress: '198.51.100.7' });
    expect(read.status).toBe(404);
    // Without a cookie, the same key from another address is another visitor too.
    const copied = newKey();
    const here = await send('What does it cost?', { key: copied, address: '198.51.100.8' });
    const there = await send('What does it cost?', { key: copied, address: '203.0.113.9' });
    expect(there.body.conversation_id).not.toBe(here.body.conversation_id);
  });

  it('refuses a malformed key with 400 in the error shape, before anything goes upstream', async () => {
    const before = await conversations();
    for (const key of ['', 'short-key', 'k'.repeat(129), 'with space in the key!', 'clé-clé-clé-clé-clé-clé', 'a/b+c=d.e:f;g,h_i']) {
      const refused = await send('Hello there', { key });
      expect({ key, status: refused.status, body: refused.body }).toEqual({
        key,
        status: 400,
        body: { error: { code: 'bad_request', message: 'Idempotency-Key must be 16 to 128 letters, digits, "-" or "_"' } },
      });
    }
    expect(await conversations()).toBe(before);
    // A message without a key is sent as before: its own turn, each time.
    const one = await send('Hello there');
    const two = await send('Hello there');
    expect([one.status, two.status]).toEqual([202, 202]);
    expect(two.body.conversation_id).not.toBe(one.body.conversation_id);
  });
});
