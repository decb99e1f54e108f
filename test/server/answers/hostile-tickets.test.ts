/**
 * Helpdesk tickets are written by the helpdesk's customers: a correctly signed Pylon
 * `issue.created` whose body is one 60,000-letter word, or 60,000 characters of distinct words,
 * is indexed without holding the event loop, and so is the next question (which rebuilds the index).
 */
import { createHmac } from 'node:crypto';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { longestTurn } from '../../helpers/main-thread-cpu.js';
import { testServer } from '../../helpers/server.js';

const SECRET = 'whsec_test_secret';

/** Distinct made-up words ("bcdfa", "bcdfb", …): none in any cache, each stemmed on its own. */
function distinctWords(length: number): string {
  let out = '';
  for (let n = 0; out.length < length; n++) out += `${n.toString(26).replace(/\d/g, (d) => 'klmnopqrst'[Number(d)]!)}ing `;
  return out.slice(0, length);
}

describe('hostile helpdesk tickets', () => {
  it.each([
    ['one 60,000-letter word', 'a'.repeat(60_000)],
    ['60,000 characters of distinct words', distinctWords(60_000)],
  ])('%s: indexed, and the next question answered, without holding the event loop', async (_, text) => {
    let engine!: ReturnType<typeof createAnswerEngine>;
    const t = await testServer({ engine: (sql) => (engine = createAnswerEngine({ sql, llm: null, embedder: null })), env: { PYLON_WEBHOOK_SECRET: SECRET } });
    await engine.ingest('acme', [resolve(import.meta.dirname, '../../fixtures/kb/docs')]);
    const token = await t.token('acme');
    await t.call('POST', '/v0/chat', { token, body: { message: 'How do I get started?' } });
    await t.answer();

    // The title is over the 300 characters the index reads, and the delivery under the webhook's 64 KiB cap.
    const issue = { id: '7d1c2f9a-0000-4a4a-8b8b-123456789abc', number: 42, title: `Billing ${'b'.repeat(2_000)}`, body_html: `<p>${text}</p>`, state: 'new', link: 'https://app.usepylon.com/issues?issueNumber=42', created_at: '2026-11-01T10:00:00Z', latest_message_time: '2026-11-01T10:00:00Z' };
    const body = JSON.stringify({ event_type: 'issue.created', data: issue });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `hs256=${createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex')}`;
    const delivered = await longestTurn(() =>
      t.call('POST', '/v0/webhooks/pylon/acme', { body, headers: { 'content-type': 'application/json', 'pylon-webhook-timestamp': timestamp, 'pylon-webhook-signature': signature, 'pylon-webhook-version': '2021-07' } }),
    );
    expect(delivered.result.status).toBe(200);
    expect(delivered.longestMs).toBeLessThan(100);

    const asked = await longestTurn(async () => {
      const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'Why was I charged twice on my billing?' } });
      await t.answer();
      return t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token });
    });
    expect(asked.result.body.status).toBe('completed');
    expect(asked.longestMs).toBeLessThan(100);
    // The ticket is kept whole; only its indexed text is clipped.
    expect((await t.call('GET', `/v0/tickets/pylon/${issue.id}`, { token })).body.title).toBe(issue.title);
  }, 60_000);
});
