/** @module The proxy's feedback route in front of the real server: only the visitor who owns the conversation may rate it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportProxy } from '../../../src/proxy/index.js';
import { startServer } from '../../../src/server/index.js';
import { silentLogger } from '../../../src/server/log.js';
import { createTestEngine } from '../../helpers/test-engine.js';

const SITE = 'https://www.example.com';
let api: Awaited<ReturnType<typeof startServer>>;
let handler: (request: Request) => Promise<Response>;

beforeAll(async () => {
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger });
  const { token } = await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] });
  handler = createSupportProxy({ apiBaseUrl: api.url, token, secret: 'a-visitor-signing-secret-of-32-chars!!' });
});
afterAll(async () => api?.close());

function visitor() {
  let cookie = '';
  return async (method: string, path: string, body?: unknown) => {
    const response = await handler(
      new Request(`${SITE}/api/support${path}`, {
        method,
        headers: { origin: SITE, ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(method === 'GET' ? { prefer: 'wait=10' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

const ratings = () => api.server.sql.all('SELECT rating, comment FROM feedback');

describe('POST {basePath}/chat/:id/feedback', () => {
  it("records the owner's rating, refuses everyone else with 404 and never exposes DELETE", async () => {
    const alice = visitor();
    const bob = visitor();
    const sent = await alice('POST', '/chat', { message: 'How do I rotate keys?' });
    const id = sent.body.conversation_id as string;
    await expect.poll(async () => (await alice('GET', `/chat/${id}`)).body.status).toBe('completed');

    expect(await bob('POST', `/chat/${id}/feedback`, { rating: 'down' })).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'Resource not found' } } });
    expect(await ratings()).toEqual([]);

    expect((await alice('POST', `/chat/${id}/feedback`, { rating: 'sideways' })).status).toBe(400);
    expect((await alice('POST', `/chat/${id}/feedback`, { rating: 'down', comment: 'z'.repeat(2001) })).body.error.message).toBe('"comment" must be at most 2000 characters');
    expect(await alice('POST', `/chat/${id}/feedback`, { rating: 'down', comment: 'Outdated', message_index: 1 })).toEqual({ status: 200, body: { success: true } });
    expect(await ratings()).toEqual([{ rating: 'down', comment: 'Outdated' }]);

    expect((await alice('DELETE', `/chat/${id}`)).status).toBe(405);
    expect((await alice('GET', `/chat/${id}`)).status).toBe(200);
  });
});
