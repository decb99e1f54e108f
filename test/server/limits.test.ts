/** @module Size limits of the API: characters rather than UTF-16 units, a body cap that fits escaped JSON, and a cap on turns. */
import { afterEach, describe, expect, it } from 'vitest';
import { CONVERSATION_MAX_TURNS } from '../../src/protocol/index.js';
import { testServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
afterEach(async () => t?.server.close());

describe('message length', () => {
  it('counts characters: 16,000 emoji are accepted, 16,001 refused', async () => {
    t = await testServer();
    const token = await t.token();
    expect((await t.call('POST', '/v0/chat', { token, body: { message: '😀'.repeat(16_000) } })).status).toBe(202);
    const refused = await t.call('POST', '/v0/chat', { token, body: { message: '😀'.repeat(16_001) } });
    expect(refused.body).toEqual({ error: { code: 'bad_request', message: '"message" must be at most 16000 characters' } });
  });

  it('admits 16,000 CJK characters sent as \\uXXXX escapes (96 KB of JSON)', async () => {
    t = await testServer();
    const body = `{"message":"${'\\u4e2d'.repeat(16_000)}"}`;
    const sent = await t.call('POST', '/v0/chat', { token: await t.token(), body });
    expect(sent.status).toBe(202);
    await t.answer();
    const conversation = await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token: await t.token() });
    expect(conversation.body.messages[0].content).toBe('中'.repeat(16_000));
  });
});

describe('conversation length', () => {
  it(`refuses turn ${CONVERSATION_MAX_TURNS + 1} with 409 in the error shape, and a new conversation still starts`, async () => {
    t = await testServer();
    const token = await t.token();
    let id: string | undefined;
    for (let turn = 0; turn < CONVERSATION_MAX_TURNS; turn++) {
      const sent = await t.call('POST', '/v0/chat', { token, body: id ? { message: `question ${turn}`, conversation_id: id } : { message: 'question 0' } });
      expect(sent.status).toBe(202);
      id = sent.body.conversation_id;
      await t.answer();
    }
    const refused = await t.call('POST', '/v0/chat', { token, body: { message: 'one more', conversation_id: id } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: { code: 'conflict', message: `Conversation has reached its limit of ${CONVERSATION_MAX_TURNS} turns; start a new conversation` } });
    const conversation = await t.call('GET', `/v0/chat/${id}`, { token });
    expect(conversation.body.messages).toHaveLength(CONVERSATION_MAX_TURNS * 2);
    expect((await t.call('POST', '/v0/chat', { token, body: { message: 'a new start' } })).status).toBe(202);
  });
});
