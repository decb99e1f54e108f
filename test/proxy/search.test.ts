/**
 * The proxy's `GET {basePath}/search` in front of the real server, both over HTTP: relayed with no
 * conversation and no cookie, refused from a foreign Origin, its parameters bounded before any
 * upstream call, limited per visitor (by address without a cookie) and per address (whatever cookies
 * it holds), and served from one shared
 * cache: the same search by many visitors is one upstream call (counted where the proxy fetches).
 * Also: `context` on a message is bounded by the proxy and reaches the server.
 */
import { createServer, type Server } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportProxy, nodeListener, type SupportProxyOptions } from '../../src/proxy/index.js';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer } from '../../src/server/index.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const PRODUCTS = resolve(import.meta.dirname, '../fixtures/products');
let api: Awaited<ReturnType<typeof startServer>>;
let token: string;
const servers: Server[] = [];

beforeAll(async () => {
  api = await startServer({ dataDir: ':memory:', port: 0, engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: null }), logger: silentLogger, startWorker: false });
  await (api.server.engine as unknown as KnowledgeBase).ingest('acme', [PRODUCTS], { baseUrl: 'https://docs.acme.example/' });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write'] })).token;
});
afterAll(async () => {
  for (const s of servers) await new Promise<void>((done) => s.close(() => done()));
  await api.close();
});

