/** @module `is_uncertain` on the wire: stored with each assistant message, served by the API and passed through the proxy unchanged. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createSupportProxy } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import type { Answer } from '../../src/server/answers/types.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { testServer, type TestServer } from '../helpers/server.js';

const RELATED = [{ title: 'Refunds — Billing', url: 'https://docs.example.com/billing#refunds' }];

/** Answers "weather" with nothing related, "money back" with related pages, anything else with an answer. */
function replies(question: string): Answer {
  if (question.includes('weather')) return { content: 'Nothing related.', sources: [], isUncertain: true };
  if (question.includes('money back')) return { content: 'These pages look related.', sources: RELATED, isUncertain: true };
  return { content: 'The answer.', sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }] };
}

let t: TestServer;
afterEach(async () => t?.server.close());

describe('is_uncertain', () => {
  it('is on every assistant message (false for an answer, true for related pages or nothing), never on user turns', async () => {
    t = await testServer({ engine: createTestEngine(replies) });
    const token = await t.token();
    const first = await t.call('POST', '/v0/chat', { token, body: { message: 'How do I install it?' } });
    const id = first.body.conversation_id as string;
    await t.answer();
    for (const message of ['Can I get my money back?', 'What is the weather today?']) {
      await t.call('POST', '/v0/chat', { token, body: { message, conversation_id: id } });
      await t.answer();
    }
    // `call` checks every response against the OpenAPI document, which must know the field.
    const conversation = await t.call('GET', `/v0/chat/${id}`, { token });
    expect(conversation.body.messages).toEqual([
      { role: 'user', content: 'How do I install it?', sources: [] },
      { role: 'assistant', content: 'The answer.', sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }], is_uncertain: false },
      { role: 'user', content: 'Can I get my money back?', sources: [] },
      { role: 'assistant', content: 'These pages look related.', sources: RELATED, is_uncertain: true },
      { role: 'user', content: 'What is the weather today?', sources: [] },
      { role: 'assistant', content: 'Nothing related.', sources: [], is_uncertain: true },
    ]);
  });
});

describe('is_uncertain through the proxy', () => {
  let api: Awaited<ReturnType<typeof startServer>> | undefined;
  afterAll(async () => api?.close());

  it('reaches the visitor unchanged', async () => {
    api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(replies), logger: silentLogger });
    const { token } = await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write'] });
    const handler = createSupportProxy({ apiBaseUrl: api.url, token, secret: 'a-visitor-signing-secret-of-32-chars!!' });
    let cookie = '';
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await handler(
        new Request(`https://www.example.com/api/support${path}`, {
          method,
          headers: { origin: 'https://www.example.com', ...(cookie ? { cookie } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...(method === 'GET' ? { prefer: 'wait=10' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }),
      );
      cookie = response.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return (await response.json()) as { conversation_id: string; status: string; messages: unknown[] };
    };
    const { conversation_id: id } = await call('POST', '/chat', { message: 'Can I get my money back?' });
    await expect.poll(async () => (await call('GET', `/chat/${id}`)).status).toBe('completed');
    const conversation = await call('GET', `/chat/${id}`);
    expect(conversation.messages[1]).toEqual({ role: 'assistant', content: 'These pages look related.', sources: RELATED, is_uncertain: true });
  });
});
