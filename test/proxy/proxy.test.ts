import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSupportProxy, type SupportProxyOptions } from '../../src/proxy/index.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const SITE = 'https://www.example.com';
let up: FakeUpstream;
const logs: string[] = [];
const seen: string[] = [];

beforeEach(async () => {
  up = await fakeUpstream();
});
afterEach(async () => up.close());
afterAll(() => {
  // The token never appears in any response or log line of this whole suite.
  expect(seen.length).toBeGreaterThan(20);
  for (const text of [...seen, ...logs]) expect(text).not.toContain('upstream_secret_token');
});

function proxy(options: Partial<SupportProxyOptions> = {}) {
  const handler = createSupportProxy({
    apiBaseUrl: up.url,
    token: up.token,
    secret: SECRET,
    retries: 2,
    timeoutMs: 2_000,
    logger: { info: (f) => logs.push(JSON.stringify(f)), warn: (f) => logs.push(JSON.stringify(f)) },
    ...options,
  });
  return async (request: Request, info?: { remoteAddress?: string }) => {
    const response = await handler(request, info);
    const text = await response.clone().text();
    seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
    return response;
  };
}

/** A browser-like visitor with its own cookie jar. */
function visitor(handler: (r: Request) => Promise<Response>, origin = SITE) {
  let cookie = '';
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await handler(
      new Request(`${SITE}/api/support${path}`, {
        method,
        headers: { origin, ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    const json = response.status === 204 ? null : await response.json().catch(() => null);
    return { status: response.status, body: json as any, headers: response.headers }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}

describe('routes and visitors', () => {
  it('serves only the three routes; everything else is 404 in the error shape', async () => {
    const v = visitor(proxy());
    for (const path of ['', '/', '/me', '/tickets/plain/1', '/chat/a/b/c', '/../v0/me']) {
      const res = await v('GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
    }
    expect((await v('DELETE', '/chat')).status).toBe(405);
    expect(up.calls).toHaveLength(0);
  });

  it('binds a conversation to the visitor who started it: another visitor or an unknown id gets 404 without an upstream call', async () => {
    const handler = proxy();
    const alice = visitor(handler);
    const bob = visitor(handler);
    const sent = await alice('POST', '/chat', { message: 'hello' });
    expect(sent.status).toBe(202);
    expect(sent.headers.get('set-cookie')).toMatch(/^sc_visitor=[\w-]+\.[\w-]+; Path=\/api\/support; HttpOnly; Max-Age=\d+; SameSite=Lax; Secure$/);
    const id = sent.body.conversation_id;
    expect((await alice('GET', `/chat/${id}`)).status).toBe(200);
    const calls = up.calls.length;
    expect((await bob('GET', `/chat/${id}`)).status).toBe(404);
    expect((await bob('POST', `/chat/${id}/escalate`, { name: 'B', email: 'b@b.co' })).status).toBe(404);
    expect((await bob('POST', '/chat', { message: 'hi', conversation_id: id })).status).toBe(404);
    expect((await alice('GET', '/chat/conv_999')).status).toBe(404);
    expect(up.calls.length).toBe(calls);
  });

  it('refuses a tampered visitor cookie', async () => {
    const handler = proxy();
    const alice = visitor(handler);
    const { body } = await alice('POST', '/chat', { message: 'hello' });
    const forged = Buffer.from(JSON.stringify({ v: 'mallory', c: [body.conversation_id] })).toString('base64url');
    const res = await handler(new Request(`${SITE}/api/support/chat/${body.conversation_id}`, { headers: { origin: SITE, cookie: `sc_visitor=${forged}.AAAA` } }));
    expect(res.status).toBe(404);
  });

  it('ignores the browser’s Authorization header and forwards only the proxy token', async () => {
    const v = visitor(proxy());
    await v('POST', '/chat', { message: 'hello' }, { authorization: 'Bearer sc_live_attacker' });
    expect(up.calls[0]!.headers.authorization).toBe(`Bearer ${up.token}`);
  });

  it('passes only safe upstream headers through', async () => {
    const v = visitor(proxy());
    const res = await v('POST', '/chat', { message: 'hello' });
    expect(res.headers.get('x-internal')).toBeNull();
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('origins and CORS', () => {
  it('answers a preflight from an allowed origin with credentials and the exact origin', async () => {
    const handler = proxy({ allowedOrigins: [SITE] });
    const res = await handler(new Request('https://api.example.net/api/support/chat', { method: 'OPTIONS', headers: { origin: SITE, 'access-control-request-method': 'POST' } }));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SITE);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Prefer/);
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('refuses another origin with 403 and no upstream call, and same-origin by default only', async () => {
    const strict = visitor(proxy(), 'https://evil.example');
    const res = await strict('POST', '/chat', { message: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const cross = await proxy()(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: '{"message":"x"}' }));
    expect(cross.status).toBe(403);
    expect(up.calls).toHaveLength(0);
  });

  it('refuses header injection and path tricks in ids', async () => {
    const v = visitor(proxy());
    for (const id of ['conv%0d%0aSet-Cookie:%20x=1', '..%2f..%2fv0%2fme', 'a'.repeat(300), 'conv_1%00']) {
      expect((await v('GET', `/chat/${id}`)).status).toBe(404);
    }
    expect(up.calls).toHaveLength(0);
  });
});

describe('input is checked before any quota is spent', () => {
  it.each([
    ['no message', {}, '"message" is required'],
    ['a message that is not a string', { message: 42 }, '"message" must be a string'],
    ['a message of blanks', { message: '  \n ' }, '"message" must not be empty'],
    ['16,001 emoji', { message: '😀'.repeat(16_001) }, '"message" must be at most 16000 characters'],
    ['an empty message', { message: '' }, '"message" must not be empty'],
    ['a message of 16,001 characters', { message: 'x'.repeat(16_001) }, '"message" must be at most 16000 characters'],
    ['malformed JSON', '{"message":', 'Invalid JSON in request body'],
    ['a JSON array', '[1,2]', 'Request body must be a JSON object'],
  ])('refuses %s with 400', async (_label, body, message) => {
    const v = visitor(proxy());
    const res = await v('POST', '/chat', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
    expect(up.calls).toHaveLength(0);
  });

  it('refuses a body over 256 KiB with 413, with rate limit headers', async () => {
    const v = visitor(proxy());
    const res = await v('POST', '/chat', { message: 'x'.repeat(270_000) });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('19');
    expect(up.calls).toHaveLength(0);
  });

  it('counts characters, not UTF-16 units: 16,000 emoji pass, and 16,000 CJK characters sent as \\uXXXX escapes fit the body limit', async () => {
    const v = visitor(proxy());
    expect((await v('POST', '/chat', { message: '😀'.repeat(16_000) })).status).toBe(202);
    expect(JSON.parse(up.calls.at(-1)!.body).message).toBe('😀'.repeat(16_000));
    const escaped = `{"message":"${'\\u4e2d'.repeat(16_000)}"}`;
    expect(escaped.length).toBeGreaterThan(96_000);
    expect((await v('POST', '/chat', escaped)).status).toBe(202);
    expect(JSON.parse(up.calls.at(-1)!.body).message).toBe('中'.repeat(16_000));
  });

  it('checks name and email, and takes the integration and fields from the options, never the browser', async () => {
    const v = visitor(proxy({ escalation: { integration: 'plain', additionalFields: { priority: 2, label_type_ids: ['lt_1'] } } }));
    const { body } = await v('POST', '/chat', { message: 'hello' });
    const id = body.conversation_id;
    expect((await v('POST', `/chat/${id}/escalate`, { email: 'a@b.co' })).body.error.message).toBe('"name" is required');
    expect((await v('POST', `/chat/${id}/escalate`, { name: 'A', email: 'nope' })).body.error.message).toBe('"email" must be an email address');
    const ok = await v('POST', `/chat/${id}/escalate`, { name: 'Ada', email: 'ada@example.com', integration: 'webhook', additional_fields: { priority: 0 }, title: 'x' });
    expect(ok.status).toBe(200);
    const call = up.calls.at(-1)!;
    expect(JSON.parse(call.body)).toEqual({ integration: 'plain', name: 'Ada', email: 'ada@example.com', additional_fields: { priority: 2, label_type_ids: ['lt_1'] } });
    expect(call.headers['idempotency-key']).toMatch(new RegExp(`^escalate-${id}-[\\w-]{22}$`));
  });
});

describe('rate limits per visitor', () => {
  it('answers 429 with Retry-After and rate limit headers once a visitor has sent its messages', async () => {
    const handler = proxy({ visitorLimits: { messages: 2 } });
    const v = visitor(handler);
    const first = await v('POST', '/chat', { message: 'a' });
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    await v('POST', '/chat', { message: 'b' });
    const third = await v('POST', '/chat', { message: 'c' });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: { code: 'rate_limited', message: 'Too many requests', retryable: true } });
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(up.calls).toHaveLength(2);
    // Another visitor of the same proxy (same limiter) is not affected.
    expect((await visitor(handler)('POST', '/chat', { message: 'd' })).status).toBe(202);
  });
});

describe('new visitors per client address', () => {
  it('limits visitors started from one address, and only when the host tells the address', async () => {
    const handler = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, visitorLimits: { newVisitorsPerAddress: 1 } });
    const ask = (info?: { remoteAddress: string }) =>
      handler(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"message":"hi"}' }), info);
    expect((await ask({ remoteAddress: '198.51.100.7' })).status).toBe(202);
    expect((await ask({ remoteAddress: '198.51.100.7' })).status).toBe(429);
    expect((await ask({ remoteAddress: '198.51.100.8' })).status).toBe(202);
    expect((await ask()).status).toBe(202);
    expect((await ask()).status).toBe(202);
  });
});

describe('upstream calls', () => {
  it('retries a GET after 5xx and a chat POST (it carries an Idempotency-Key)', async () => {
    const v = visitor(proxy());
    up.failNext = [503];
    const sent = await v('POST', '/chat', { message: 'hello' });
    expect(sent.status).toBe(202);
    expect(up.calls[0]!.headers['idempotency-key']).toBe(up.calls[1]!.headers['idempotency-key']);
    up.failNext = [502, 500];
    expect((await v('GET', `/chat/${sent.body.conversation_id}`)).status).toBe(200);
  });

  it('passes an upstream 429 and its Retry-After through to the widget', async () => {
    const v = visitor(proxy());
    const sent = await v('POST', '/chat', { message: 'hello' });
    up.failNext = [429];
    const res = await v('GET', `/chat/${sent.body.conversation_id}`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
  });

  it('answers 502 retryable when the upstream is unreachable and 504 when it is too slow', async () => {
    const v = visitor(proxy({ retries: 0, timeoutMs: 200 }));
    up.failNext = [0];
    const dropped = await v('POST', '/chat', { message: 'hello' });
    expect(dropped.status).toBe(502);
    expect(dropped.body).toEqual({ error: { code: 'internal_error', message: 'The support service could not be reached', retryable: true } });
    up.delayMs = 1_000;
    const slow = await v('POST', '/chat', { message: 'hello' });
    expect(slow.status).toBe(504);
    expect(slow.body.error.retryable).toBe(true);
    const closed = visitor(createSupportProxy({ apiBaseUrl: 'http://127.0.0.1:9', token: up.token, secret: SECRET, retries: 0 }));
    expect((await closed('POST', '/chat', { message: 'x' })).status).toBe(502);
  });

  it('turns an upstream 401 (a bad proxy token) into a 502 that says nothing about the token', async () => {
    const v = visitor(createSupportProxy({ apiBaseUrl: up.url, token: 'sc_live_upstream_secret_token_WRONG', secret: SECRET }));
    const res = await v('POST', '/chat', { message: 'hello' });
    expect(res.status).toBe(502);
    expect(JSON.stringify(res.body)).not.toMatch(/token/i);
  });

  it('spreads requests over a pool of tokens by remaining quota', async () => {
    const pool = [up.token, `${up.token}_two`];
    const v = visitor(createSupportProxy({ apiBaseUrl: up.url, token: pool, secret: SECRET }));
    await v('POST', '/chat', { message: 'a' });
    await v('POST', '/chat', { message: 'b' });
    const used = new Set(up.calls.map((c) => c.headers.authorization));
    expect(used.size).toBe(2);
  });
});

describe('polling economy', () => {
  it('shares one upstream request among concurrent polls of a conversation', async () => {
    const v = visitor(proxy());
    const { body } = await v('POST', '/chat', { message: 'hello' });
    up.status = 'processing';
    up.delayMs = 100;
    const before = up.calls.length;
    const results = await Promise.all(Array.from({ length: 10 }, () => v('GET', `/chat/${body.conversation_id}`)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(up.calls.length - before).toBe(1);
  });

  it('serves a completed conversation from a short cache', async () => {
    const v = visitor(proxy());
    const { body } = await v('POST', '/chat', { message: 'hello' });
    await v('GET', `/chat/${body.conversation_id}`);
    const before = up.calls.length;
    await v('GET', `/chat/${body.conversation_id}`);
    expect(up.calls.length).toBe(before);
  });

  it('long-polls the upstream when it supports Prefer: wait, and does not claim to when it does not', async () => {
    const v = visitor(proxy());
    const { body } = await v('POST', '/chat', { message: 'hello' });
    up.status = 'processing';
    const res = await v('GET', `/chat/${body.conversation_id}`, undefined, { prefer: 'wait=15' });
    expect(up.calls.at(-1)!.headers.prefer).toBe('wait=15');
    expect(res.headers.get('preference-applied')).toBe('wait=15');

    up.longPoll = false;
    const v2 = visitor(proxy());
    const second = await v2('POST', '/chat', { message: 'hello' });
    const first = await v2('GET', `/chat/${second.body.conversation_id}`, undefined, { prefer: 'wait=15' });
    expect(first.headers.get('preference-applied')).toBeNull();
  });
});

describe('options', () => {
  it.each([
    [{ apiBaseUrl: 'not a url' }, /apiBaseUrl/],
    [{ token: '' }, /token/],
    [{ secret: 'short' }, /secret/],
    [{ allowedOrigins: ['https://x.com/path'] }, /allowedOrigins/],
    [{ escalation: { integration: 'Zen Desk' as never } }, /escalation.integration/],
    [{ trustProxy: -1 }, /trustProxy/],
    [{ trustProxy: 1.5 }, /trustProxy/],
    [{ escalationTimeoutMs: -5 }, /escalationTimeoutMs/],
    [{ visitorLimits: { perAddress: Number.NaN } }, /visitorLimits.perAddress/],
  ])('throws at construction for %j', (bad, message) => {
    expect(() => createSupportProxy({ apiBaseUrl: 'http://127.0.0.1:1', token: 'sc_live_token_123', secret: SECRET, ...bad })).toThrow(message);
  });
});

/** A fetch that answers escalations itself (as a v0 server would) and sends everything else to the fake upstream. */
function escalationAnswers(answer: (attempt: number) => Response | Promise<Response>): typeof fetch {
  let attempt = 0;
  return (input, init) => {
    const url = String(input);
    if (url.endsWith('/escalate')) {
      up.calls.push({ method: 'POST', path: new URL(url).pathname, headers: {}, body: String(init?.body ?? '') });
      return Promise.resolve(answer(attempt++));
    }
    return fetch(input, init);
  };
}

const conflictBody = (message: string) => Response.json({ error: { code: 'conflict', message } }, { status: 409, headers: { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '1900000000' } });

describe('escalation through the proxy', () => {
  it('waits for a slow helpdesk longer than its ordinary timeout instead of retrying into "in progress"', async () => {
    const v = visitor(proxy({ timeoutMs: 200, retries: 2 }));
    const { body } = await v('POST', '/chat', { message: 'hello' });
    up.delayMs = 600;
    const before = up.calls.length;
    const res = await v('POST', `/chat/${body.conversation_id}/escalate`, { name: 'Ada', email: 'ada@example.com' });
    expect(res.status).toBe(200);
    expect(res.body.ticket_id).toBe('tkt_1');
    expect(up.calls.length - before).toBe(1);
  });

  it('times an escalation out at escalationTimeoutMs', async () => {
    const v = visitor(proxy({ timeoutMs: 100, escalationTimeoutMs: 150, retries: 0 }));
    const { body } = await v('POST', '/chat', { message: 'hello' });
    up.delayMs = 400;
    expect((await v('POST', `/chat/${body.conversation_id}/escalate`, { name: 'Ada', email: 'ada@example.com' })).status).toBe(504);
  });

  it('answers an upstream "still in progress" as a retryable 409 with Retry-After', async () => {
    const v = visitor(proxy({ fetch: escalationAnswers(() => conflictBody('A request with this Idempotency-Key is still in progress')) }));
    const { body } = await v('POST', '/chat', { message: 'hello' });
    const res = await v('POST', `/chat/${body.conversation_id}/escalate`, { name: 'Ada', email: 'ada@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'conflict', message: 'Escalation is still in progress', retryable: true } });
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('keeps the upstream Retry-After of "in progress", in seconds or as an HTTP date', async () => {
    const later = new Date(Date.now() + 30_000).toUTCString();
    const answers = [{ 'retry-after': '12' }, { 'retry-after': later }];
    const v = visitor(
      proxy({ fetch: escalationAnswers((n) => new Response(JSON.stringify({ error: { code: 'conflict', message: 'Conversation escalation is already in progress' } }), { status: 409, headers: { 'content-type': 'application/json', ...answers[n] } })) }),
    );
    const { body } = await v('POST', '/chat', { message: 'hello' });
    expect((await v('POST', `/chat/${body.conversation_id}/escalate`, { name: 'Ada', email: 'ada@example.com' })).headers.get('retry-after')).toBe('12');
    const dated = Number((await v('POST', `/chat/${body.conversation_id}/escalate`, { name: 'Ada', email: 'ada@example.com' })).headers.get('retry-after'));
    expect(dated).toBeGreaterThanOrEqual(28);
    expect(dated).toBeLessThanOrEqual(30);
  });

  it.each([['Conversation has already been escalated'], ['Conversation is still processing']])('relays the final 409 "%s" without retryable', async (message) => {
    const v = visitor(proxy({ fetch: escalationAnswers(() => conflictBody(message)) }));
    const { body } = await v('POST', '/chat', { message: 'hello' });
    const res = await v('POST', `/chat/${body.conversation_id}/escalate`, { name: 'Ada', email: 'ada@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'conflict', message } });
  });

  it('keys an escalation by conversation and request: a resent form gets the same key, a corrected one a new key', async () => {
    const v = visitor(proxy());
    const { body } = await v('POST', '/chat', { message: 'hello' });
    const id = body.conversation_id;
    const keys: string[] = [];
    for (const email of ['ada@exmaple.com', 'ada@exmaple.com', 'ada@example.com']) {
      await v('POST', `/chat/${id}/escalate`, { name: 'Ada', email });
      keys.push(String(up.calls.at(-1)!.headers['idempotency-key']));
    }
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys.every((key) => key.startsWith(`escalate-${id}-`))).toBe(true);
  });

  it('relays the visitor’s note with name and email, and refuses a note over 2,000 characters', async () => {
    const v = visitor(proxy());
    const { body } = await v('POST', '/chat', { message: 'hello' });
    const id = body.conversation_id;
    const long = await v('POST', `/chat/${id}/escalate`, { name: 'Ada', email: 'ada@example.com', note: '😀'.repeat(2_001) });
    expect(long.body).toEqual({ error: { code: 'bad_request', message: '"note" must be at most 2000 characters' } });
    expect((await v('POST', `/chat/${id}/escalate`, { name: 'Ada', email: 'ada@example.com', note: ' It broke twice. ' })).status).toBe(200);
    expect(JSON.parse(up.calls.at(-1)!.body)).toEqual({ integration: 'webhook', name: 'Ada', email: 'ada@example.com', note: 'It broke twice.' });
  });
});

describe('client addresses', () => {
  const ask = (handler: ReturnType<typeof proxy>, info?: { remoteAddress: string }, headers: Record<string, string> = {}) =>
    handler(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json', ...headers }, body: '{"message":"hi"}' }), info);

  it('limits the upstream requests of one address, however many cookies it holds, so it cannot spend the token’s quota', async () => {
    const handler = proxy({ visitorLimits: { perAddress: 5, newVisitorsPerAddress: 1_000 } });
    for (let i = 0; i < 5; i++) expect((await ask(handler, { remoteAddress: '198.51.100.7' })).status).toBe(202);
    const refused = await ask(handler, { remoteAddress: '198.51.100.7' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(up.calls).toHaveLength(5);
    expect((await ask(handler, { remoteAddress: '198.51.100.8' })).status).toBe(202);
  });

  it('with trustProxy, takes the address the trusted proxy appended, not the forgeable leftmost entry', async () => {
    const handler = proxy({ trustProxy: true, visitorLimits: { perAddress: 2, newVisitorsPerAddress: 1_000 } });
    // The client forges a new leftmost entry each time; the proxy in front appends the real address.
    for (let i = 0; i < 2; i++) expect((await ask(handler, undefined, { 'x-forwarded-for': `10.0.0.${i}, 203.0.113.9` })).status).toBe(202);
    expect((await ask(handler, undefined, { 'x-forwarded-for': '10.0.0.99, 203.0.113.9' })).status).toBe(429);
    expect((await ask(handler, undefined, { 'x-forwarded-for': '203.0.113.10' })).status).toBe(202);
    // Two trusted hops: the second entry from the right.
    const twoHops = proxy({ trustProxy: 2, visitorLimits: { perAddress: 1, newVisitorsPerAddress: 1_000 } });
    expect((await ask(twoHops, undefined, { 'x-forwarded-for': '10.0.0.1, 203.0.113.20, 192.0.2.1' })).status).toBe(202);
    expect((await ask(twoHops, undefined, { 'x-forwarded-for': '10.0.0.2, 203.0.113.20, 192.0.2.1' })).status).toBe(429);
  });

  it('behind a TLS-terminating proxy, honours X-Forwarded-Proto and -Host for the same-origin check and the Secure cookie when trusted', async () => {
    const behind = (handler: ReturnType<typeof proxy>) =>
      handler(
        new Request('http://127.0.0.1:3000/api/support/chat', {
          method: 'POST',
          headers: { origin: SITE, 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'www.example.com', 'x-forwarded-for': '203.0.113.5' },
          body: '{"message":"hi"}',
        }),
      );
    const trusted = await behind(proxy({ trustProxy: true }));
    expect(trusted.status).toBe(202);
    expect(trusted.headers.get('set-cookie')).toMatch(/; Secure/);
    expect(trusted.headers.get('access-control-allow-origin')).toBeNull();
    expect((await behind(proxy())).status).toBe(403);
  });
});

describe('the proxy’s own answers', () => {
  it('carry rate limit headers on 403, 404 and 405 too', async () => {
    const handler = proxy();
    const v = visitor(handler);
    for (const res of [
      await visitor(handler, 'https://evil.example')('POST', '/chat', { message: 'hi' }),
      await v('GET', '/nowhere'),
      await v('GET', '/chat/conv_not_mine'),
      await v('DELETE', '/chat'),
    ]) {
      expect([403, 404, 405]).toContain(res.status);
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(name)).toMatch(/^\d+$/);
    }
  });
});

describe('the conversation cache', () => {
  it('stays bounded: after 9,000 polled conversations the oldest are evicted, recent ones still served from memory', async () => {
    const { encodeVisitor } = await import('../../src/proxy/visitor.js');
    let upstreamGets = 0;
    const big = 'x'.repeat(40_000);
    const answer: typeof fetch = (input) => {
      upstreamGets++;
      const id = String(input).split('/').at(-1);
      return Promise.resolve(Response.json({ id, status: 'completed', messages: [{ role: 'assistant', content: big, sources: [] }], created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }));
    };
    const handler = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, fetch: answer, cacheTtlMs: 600_000, cacheSize: 1_000 });
    const poll = (i: number) => {
      const cookie = `sc_visitor=${encodeVisitor(SECRET, { id: `visitor${i}`, conversations: [`conv_${i}`] })}`;
      return handler(new Request(`${SITE}/api/support/chat/conv_${i}`, { headers: { origin: SITE, cookie } }));
    };
    for (let i = 0; i < 9_000; i++) expect((await poll(i)).status).toBe(200);
    expect(upstreamGets).toBe(9_000);
    // The newest is still in memory; the first (1,000 entries ago by count) and one 500 ago (past 32 MiB of bodies) are not.
    await poll(8_999);
    expect(upstreamGets).toBe(9_000);
    await poll(0);
    await poll(8_500);
    expect(upstreamGets).toBe(9_002);
  });
});

describe('shortCache', () => {
  it('expires entries after the TTL and evicts the least recently used past its bounds', async () => {
    const { shortCache } = await import('../../src/proxy/cache.js');
    let now = 1;
    const cache = shortCache<string>({ ttlMs: 1_000, maxEntries: 2, maxBytes: 100, perf: { now: () => now } });
    cache.set('a', 'A', 10);
    cache.set('b', 'B', 10);
    expect(cache.get('a')).toBe('A'); // a is now the most recently used
    cache.set('c', 'C', 10);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    now = 1_000;
    expect(cache.get('a')).toBe('A');
    now = 1_002;
    expect(cache.get('a')).toBeUndefined();
    cache.set('big', 'x', 90);
    cache.set('d', 'D', 20);
    expect(cache.get('big')).toBeUndefined();
    expect(cache.bytes).toBeLessThanOrEqual(100);
    cache.set('huge', 'y', 101);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('d')).toBe('D');
  });

  it('holds nothing with a TTL or a size of 0', async () => {
    const { shortCache } = await import('../../src/proxy/cache.js');
    for (const off of [{ ttlMs: 0, maxEntries: 10 }, { ttlMs: 1_000, maxEntries: 0 }]) {
      const cache = shortCache<string>({ ...off, maxBytes: 100 });
      cache.set('a', 'A', 1);
      expect(cache.get('a')).toBeUndefined();
      expect(cache.size).toBe(0);
    }
  });
});