/** A proxy over HTTP, and the upstream searches it made (counted at its `fetch`). */
async function proxyServer(options: Partial<SupportProxyOptions> = {}) {
  const upstream: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname === '/v0/search') upstream.push(url.search);
    return fetch(input, init);
  };
  const handler = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, trustProxy: true, fetch: counting, ...options });
  const server = createServer(nodeListener(handler));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/support`;
  return { base, upstream };
}

/** A visitor's search from their own address (the proxy trusts one hop of X-Forwarded-For). */
const search = (base: string, query: string, from = '198.51.100.1', headers: Record<string, string> = {}) =>
  fetch(`${base}/search?${query}`, { headers: { 'x-forwarded-for': from, ...headers } });

describe('proxy search', () => {
  it('relays the search with no conversation and no cookie, and sets none', async () => {
    const { base } = await proxyServer();
    const response = await search(base, 'q=download+invoices&limit=3');
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
    const { results } = (await response.json()) as { results: { url: string; excerpt: string }[] };
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]!.url).toBe('https://docs.acme.example/products/billing#invoices');
  });

  it('refuses a foreign Origin, and bad parameters before any upstream call, naming the parameter', async () => {
    const { base, upstream } = await proxyServer();
    const foreign = await search(base, 'q=install', '198.51.100.2', { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    for (const [query, message] of [
      ['', '"q" is required'],
      ['q=%20', '"q" must not be empty'],
      [`q=${'a'.repeat(501)}`, '"q" must be at most 500 characters'],
      ['q=x&limit=50', '"limit" must be an integer from 1 to 20'],
      ['q=x&page_url=ftp%3A%2F%2Fa.example%2F', '"page_url" must be an absolute http(s) URL of at most 2000 characters'],
    ]) {
      const response = await search(base, query!, '198.51.100.2');
      expect({ query, status: response.status, body: await response.json() }).toEqual({ query, status: 400, body: { error: { code: 'bad_request', message } } });
    }
    expect(upstream).toEqual([]);
  });

  it('serves the same search to many visitors from one upstream call, concurrent misses included', async () => {
    const { base, upstream } = await proxyServer();
    const visitors = Array.from({ length: 12 }, (_, i) => `198.51.100.${10 + i}`);
    const first = await Promise.all(visitors.map((from) => search(base, 'q=install&limit=5', from)));
    expect(first.map((r) => r.status)).toEqual(visitors.map(() => 200));
    const bodies = await Promise.all(first.map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
    // Later, from others: still cached. The query is read trimmed and with its default limit.
    expect((await search(base, 'q=install&limit=5', '198.51.100.99')).status).toBe(200);
    expect((await search(base, 'q=%20install%20&limit=5', '198.51.100.98')).status).toBe(200);
    expect(upstream).toEqual(['?q=install&limit=5']);
    // Another limit or page is another search.
    await search(base, 'q=install', '198.51.100.97');
    await search(base, 'q=install&limit=5&page_url=https%3A%2F%2Fdocs.acme.example%2Fproducts%2Fcli%2Finstall', '198.51.100.97');
    expect(upstream).toHaveLength(3);
  });

  it('asks upstream again once the cache time is over', async () => {
    const { base, upstream } = await proxyServer({ searchCacheTtlMs: 50 });
    await search(base, 'q=install');
    await search(base, 'q=install');
    expect(upstream).toHaveLength(1);
    await new Promise((done) => setTimeout(done, 80));
    await search(base, 'q=install');
    expect(upstream).toHaveLength(2);
  });

  it('limits a visitor’s searches (by address without a cookie): 429 with Retry-After, others unaffected', async () => {
    const { base } = await proxyServer({ visitorLimits: { searches: 3 } });
    for (let i = 0; i < 3; i++) expect((await search(base, `q=install+${i}`, '198.51.100.50')).status).toBe(200);
    const limited = await search(base, 'q=install', '198.51.100.50');
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await search(base, 'q=install', '198.51.100.51')).status).toBe(200);
  });

  it('limits an address’s searches whatever cookies it mints: four new cookies and none share its 120 a minute', async () => {
    const { base } = await proxyServer();
    const from = '198.51.100.70';
    // Counted in one-minute windows: started early in one, so that all 300 fall in it.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((done) => setTimeout(done, left + 50));
    // Four visitors minted from one address, each by a first message; the fifth holds no cookie.
    const cookies: (string | undefined)[] = [undefined];
    for (let i = 0; i < 4; i++) {
      const sent = await fetch(`${base}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': from }, body: JSON.stringify({ message: `Question ${i}` }) });
      expect(sent.status).toBe(202);
      cookies.push(sent.headers.get('set-cookie')!.split(';')[0]!);
    }
    // The same (cached) search, round the five of them: 60 each would be 300.
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) {
      const cookie = cookies[i % cookies.length];
      statuses.push((await search(base, 'q=install', from, cookie ? { cookie } : {})).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses.slice(120).every((s) => s === 429)).toBe(true);
    // Another address keeps its own.
    expect((await search(base, 'q=install', '198.51.100.71')).status).toBe(200);
  });

  it('relays a message’s page context, bounded: a bad one is 400 naming the field, a good one is kept with the conversation', async () => {
    const { base } = await proxyServer();
    const send = (context: unknown) =>
      fetch(`${base}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.60' }, body: JSON.stringify({ message: 'How do I install it?', context }) });
    const bad: [unknown, string][] = [
      [{ page_url: 'not a url' }, '"context.page_url" must be an absolute http(s) URL of at most 2000 characters'],
      [{ page_url: `https://a.example/${'p'.repeat(2000)}` }, '"context.page_url" must be an absolute http(s) URL of at most 2000 characters'],
      [{ page_title: 't'.repeat(301) }, '"context.page_title" must be at most 300 characters'],
      [{ selection: 's'.repeat(1001) }, '"context.selection" must be at most 1000 characters'],
      [{ page: 'x' }, 'Unknown field "context.page"'],
      ['x', '"context" must be an object'],
    ];
    for (const [context, message] of bad) {
      const response = await send(context);
      expect({ context, status: response.status, body: await response.json() }).toEqual({ context, status: 400, body: { error: { code: 'bad_request', message } } });
    }
    // Kept without its query and fragment (they may hold the visitor's data).
    const sent = await send({ page_url: 'https://docs.acme.example/products/cli/install?email=a%40b.example#npm', page_title: ' Installing the CLI ', selection: null });
    expect(sent.status).toBe(202);
    const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
    expect(await api.server.sql.get("SELECT page_url, page_title, selection FROM messages WHERE conversation_id = ? AND role = 'user'", [id])).toEqual({
      page_url: 'https://docs.acme.example/products/cli/install',
      page_title: 'Installing the CLI',
      selection: null,
    });
  });
});
