import { afterEach, describe, expect, it } from 'vitest';
import { groupQuestions } from '../../../src/server/insights/groups.js';
import { parsePeriod } from '../../../src/server/insights/period.js';
import { formatReport } from '../../../src/cli/commands/insights.js';
import { createTestEngine } from '../../helpers/test-engine.js';
import { testServer, webhookReceiver, type Receiver, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
let receiver: Receiver | undefined;
afterEach(async () => {
  for (const t of servers.splice(0)) await t.server.close();
  await receiver?.close();
  receiver = undefined;
  tick = undefined;
});

const GUIDE = { title: 'Keys — Rotate', url: 'https://docs.example.com/keys#rotate' };
const LIMITS = { title: 'Limits', url: 'https://docs.example.com/limits' };

/** Questions mentioning "unknown" get no sources (the knowledge base had nothing); "limit" cites Limits; the rest cite the keys guide. */
async function setup(now = () => Date.parse('2026-11-20T12:00:00Z'), env: Record<string, string> = {}) {
  const engine = createTestEngine((q) =>
    /unknown|sso|saml/i.test(q) ? { content: 'Not found.', sources: [] } : { content: 'Here.', sources: /limit/i.test(q) ? [LIMITS] : [GUIDE] },
  );
  const t = await testServer({ engine, now, env });
  servers.push(t);
  const kb = (key: string, path: string, title: string) =>
    t.server.sql.run("INSERT INTO kb_documents (org_id, doc_key, root, rel_path, hash, title, updated_at) VALUES ('acme', ?, 'r', ?, '', ?, '')", [key, path, title]);
  const section = (key: string, title: string, url: string) =>
    t.server.sql.run("INSERT INTO kb_sections (org_id, doc_key, ord, kind, title, context, url, body, code, lang) VALUES ('acme', ?, 0, 'prose', ?, '', ?, '', '', '')", [key, title, url]);
  for (const [key, title, url] of [
    ['keys', 'Keys', 'https://docs.example.com/keys#intro'],
    ['limits', 'Limits', 'https://docs.example.com/limits'],
    ['billing', 'Billing', 'https://docs.example.com/billing'],
  ] as const) {
    await kb(key, key, title);
    await section(key, title, url);
  }
  await kb('ticket:plain:1', 't1', 'A ticket');
  await section('ticket:plain:1', 'A ticket', 'https://helpdesk.example.com/1');
  return t;
}

/** Moved a second forward by each question, when a test keeps its clock here. */
let tick: (() => void) | undefined;

async function ask(t: TestServer, token: string, message: string, conversationId?: string): Promise<string> {
  tick?.();
  const sent = await t.call('POST', '/v0/chat', { token, body: conversationId ? { message, conversation_id: conversationId } : { message } });
  await t.answer();
  return sent.body.conversation_id as string;
}

describe('GET /v0/insights', () => {
  it('reports activity per day, unanswered questions grouped, thumbs-down answers, sources cited most and pages never cited', async () => {
    let now = Date.parse('2026-11-20T11:00:00Z');
    receiver = await webhookReceiver();
    tick = () => (now += 1000);
    const t = await setup(() => now, { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: 'insights-test-secret' });
    const token = await t.token('acme');
    const reader = await t.token('acme', ['insights:read']);
    const a = await ask(t, token, 'How do I rotate keys?');
    await ask(t, token, 'What is the rate limit?', a);
    const b = await ask(t, token, 'How do I configure SSO with SAML?');
    await ask(t, token, 'SAML SSO configuration, write to jo@example.com', b);
    await ask(t, token, 'Is there an unknown setting?');
    const c = await ask(t, token, 'Rotate keys again');
    await t.call('POST', `/v0/chat/${c}/feedback`, { token, body: { rating: 'down', comment: 'Too short, write jo@example.com' } });
    await t.call('POST', `/v0/chat/${a}/feedback`, { token, body: { rating: 'up' } });
    const escalated = await t.call('POST', `/v0/chat/${c}/escalate`, { token, body: { integration: 'webhook', name: 'Jo Visitor', email: 'jo@example.com' } });
    expect(escalated.status).toBe(200);

    now = Date.parse('2026-11-20T12:00:00Z');
    const res = await t.call('GET', '/v0/insights', { token: reader });
    expect(res.status).toBe(200);
    const report = res.body;
    expect(report.organization).toBe('acme');
    // (the default period ends just after now: what happened at now is in it)
    expect(report.since).toBe('2026-11-13T12:00:00.001Z');
    expect(report.until).toBe('2026-11-20T12:00:00.001Z');
    expect(report.totals).toEqual({ conversations: 4, visitors: 0, questions: 6, answered: 2, unanswered: 3, escalated: 1, failed: 0, pending: 0, thumbs_up: 1, thumbs_down: 1, mcp: 0 });
    expect(report.days).toHaveLength(8);
    expect(report.days.at(-1)).toEqual({ date: '2026-11-20', conversations: 4, questions: 6, answered: 2, unanswered: 3, escalated: 1, thumbs_up: 1, thumbs_down: 1 });
    expect(report.days[0]).toMatchObject({ date: '2026-11-13', questions: 0 });

    expect(report.unanswered_group_count).toBe(2);
    expect(report.unanswered_groups[0]).toMatchObject({ count: 2, terms: expect.arrayContaining(['sso', 'saml']) });
    expect(report.unanswered_groups[0].examples.map((e: { question: string }) => e.question)).toEqual(['SAML SSO configuration, write to [email]', 'How do I configure SSO with SAML?']);
    expect(report.unanswered_groups[1]).toMatchObject({ count: 1, examples: [{ question: 'Is there an unknown setting?' }] });

    expect(report.thumbs_down).toEqual([
      { conversation_id: c, message_index: 1, question: 'Rotate keys again', answer: 'Here.', comment: 'Too short, write [email]', sources: [GUIDE], rated_at: '2026-11-20T11:00:06.000Z' },
    ]);
    expect(report.top_sources).toEqual([
      { ...GUIDE, citations: 2 },
      { ...LIMITS, citations: 1 },
    ]);
    // Keys is cited through one of its sections; tickets are not pages.
    expect(report.uncited_pages).toEqual([{ title: 'Billing', url: 'https://docs.example.com/billing' }]);
    expect(report.uncited_page_count).toBe(1);
    // Names and emails typed for the escalation never appear.
    expect(JSON.stringify(report)).not.toMatch(/jo@example\.com|Jo Visitor/);
  });

  it('counts only the period asked for, by the day each question was asked', async () => {
    let now = Date.parse('2026-11-01T10:00:00Z');
    const t = await setup(() => now);
    const token = await t.token('acme');
    const reader = await t.token('acme', ['insights:read']);
    const id = await ask(t, token, 'Rotate keys?');
    now = Date.parse('2026-11-03T10:00:00Z');
    await ask(t, token, 'And the limit?', id);
    now = Date.parse('2026-11-10T00:00:00Z');
    const res = await t.call('GET', '/v0/insights?since=2026-11-02&until=2026-11-04T00:00:00Z', { token: reader });
    expect(res.status).toBe(200);
    expect(res.body.totals).toMatchObject({ conversations: 0, questions: 1, answered: 1 });
    expect(res.body.days.map((d: { date: string; questions: number }) => [d.date, d.questions])).toEqual([
      ['2026-11-02', 0],
      ['2026-11-03', 1],
    ]);
  });

  it('shows the pages questions come from, most questions first, with how many went unanswered (JSON and the CLI table)', async () => {
    let now = Date.parse('2026-11-20T11:00:00Z');
    const t = await setup(() => now);
    const token = await t.token('acme');
    const from = async (message: string, page?: { page_url: string; page_title?: string }, conversationId?: string) => {
      now += 1000;
      const sent = await t.call('POST', '/v0/chat', { token, body: { message, ...(conversationId ? { conversation_id: conversationId } : {}), ...(page ? { context: page } : {}) } });
      expect(sent.status).toBe(202);
      await t.answer();
      return sent.body.conversation_id as string;
    };
    // Credentials, query and fragment are the visitor's: the page is kept without them.
    const keys = { page_url: 'https://reader:s3cret@docs.example.com/keys?ref=nav#rotate', page_title: 'Keys' };
    const id = await from('Rotate keys?', keys);
    await from('And the unknown flag?', keys, id);
    await from('What is the limit?', { page_url: 'https://docs.example.com/limits' });
    await from('Rotate keys again?');
    now += 60_000;
    const report = (await t.call('GET', '/v0/insights', { token: await t.token('acme', ['insights:read']) })).body;
    expect(report.question_pages).toEqual([
      { url: 'https://docs.example.com/keys', title: 'Keys', questions: 2, unanswered: 1 },
      { url: 'https://docs.example.com/limits', title: null, questions: 1, unanswered: 0 },
    ]);
    expect(report.question_page_count).toBe(2);
    const table = formatReport(report);
    expect(table).toContain('Pages questions come from (2)');
    expect(table).toMatch(/ {8}2 {11}1 {2}Keys {2}https:\/\/docs\.example\.com\/keys\n/);
  });

  it("never shows another organization's conversations", async () => {
    let now = Date.parse('2026-11-20T11:00:00Z');
    const t = await setup(() => now);
    const id = await ask(t, await t.token('globex'), 'Unknown thing at globex');
    await t.call('POST', `/v0/chat/${id}/feedback`, { token: await t.token('globex'), body: { rating: 'down' } });
    now += 60_000;
    const res = await t.call('GET', '/v0/insights', { token: await t.token('acme', ['insights:read']) });
    expect(res.body.totals).toMatchObject({ conversations: 0, questions: 0, thumbs_down: 0 });
    expect(res.body.unanswered_groups).toEqual([]);
    expect(res.body.thumbs_down).toEqual([]);
    const theirs = await t.call('GET', '/v0/insights', { token: await t.token('globex', ['insights:read']) });
    expect(theirs.body.totals).toMatchObject({ conversations: 1, questions: 1, unanswered: 1, thumbs_down: 1 });
  });

  it('needs insights:read: chat scopes are not enough', async () => {
    const t = await setup();
    expect((await t.call('GET', '/v0/insights', { token: await t.token('acme') })).status).toBe(403);
    expect((await t.call('GET', '/v0/insights')).status).toBe(401);
  });

  it.each([
    ['since=yesterday', '"since" must be an ISO 8601 date or date-time, got "yesterday"'],
    ['until=2026-02-30', '"until" must be an ISO 8601 date or date-time, got "2026-02-30"'],
    ['since=2026-11-10&until=2026-11-01', '"since" must be before "until"'],
    ['since=2020-01-01&until=2026-01-01', 'the period from "since" to "until" must be at most 366 days'],
  ])('answers 400 for %s', async (query, message) => {
    const t = await setup();
    const res = await t.call('GET', `/v0/insights?${query}`, { token: await t.token('acme', ['insights:read']) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
  });
});

describe('grouping unanswered questions', () => {
  const at = (i: number) => new Date(Date.UTC(2026, 10, 20, 12, 0, 60 - i)).toISOString();
  it('puts rephrasings of one question together and keeps different subjects apart', async () => {
    const questions = ['How do I reset my password?', 'password reset', 'Where is the billing invoice?', 'Resetting passwords does not work', 'Download my invoices (billing)', 'Does it run on Windows?'].map((text, i) => ({ text, askedAt: at(i) }));
    const { groups, total } = await groupQuestions(questions);
    expect(total).toBe(3);
    expect(groups.map((g) => g.count)).toEqual([3, 2, 1]);
    expect(groups[0]!.examples.map((e) => e.text)).toEqual(['How do I reset my password?', 'password reset', 'Resetting passwords does not work']);
    expect(groups[1]!.terms).toEqual(expect.arrayContaining(['billing', 'invoice']));
  });

  it('keeps a few distinct examples per group, newest first', async () => {
    const questions = Array.from({ length: 6 }, (_, i) => ({ text: i % 2 ? 'export csv' : 'Export to CSV?', askedAt: at(i) }));
    const [group] = (await groupQuestions(questions, { examples: 3 })).groups;
    expect(group!.count).toBe(6);
    expect(group!.examples.map((e) => e.text)).toEqual(['Export to CSV?', 'export csv']);
  });
});

describe('the period', () => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  it('defaults to the last 7 days and reads relative durations where allowed', () => {
    // The range is half-open: by default it ends just after now, so what happened at now is counted.
    expect(parsePeriod({}, now)).toEqual({ since: new Date(now + 1 - 7 * 86_400_000), until: new Date(now + 1) });
    expect(parsePeriod({ since: '30d' }, now, true).since).toEqual(new Date('2026-10-21T12:00:00Z'));
    expect(() => parsePeriod({ since: '30d' }, now)).toThrow('"since" must be an ISO 8601 date or date-time');
    expect(parsePeriod({ since: '2026-11-19T08:00:00+02:00' }, now).since).toEqual(new Date('2026-11-19T06:00:00Z'));
  });
});
