import { afterEach, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../src/protocol/index.js';
import { request as httpRequest } from 'node:http';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { testServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
afterEach(async () => t?.server.close());

describe('POST /v0/chat and GET /v0/chat/{id}', () => {
  it('accepts a message with 202 and answers it in the background', async () => {
    t = await testServer();
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'How do I reset my password?' } });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ conversation_id: expect.stringMatching(/^conv_/), status: 'processing' });
    const before = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token });
    expect(before.body.status).toBe('processing');
    expect(before.body.messages).toEqual([{ role: 'user', content: 'How do I reset my password?', sources: [] }]);
    await t.answer();
    const after = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token });
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('completed');
    expect(after.body.messages[1]).toEqual({
      role: 'assistant',
      content: 'About "How do I reset my password?": see the guide.',
      sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }],
      is_uncertain: false,
    });
  });

  it('continues a conversation and passes the history to the engine', async () => {
    t = await testServer();
    const token = await t.token();
    const first = await t.call('POST', '/v0/chat', { token, body: { message: 'Install on Linux?' } });
    await t.answer();
    const second = await t.call('POST', '/v0/chat', { token, body: { message: 'And on Windows?', conversation_id: first.body.conversation_id } });
    expect(second.status).toBe(202);
    expect(second.body.conversation_id).toBe(first.body.conversation_id);
    await t.answer();
    const conversation = await t.call('GET', `/v0/chat/${first.body.conversation_id}`, { token });
    expect(conversation.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(t.engine.asked).toEqual(['Install on Linux?', 'And on Windows?']);
  });

  it('answers 409 when sending to a conversation still processing', async () => {
    t = await testServer();
    const token = await t.token();
    const first = await t.call('POST', '/v0/chat', { token, body: { message: 'one' } });
    const again = await t.call('POST', '/v0/chat', { token, body: { message: 'two', conversation_id: first.body.conversation_id } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { code: 'conflict', message: MESSAGES.stillProcessing } });
  });

  it.each([
    [{}, '"message" is required'],
    [{ message: '' }, '"message" must not be empty'],
    [{ message: '   ' }, '"message" must not be empty'],
    [{ message: 42 }, '"message" must be a string'],
    [{ message: 'x'.repeat(16_001) }, '"message" must be at most 16000 characters'],
    [{ message: 'hi', conversation_id: 7 }, '"conversation_id" must be a string'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    t = await testServer();
    const res = await t.call('POST', '/v0/chat', { token: await t.token(), body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
  });

  it('accepts a message of exactly 16,000 characters', async () => {
    t = await testServer();
    const res = await t.call('POST', '/v0/chat', { token: await t.token(), body: { message: 'x'.repeat(16_000) } });
    expect(res.status).toBe(202);
  });

  it('answers 400 "Invalid JSON in request body" for malformed JSON', async () => {
    t = await testServer();
    const res = await t.call('POST', '/v0/chat', { token: await t.token(), body: '{"message": ' });
    expect(res.body).toEqual({ error: { code: 'bad_request', message: 'Invalid JSON in request body' } });
  });

  it('answers 413 for a body over 256 KiB without reading it all', async () => {
    t = await testServer();
    const res = await t.call('POST', '/v0/chat', { token: await t.token(), body: { message: 'x'.repeat(270_000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('bad_request');

    // Over real HTTP, with bodies that never end: the 413 can only arrive if the server stops reading.
    const api = await startServer({ dataDir: ':memory:', port: 0, logger: silentLogger, engine: createTestEngine(), startWorker: false });
    try {
      const { token } = await api.server.tokens.create({ orgId: 'acme', name: 'test', scopes: ['chat:write'] });
      const unfinished = (headers: Record<string, string>, bytes: number) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no answer while the body was still being sent')), 5_000);
          const req = httpRequest(`${api.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers } }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => {
              clearTimeout(timer);
              req.destroy();
              resolve({ status: res.statusCode!, body });
            });
          });
          req.on('error', () => undefined);
          req.write('{"message":"');
          for (let sent = 0; sent < bytes; sent += 16_384) req.write('x'.repeat(16_384));
          // Never req.end(): the body is still "being sent" when the answer comes.
        });
      // A stream (no Content-Length) past the limit: refused once 256 KiB have arrived.
      const streamed = await unfinished({ 'transfer-encoding': 'chunked' }, 300_000);
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body).error.message).toBe('Request body is larger than 262144 bytes');
      // A declared Content-Length past the limit: refused before reading anything.
      const declared = await unfinished({ 'content-length': String(10 * 1024 * 1024) }, 16_384);
      expect(declared.status).toBe(413);
    } finally {
      await api.close();
    }
  });

  it('answers 404 for an unknown conversation, and for another organization’s', async () => {
    t = await testServer();
    const mine = await t.token('acme');
    const theirs = await t.token('globex');
    const sent = await t.call('POST', '/v0/chat', { token: mine, body: { message: 'secret plans' } });
    for (const path of [`/v0/chat/${sent.body.conversation_id}`, '/v0/chat/conv_doesnotexist']) {
      const res = await t.call('GET', path, { token: theirs });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
    }
    const continued = await t.call('POST', '/v0/chat', { token: theirs, body: { message: 'hi', conversation_id: sent.body.conversation_id } });
    expect(continued.status).toBe(404);
  });

  it('marks the conversation failed after the engine fails every attempt, and sending again retries', async () => {
    t = await testServer({ maxAttempts: 2 });
    const token = await t.token();
    t.engine.failures = 2;
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'break' } });
    for (let i = 0; i < 5; i++) {
      await t.server.sql.run('UPDATE jobs SET run_after = 0');
      await t.answer();
    }
    const failed = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token });
    expect(failed.body.status).toBe('failed');
    expect(failed.body.messages).toHaveLength(1);
    const retry = await t.call('POST', '/v0/chat', { token, body: { message: 'break', conversation_id: sent.body.conversation_id } });
    expect(retry.status).toBe(202);
    await t.answer();
    const done = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token });
    expect(done.body.status).toBe('completed');
  });

  it('works on at most workerConcurrency answers at once, and on the next when one finishes', async () => {
    t = await testServer({ startWorker: true, workerConcurrency: 2 });
    const token = await t.token();
    t.engine.hold = true;
    for (const message of ['one', 'two', 'three']) await t.call('POST', '/v0/chat', { token, body: { message } });
    await expect.poll(() => t.engine.asked.length).toBe(2);
    // The third waits for a free slot, however often the worker looks.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(t.engine.asked).toHaveLength(2);
    t.engine.release();
    await expect.poll(() => t.engine.asked.length).toBe(3);
    t.engine.release();
  });

  it('long-polls with Prefer: wait and answers as soon as the answer is ready', async () => {
    t = await testServer({ startWorker: true });
    const token = await t.token();
    t.engine.hold = true;
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'slow one' } });
    const started = Date.now();
    const polled = t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token, headers: { prefer: 'wait=10' } });
    setTimeout(() => t.engine.release(), 300);
    const res = await polled;
    expect(res.body.status).toBe('completed');
    expect(res.response.headers.get('preference-applied')).toBe('wait=10');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('caps Prefer: wait at 20 seconds and ignores a malformed one', async () => {
    t = await testServer();
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'q' } });
    await t.answer();
    const capped = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token, headers: { prefer: 'wait=999' } });
    expect(capped.response.headers.get('preference-applied')).toBe('wait=20');
    const odd = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token, headers: { prefer: 'wait=soon' } });
    expect(odd.status).toBe(200);
    expect(odd.response.headers.get('preference-applied')).toBeNull();
  });

  it('replays the same response for a repeated Idempotency-Key and refuses it with another body', async () => {
    t = await testServer();
    const token = await t.token();
    const headers = { 'idempotency-key': 'abc-123' };
    const first = await t.call('POST', '/v0/chat', { token, body: { message: 'once' }, headers });
    const second = await t.call('POST', '/v0/chat', { token, body: { message: 'once' }, headers });
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.response.headers.get('idempotent-replayed')).toBe('true');
    expect(await t.server.sql.get('SELECT COUNT(*) AS n FROM conversations')).toEqual({ n: 1 });
    const other = await t.call('POST', '/v0/chat', { token, body: { message: 'twice' }, headers });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toMatch(/Idempotency-Key/);
  });
});
