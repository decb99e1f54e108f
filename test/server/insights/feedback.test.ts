import { afterEach, describe, expect, it } from 'vitest';
import { createTestEngine } from '../../helpers/test-engine.js';
import { testServer, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const t of servers.splice(0)) await t.server.close();
});

async function setup() {
  const t = await testServer();
  servers.push(t);
  return t;
}

/** A completed conversation of two turns: messages 0 (user), 1 (assistant), 2 (user), 3 (assistant). */
async function conversation(t: TestServer, token: string) {
  const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'How do I rotate keys?' } });
  await t.answer();
  const id = sent.body.conversation_id as string;
  await t.call('POST', '/v0/chat', { token, body: { message: 'And revoke them?', conversation_id: id } });
  await t.answer();
  return id;
}

const ratings = (t: TestServer) => t.server.sql.all('SELECT message_seq, rating, comment FROM feedback ORDER BY message_seq');

describe('POST /v0/chat/{id}/feedback', () => {
  it('records a rating of the last answer by default and answers 200 {"success":true}', async () => {
    const t = await setup();
    const token = await t.token();
    const id = await conversation(t, token);
    const res = await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: { rating: 'up' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await ratings(t)).toEqual([{ message_seq: 4, rating: 'up', comment: null }]);
  });

  it('replaces an earlier rating of the same answer, and rates an earlier answer by message_index', async () => {
    const t = await setup();
    const token = await t.token();
    const id = await conversation(t, token);
    await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: { rating: 'up', message_index: 1 } });
    const again = await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: { rating: 'down', comment: 'Out of date', message_index: 1 } });
    expect(again.status).toBe(200);
    expect(await ratings(t)).toEqual([{ message_seq: 2, rating: 'down', comment: 'Out of date' }]);
  });

  it.each([
    [{}, '"rating" is required'],
    [{ rating: 'meh' }, '"rating" must be "up" or "down"'],
    [{ rating: 'down', comment: 'x'.repeat(2001) }, '"comment" must be at most 2000 characters'],
    [{ rating: 'down', comment: 7 }, '"comment" must be a string'],
    [{ rating: 'up', message_index: -1 }, '"message_index" must be a non-negative integer'],
    [{ rating: 'up', message_index: 1.5 }, '"message_index" must be a non-negative integer'],
    [{ rating: 'up', message_index: 0 }, '"message_index" must be the index of an assistant message in the conversation'],
    [{ rating: 'up', message_index: 9 }, '"message_index" must be the index of an assistant message in the conversation'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const t = await setup();
    const token = await t.token();
    const id = await conversation(t, token);
    const res = await t.call('POST', `/v0/chat/${id}/feedback`, { token, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
    expect(await ratings(t)).toEqual([]);
  });

  it('accepts a comment of exactly 2000 characters', async () => {
    const t = await setup();
    const token = await t.token();
    const id = await conversation(t, token);
    expect((await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: { rating: 'down', comment: 'y'.repeat(2000) } })).status).toBe(200);
  });

  it("answers 404 for another organization's conversation and for unknown ones", async () => {
    const t = await setup();
    const id = await conversation(t, await t.token('acme'));
    const other = await t.token('globex');
    expect((await t.call('POST', `/v0/chat/${id}/feedback`, { token: other, body: { rating: 'down' } })).status).toBe(404);
    expect((await t.call('POST', '/v0/chat/conv_nope/feedback', { token: other, body: { rating: 'down' } })).status).toBe(404);
    expect(await ratings(t)).toEqual([]);
  });

  it('answers 409 while the first answer is not there yet', async () => {
    const t = await setup();
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'Hello?' } });
    const res = await t.call('POST', `/v0/chat/${sent.body.conversation_id}/feedback`, { token, body: { rating: 'up' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });

  it('needs chat:write and counts toward the rate limits', async () => {
    const t = await setup();
    const id = await conversation(t, await t.token());
    const reader = await t.token('acme', ['chat:read']);
    expect((await t.call('POST', `/v0/chat/${id}/feedback`, { token: reader, body: { rating: 'up' } })).status).toBe(403);
    const writer = await t.token('acme', ['chat:write']);
    const first = await t.call('POST', `/v0/chat/${id}/feedback`, { token: writer, body: { rating: 'up' } });
    const second = await t.call('POST', `/v0/chat/${id}/feedback`, { token: writer, body: { rating: 'up' } });
    expect(Number(first.response.headers.get('x-ratelimit-remaining')) - Number(second.response.headers.get('x-ratelimit-remaining'))).toBe(1);
  });

  it('answers 429 once the token has used its requests, without recording', async () => {
    const t = await testServer({ rateLimits: { perToken: 2 } });
    servers.push(t);
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'Hi' } });
    await t.answer();
    await t.call('POST', `/v0/chat/${sent.body.conversation_id}/feedback`, { token, body: { rating: 'up' } });
    const limited = await t.call('POST', `/v0/chat/${sent.body.conversation_id}/feedback`, { token, body: { rating: 'down' } });
    expect(limited.status).toBe(429);
    expect(await ratings(t)).toEqual([{ message_seq: 2, rating: 'up', comment: null }]);
  });
});

