import { afterEach, describe, expect, it } from 'vitest';
import { createConnection } from 'node:net';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { testServer, type TestServer } from '../helpers/server.js';
import { createTestEngine } from '../helpers/test-engine.js';

let t: TestServer;
afterEach(async () => t?.server.close());

const UNAUTHORIZED = { error: { code: 'unauthorized', message: 'Invalid or expired API token' } };
const FORBIDDEN = { error: { code: 'forbidden', message: 'Insufficient permissions' } };

describe('authentication and scopes', () => {
  it.each([
    ['no header', {}],
    ['a wrong token', { authorization: 'Bearer sc_live_notarealtoken' }],
    ['a non-bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a scheme without a token', { authorization: 'Bearer' }],
    ['a token with a space in it', { authorization: 'Bearer sc_live_x y' }],
  ])('answers 401 with %s, and a Bearer challenge', async (_name, headers) => {
    t = await testServer();
    const res = await t.call('GET', '/v0/me', { headers });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.response.headers.get('www-authenticate')).toBe('Bearer realm="support-chat"');
  });

  it.each([['bearer'], ['BEARER'], ['BeArEr'], ['Bearer  ']])('takes the scheme case-insensitively, with any number of spaces: "%s <token>"', async (scheme) => {
    t = await testServer();
    const res = await t.call('GET', '/v0/me', { headers: { authorization: `${scheme} ${await t.token()}` } });
    expect(res.status).toBe(200);
  });

  it('answers 401 for an expired token and for a revoked one', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    t = await testServer({ now: () => now });
    const expiring = await t.server.tokens.create({ orgId: 'acme', name: 'short', scopes: ['chat:read'], expiresAt: new Date(now + 60_000) });
    expect((await t.call('GET', '/v0/me', { token: expiring.token })).status).toBe(200);
    now += 120_000;
    expect((await t.call('GET', '/v0/me', { token: expiring.token })).body).toEqual(UNAUTHORIZED);
    const revoked = await t.server.tokens.create({ orgId: 'acme', name: 'gone', scopes: ['chat:read'] });
    expect((await t.call('GET', '/v0/me', { token: revoked.token })).status).toBe(200);
    await t.server.tokens.revoke(revoked.record.id);
    expect((await t.call('GET', '/v0/me', { token: revoked.token })).status).toBe(401);
  });

  it('stores only a hash of the token', async () => {
    t = await testServer();
    const token = await t.token();
    expect(token).toMatch(/^sc_live_[A-Za-z0-9_-]{43}$/);
    const secret = token.slice('sc_live_'.length);
    const rows = await t.server.sql.all<Record<string, unknown>>('SELECT * FROM tokens');
    expect(rows).toHaveLength(1);
    // Every column, text or bytes, read every way the secret could hide in it.
    const readings = Object.values(rows[0]!).flatMap((value) =>
      value instanceof Uint8Array ? (['utf8', 'latin1', 'hex', 'base64', 'base64url'] as const).map((encoding) => Buffer.from(value).toString(encoding)) : [String(value)],
    );
    for (const reading of readings) expect(reading).not.toContain(secret.slice(0, 12));
    // Still, the token is recognized: what is stored is derived from it.
    expect((await t.call('GET', '/v0/me', { token })).status).toBe(200);
  });

  it('describes the calling token on GET /v0/me', async () => {
    t = await testServer();
    const { token, record } = await t.server.tokens.create({ orgId: 'acme', name: 'website', scopes: ['chat:read', 'chat:write'] });
    const res = await t.call('GET', '/v0/me', { token });
    expect(res.body).toEqual({ token: { name: 'website', prefix: record.prefix, scopes: ['chat:read', 'chat:write'] }, organization: { id: 'acme' } });
    expect(token.startsWith(record.prefix)).toBe(true);
  });

  it.each([
    ['POST', '/v0/chat', 'chat:write', { message: 'hi' }],
    ['GET', '/v0/chat/conv_x', 'chat:read', undefined],
    ['POST', '/v0/chat/conv_x/escalate', 'chat:escalate', { integration: 'webhook', name: 'A', email: 'a@b.co' }],
    ['DELETE', '/v0/tickets/plain/th_1', 'tickets:delete', undefined],
    ['GET', '/v0/tickets', 'tickets:read', undefined],
    ['GET', '/v0/tickets/plain/th_1', 'tickets:read', undefined],
  ] as const)('%s %s needs %s: 403 without it', async (method, path, scope, body) => {
    t = await testServer();
    const others = (['chat:read', 'chat:write', 'chat:escalate', 'tickets:read', 'tickets:delete'] as const).filter((s) => s !== scope);
    const res = await t.call(method, path, { token: await t.token('acme', [...others]), body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    const allowed = await t.call(method, path, { token: await t.token('acme', [scope]), body });
    expect(allowed.status).not.toBe(403);
  });

  it('answers 404 for unknown routes and 405 with Allow for wrong methods, in the error shape', async () => {
    t = await testServer();
    const token = await t.token();
    const unknown = await t.call('GET', '/v0/nothing-here', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
    const wrong = await t.call('PUT', '/v0/chat', { token });
    expect(wrong.status).toBe(405);
    // GET and DELETE /v0/chat are the visitor routes (?visitor_id=).
    expect(wrong.response.headers.get('allow')).toBe('GET, DELETE, POST');
  });

  it('serves its OpenAPI 3.1 document without a token', async () => {
    t = await testServer();
    const res = await t.call('GET', '/v0/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v0/chat', '/v0/chat/{conversation_id}', '/v0/me']));
  });
});

