/**
 * @module The proxy's cost and economy: added latency of a proxied GET against calling the upstream
 * directly, upstream requests per answered question with and without long polling, and questions
 * per minute one token sustains within 120 requests per minute.
 */
import autocannon from 'autocannon';
import { createServer } from 'node:http';
import { createSupportProxy, nodeListener } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { quantile, type BenchTable } from './table.js';

const SECRET = 'bench-visitor-signing-secret-0123456789';
const UNLIMITED = { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } };

async function listen(handler: (r: Request) => Promise<Response>): Promise<{ url: string; close(): void }> {
  const server = createServer(nodeListener(handler));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, close: () => server.close() };
}

/** 20 connections for 3 s against one URL; latency in ms. */
function load(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 20, duration: 3, headers }, (error, r) => {
      if (error) return reject(error);
      resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors });
    });
  });
}

/** A question asked through the proxy like the widget asks it; returns the upstream requests it cost. */
async function question(base: string, counter: { n: number }, longPoll: boolean): Promise<number> {
  const before = counter.n;
  const sent = await fetch(`${base}/api/support/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"How long does an answer take?"}' });
  const cookie = sent.headers.get('set-cookie')!.split(';')[0]!;
  const { conversation_id } = (await sent.json()) as { conversation_id: string };
  // The widget's schedule: a first poll after 300 ms, then long polls, or backoff 600, 1200, 2400… ms.
  let delay = 300;
  await new Promise((r) => setTimeout(r, delay));
  for (;;) {
    const res = await fetch(`${base}/api/support/chat/${conversation_id}`, { headers: { cookie, ...(longPoll ? { prefer: 'wait=15' } : {}) } });
    const body = (await res.json()) as { status: string };
    if (body.status !== 'processing') break;
    if (longPoll && res.headers.has('preference-applied')) continue;
    delay = Math.min(5_000, delay * 2);
    await new Promise((r) => setTimeout(r, delay));
  }
  return counter.n - before;
}

/**
 * What identity checks add to a proxied request: a cached, completed conversation read through the
 * proxy's handler in this process (no sockets, so only the proxy's own work is timed), anonymous
 * and as a known visitor, interleaved in one loop.
 */
export async function identityOverhead(): Promise<BenchTable> {
  const hsSecret = 'bench-visitor-token-secret-0123456789';
  const ec = await generateKeyPair('ES256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(ec.publicKey)), kid: 'k1', alg: 'ES256' }] });
  const conversation = (visitor: unknown) =>
    JSON.stringify({ id: 'conv_bench', status: 'completed', messages: [{ role: 'user', content: 'Hi', sources: [] }], created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', visitor });
  const upstream = (visitor: unknown): typeof fetch => (input) =>
    Promise.resolve(String(input).endsWith('/jwks.json') ? new Response(jwks, { headers: { 'content-type': 'application/json' } }) : new Response(conversation(visitor), { headers: { 'content-type': 'application/json' } }));
  const base = { apiBaseUrl: 'http://upstream.test', token: 'bench-token-123', secret: SECRET, cacheTtlMs: 3_600_000, visitorLimits: { polls: 1e9 } };
  const known = { id: 'user-1', verified: true };
  const { encodeVisitor } = await import('../../src/proxy/visitor.js');
  const cookie = `sc_visitor=${encodeVisitor(SECRET, { id: 'anon-1', conversations: ['conv_bench'] })}`;
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const hsToken = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(new TextEncoder().encode(hsSecret));
  const esToken = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime(exp).sign(ec.privateKey);
  const cases: [string, (r: Request) => Promise<Response>, Record<string, string>][] = [
    ['anonymous (signed cookie)', createSupportProxy({ ...base, fetch: upstream({ id: 'anon-1', verified: false }) }), { cookie }],
    ['identify (the site session)', createSupportProxy({ ...base, fetch: upstream(known), identify: (r) => (r.headers.get('x-session') ? { id: 'user-1' } : null) }), { 'x-session': '1' }],
    ['visitor JWT, HS256', createSupportProxy({ ...base, fetch: upstream(known), identity: { secret: hsSecret } }), { authorization: `Bearer ${hsToken}` }],
    ['visitor JWT, ES256 (JWKS)', createSupportProxy({ ...base, fetch: upstream(known), identity: { jwksUrl: 'http://app.test/jwks.json' } }), { authorization: `Bearer ${esToken}` }],
  ];
  const samples = cases.map(() => [] as number[]);
  for (let i = 0; i < 6_000; i++) {
    for (const [c, [, handler, headers]] of cases.entries()) {
      const t0 = performance.now();
      const response = await handler(new Request('https://www.example.com/api/support/chat/conv_bench', { headers: { origin: 'https://www.example.com', ...headers } }));
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${cases[c]![0]}: ${response.status}`);
      if (i >= 500) samples[c]!.push(performance.now() - t0);
    }
  }
  const anonymous = quantile(samples[0]!, 0.5);
  return {
    title: 'Identity checks: a cached conversation read through the proxy handler in process (5,500 requests each, interleaved)',
    columns: ['visitor', 'p50 ms', 'p99 ms', 'added p50 ms vs anonymous'],
    rows: cases.map(([name], c) => [name, quantile(samples[c]!, 0.5), quantile(samples[c]!, 0.99), quantile(samples[c]!, 0.5) - anonymous]),
    notes: ['Goal: identity checks add ≤ 1 ms p50 to a proxied request.'],
  };
}