describe('DELETE /v0/chat/{id}', () => {
  it('deletes the conversation, its messages, jobs and feedback now; 404 afterwards', async () => {
    const t = await setup();
    const token = await t.token();
    const id = await conversation(t, token);
    await t.call('POST', `/v0/chat/${id}/feedback`, { token, body: { rating: 'down', comment: 'wrong' } });
    const res = await t.call('DELETE', `/v0/chat/${id}`, { token });
    expect(res.status).toBe(204);
    expect(res.response.headers.get('x-ratelimit-remaining')).not.toBeNull();
    for (const table of ['conversations', 'messages', 'jobs', 'feedback']) {
      const column = table === 'conversations' ? 'id' : 'conversation_id';
      expect(await t.server.sql.get(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`, [id])).toEqual({ n: 0 });
    }
    expect((await t.call('GET', `/v0/chat/${id}`, { token })).status).toBe(404);
    expect((await t.call('DELETE', `/v0/chat/${id}`, { token })).status).toBe(404);
  });

  it("answers 404 for another organization's conversation and keeps it; 403 without chat:write", async () => {
    const t = await setup();
    const token = await t.token('acme');
    const id = await conversation(t, token);
    expect((await t.call('DELETE', `/v0/chat/${id}`, { token: await t.token('globex') })).status).toBe(404);
    expect((await t.call('DELETE', `/v0/chat/${id}`, { token: await t.token('acme', ['chat:read']) })).status).toBe(403);
    expect((await t.call('GET', `/v0/chat/${id}`, { token })).status).toBe(200);
  });

  it('answers a long poll waiting on the conversation at once with 404 when it is deleted', async () => {
    const t = await setup();
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'Delete me while you wait' } });
    const id = sent.body.conversation_id as string;
    const started = Date.now();
    const waiting = t.call('GET', `/v0/chat/${id}`, { token, headers: { prefer: 'wait=20' } });
    while (t.server.lifecycle.waiting === 0) await new Promise((r) => setTimeout(r, 5));
    expect((await t.call('DELETE', `/v0/chat/${id}`, { token })).status).toBe(204);
    expect((await waiting).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('deletes a conversation while its answer is being written: the answer is never stored', async () => {
    const engine = createTestEngine();
    engine.hold = true;
    const t = await testServer({ engine });
    servers.push(t);
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'Slow one' } });
    const answering = t.server.worker.runOnce();
    await expect.poll(() => engine.asked.length).toBe(1);
    expect((await t.call('DELETE', `/v0/chat/${sent.body.conversation_id}`, { token })).status).toBe(204);
    engine.release();
    await answering;
    expect(await t.server.sql.get('SELECT COUNT(*) AS n FROM messages')).toEqual({ n: 0 });
    expect(await t.server.sql.get('SELECT COUNT(*) AS n FROM conversations')).toEqual({ n: 0 });
  });
});