describe('rate limits', () => {
  it('lets 120 requests per token per minute through, then 429 with Retry-After, without consuming quota', async () => {
    const now = Date.parse('2026-01-01T00:00:10Z');
    t = await testServer({ now: () => now });
    const token = await t.token();
    for (let i = 0; i < 120; i++) {
      const res = await t.call('GET', '/v0/me', { token });
      expect(res.status).toBe(200);
      expect(res.response.headers.get('x-ratelimit-remaining')).toBe(String(119 - i));
    }
    const limited = await t.call('GET', '/v0/me', { token });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: 'rate_limited', message: 'Too many requests', retryable: true } });
    expect(limited.response.headers.get('retry-after')).toBe('50');
    expect(limited.response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.response.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-01-01T00:01:00Z') / 1000));
    // A second token of the same organization still has its own quota.
    expect((await t.call('GET', '/v0/me', { token: await t.token() })).status).toBe(200);
  });

  it('applies the organization limit across tokens and reports the limit with the fewest remaining', async () => {
    t = await testServer({ rateLimits: { perToken: 5, perOrganization: 8 } });
    const a = await t.token();
    const b = await t.token();
    for (let i = 0; i < 5; i++) await t.call('GET', '/v0/me', { token: a });
    const res = await t.call('GET', '/v0/me', { token: b });
    expect(res.response.headers.get('x-ratelimit-limit')).toBe('8');
    expect(res.response.headers.get('x-ratelimit-remaining')).toBe('2');
    await t.call('GET', '/v0/me', { token: b });
    await t.call('GET', '/v0/me', { token: b });
    expect((await t.call('GET', '/v0/me', { token: b })).status).toBe(429);
  });

  it('applies the lower per-organization limit of sending messages', async () => {
    t = await testServer({ rateLimits: { endpoints: { send: 2 } } });
    const token = await t.token();
    const a = await t.call('POST', '/v0/chat', { token, body: { message: 'a' } });
    expect(a.response.headers.get('x-ratelimit-limit')).toBe('2');
    await t.call('POST', '/v0/chat', { token, body: { message: 'b' } });
    expect((await t.call('POST', '/v0/chat', { token, body: { message: 'c' } })).status).toBe(429);
    expect((await t.call('GET', '/v0/me', { token })).status).toBe(200);
  });

  it('counts requests without a valid token against the client address, so 401s carry headers', async () => {
    t = await testServer({ rateLimits: { perAddress: 3 } });
    for (let i = 0; i < 3; i++) {
      const res = await t.call('GET', '/v0/me', { address: '198.51.100.1' });
      expect(res.status).toBe(401);
      expect(res.response.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    expect((await t.call('GET', '/v0/me', { address: '198.51.100.1' })).status).toBe(429);
    expect((await t.call('GET', '/v0/me', { address: '198.51.100.2' })).status).toBe(401);
  });

  it('puts rate limit headers on 404 and 500 responses too', async () => {
    t = await testServer({ env: { SUPPORT_CHAT_WEBHOOK_URL: 'http://127.0.0.1:9/unreachable', SUPPORT_CHAT_WEBHOOK_SECRET: 's' } });
    const token = await t.token();
    expect((await t.call('GET', '/v0/chat/conv_missing', { token })).status).toBe(404);
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'x' } });
    await t.answer();
    const failed = await t.call('POST', `/v0/chat/${sent.body.conversation_id}/escalate`, { token, body: { integration: 'webhook', name: 'A', email: 'a@b.co' } });
    expect(failed.status).toBe(500);
    expect(failed.response.headers.get('x-ratelimit-limit')).toBe('30');
  });

  it('answers requests Node’s parser refuses in the error shape, with rate limit headers', async () => {
    const api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    try {
      const { port } = new URL(api.url);
      const raw = (text: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = createConnection(Number(port), '127.0.0.1', () => socket.write(text));
          let answer = '';
          socket.on('data', (chunk) => (answer += chunk.toString()));
          socket.on('end', () => resolve(answer));
          socket.on('error', reject);
        });
      const cases = [
        ['FOO /v0/me HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'Unknown request method'],
        ['POST /v0/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc', 400, 'Malformed request: conflicting or invalid body length'],
        [`GET /v0/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request headers are too large'],
      ] as const;
      for (const [request, status, message] of cases) {
        const answer = await raw(request);
        const [head, body] = answer.split('\r\n\r\n');
        expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
        expect(head).toMatch(/\r\ncontent-type: application\/json/i);
        expect(head).toMatch(/\r\nx-ratelimit-limit: 60\r\n/i);
        expect(head).toMatch(/\r\nx-ratelimit-remaining: \d+\r\n/i);
        expect(head).toMatch(/\r\nx-ratelimit-reset: \d+\r\n/i);
        expect(JSON.parse(body!)).toEqual({ error: { code: 'bad_request', message } });
      }
    } finally {
      await api.close();
    }
  });
});