export async function run(): Promise<BenchTable[]> {
  const answerMs = 2_000;
  const api = await startServer({
    dataDir: ':memory:',
    port: 0,
    logger: silentLogger,
    rateLimits: UNLIMITED,
    engine: {
      answer: async () => {
        await new Promise((r) => setTimeout(r, answerMs));
        return { content: 'Done.', sources: [] };
      },
      summarize: async () => 'Summary',
      title: async () => 'Title',
      forgetTicket: async () => undefined,
    },
  });
  const { token } = await api.server.tokens.create({ orgId: 'bench', name: 'bench', scopes: ['chat:read', 'chat:write', 'chat:escalate'] });
  const counter = { n: 0 };
  const countingFetch: typeof fetch = (input, init) => {
    counter.n++;
    return fetch(input, init);
  };
  const proxy = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, fetch: countingFetch, cacheTtlMs: 0, visitorLimits: { polls: 1e9, messages: 1e9, newVisitorsPerAddress: 1e9, perAddress: 1e9 } });
  const site = await listen(proxy);

  // Added latency: the same completed conversation read directly and through the proxy, one request at a time.
  const sent = await fetch(`${site.url}/api/support/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"latency"}' });
  const cookie = sent.headers.get('set-cookie')!.split(';')[0]!;
  const { conversation_id } = (await sent.json()) as { conversation_id: string };
  await new Promise((r) => setTimeout(r, answerMs + 500));
  const direct: number[] = [];
  const proxied: number[] = [];
  for (let i = 0; i < 3_000; i++) {
    const t0 = performance.now();
    await (await fetch(`${api.url}/v0/chat/${conversation_id}`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
    const t1 = performance.now();
    await (await fetch(`${site.url}/api/support/chat/${conversation_id}`, { headers: { cookie } })).arrayBuffer();
    const t2 = performance.now();
    if (i >= 200) {
      direct.push(t1 - t0);
      proxied.push(t2 - t1);
    }
  }

  // Under concurrency (autocannon). Upstream and proxy share this process, so the proxied figures
  // include the upstream's own load; the sequential table above is the cleaner measure of overhead.
  const directLoad = await load(`${api.url}/v0/chat/${conversation_id}`, { authorization: `Bearer ${token}` });
  const proxiedLoad = await load(`${site.url}/api/support/chat/${conversation_id}`, { cookie });

  const withLongPoll: number[] = [];
  const withoutLongPoll: number[] = [];
  for (let i = 0; i < 5; i++) withLongPoll.push(await question(site.url, counter, true));
  for (let i = 0; i < 5; i++) withoutLongPoll.push(await question(site.url, counter, false));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  site.close();
  await api.close();

  const identity = await identityOverhead();
  return [
    identity,
    {
      title: 'Added latency of a proxied GET (2,800 sequential requests each, same run)',
      columns: ['path', 'p50 ms', 'p99 ms'],
      rows: [
        ['upstream directly', quantile(direct, 0.5), quantile(direct, 0.99)],
        ['through the proxy', quantile(proxied, 0.5), quantile(proxied, 0.99)],
        ['added by the proxy', quantile(proxied, 0.5) - quantile(direct, 0.5), quantile(proxied, 0.99) - quantile(direct, 0.99)],
      ],
      notes: ['Goal: ≤ 1 ms added p50.'],
    },
    {
      title: 'A completed conversation read under 20 concurrent connections (3 s each, autocannon; upstream and proxy in one process)',
      columns: ['path', 'requests/s', 'p50 ms', 'p99 ms', 'errors'],
      rows: [
        ['upstream directly', directLoad.rps, directLoad.p50, directLoad.p99, directLoad.errors],
        ['through the proxy', proxiedLoad.rps, proxiedLoad.p50, proxiedLoad.p99, proxiedLoad.errors],
      ],
    },
    {
      title: `Upstream requests per answered question (answers take ${answerMs / 1000} s; widget polling schedule)`,
      columns: ['mode', 'upstream requests / question', 'questions per minute within 120 req/min per token'],
      rows: [
        ['with long polling', mean(withLongPoll), 120 / mean(withLongPoll)],
        ['without long polling (backoff 300 ms → 5 s)', mean(withoutLongPoll), 120 / mean(withoutLongPoll)],
      ],
      notes: ['Goal: ≤ 2 upstream requests per question with long polling.'],
    },
  ];
}
