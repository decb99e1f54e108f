/**
 * `GET /v0/search` through the real HTTP server, on SQLite and (in the node-postgres project) on
 * PostgreSQL: ranked sections of the token's organization as plain-text excerpts with the query's
 * words marked, never tickets; bad parameters, tokens and scopes, and the per-token rate limit.
 * Every response is checked against the OpenAPI document the server serves.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer } from '../../src/server/index.js';
import type { Scope } from '../../src/protocol/index.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { expectDocumented, servedValidator } from '../helpers/openapi.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

const PRODUCTS = resolve(import.meta.dirname, '../fixtures/products');
const BASE = 'https://docs.acme.example/';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
});

interface Result {
  url: string;
  title: string;
  section: string | null;
  excerpt: string;
  highlights: [number, number][];
}

/** A server over HTTP with the products fixture ingested for `acme`, and a caller that checks every answer against the served OpenAPI document. */
async function searchServer(options: { perToken?: number; search?: number; role?: 'api' | 'all' } = {}) {
  const started = await startServer({
    role: options.role,
    // Processes of one role share Redis on PostgreSQL (see docs/scaling.md).
    env: options.role === 'api' ? { SUPPORT_CHAT_REDIS_URL: TEST_REDIS_URL } : {},
    port: 0,
    dataDir: ':memory:',
    databaseUrl: freshDatabaseUrl(),
    engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: null }),
    logger: silentLogger,
    startWorker: false,
    rateLimits: { perToken: options.perToken, endpoints: { search: options.search } },
  });
  closing.push(() => started.close());
  const knowledge = started.server.engine as unknown as KnowledgeBase;
  await knowledge.ingest('acme', [PRODUCTS], { baseUrl: BASE });
  const validator = await servedValidator(() => fetch(`${started.url}/v0/openapi.json`));
  const token = async (orgId = 'acme', scopes: Scope[] = ['chat:read']) => (await started.server.tokens.create({ orgId, name: 'search', scopes })).token;
  async function search(query: string, init: { token?: string } = {}) {
    const url = `${started.url}/v0/search?${query}`;
    const headers = new Headers(init.token ? { authorization: `Bearer ${init.token}` } : {});
    const response = await fetch(url, { headers });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- checked against the OpenAPI schema
    const body = (await expectDocumented(validator, { method: 'GET', url, headers, body: undefined }, response)) as any;
    return { status: response.status, body, response };
  }
  return { ...started, knowledge, token, search };
}

describe('GET /v0/search', () => {
  it('answers ranked sections as plain text with the query’s words marked, at most three of one page', async () => {
    const s = await searchServer();
    const token = await s.token();
    const { status, body, response } = await s.search('q=download+invoices', { token });
    expect(status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const results = body.results as Result[];
    expect(results[0]).toMatchObject({ url: `${BASE}products/billing#invoices`, title: 'Billing', section: 'Invoices' });
    const first = results[0]!;
    // No Markdown marks and no HTML: **Settings → Billing** and the table read as their text.
    expect(first.excerpt).toContain('Settings → Billing');
    expect(first.excerpt).not.toMatch(/\*\*|\||<|>/);
    expect(first.highlights.map(([a, b]) => first.excerpt.slice(a, b).toLowerCase())).toEqual(expect.arrayContaining(['download', 'invoices']));
    for (const r of results) {
      expect([...r.excerpt].length).toBeLessThanOrEqual(300);
      for (const [a, b] of r.highlights) expect(0 <= a && a < b && b <= r.excerpt.length).toBe(true);
    }
    const perPage = new Map<string, number>();
    for (const r of results) perPage.set(r.url.split('#')[0]!, (perPage.get(r.url.split('#')[0]!) ?? 0) + 1);
    expect(Math.max(...perPage.values())).toBeLessThanOrEqual(3);
  });

  it('is served by an API process (--role api), which reads the knowledge base from the database', async () => {
    const s = await searchServer({ role: 'api' });
    expect(s.server.role).toBe('api');
    const { status, body } = await s.search('q=download+invoices&limit=2', { token: await s.token() });
    expect(status).toBe(200);
    expect(body.results[0].url).toBe(`${BASE}products/billing#invoices`);
  });

  it('gives a page’s opening section no heading (null), and honours limit', async () => {
    const s = await searchServer();
    const token = await s.token();
    const { body } = await s.search('q=billed+monthly&limit=1', { token });
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({ url: `${BASE}products/billing`, title: 'Billing', section: null });
  });

  it('answers at most three sections of one page even when more match', async () => {
    const s = await searchServer();
    const token = await s.token();
    const { body } = await s.search('q=billing+invoice+plan+payment+refunds&limit=20', { token });
    const billing = (body.results as Result[]).filter((r) => r.url.startsWith(`${BASE}products/billing`));
    expect(billing).toHaveLength(3);
  });

  it('refuses bad parameters with 400 naming the parameter', async () => {
    const s = await searchServer();
    const token = await s.token();
    const cases: [string, string][] = [
      ['', '"q" is required'],
      ['q=%20%20', '"q" must not be empty'],
      [`q=${'a'.repeat(501)}`, '"q" must be at most 500 characters'],
      ['q=x&limit=0', '"limit" must be an integer from 1 to 20'],
      ['q=x&limit=21', '"limit" must be an integer from 1 to 20'],
      ['q=x&limit=2.5', '"limit" must be an integer from 1 to 20'],
      ['q=x&limit=', '"limit" must be an integer from 1 to 20'],
      ['q=x&page_url=%2Fdocs%2Finstall', '"page_url" must be an absolute http(s) URL of at most 2000 characters'],
      ['q=x&page_url=javascript%3Aalert(1)', '"page_url" must be an absolute http(s) URL of at most 2000 characters'],
      [`q=x&page_url=https%3A%2F%2Fa.example%2F${'p'.repeat(2000)}`, '"page_url" must be an absolute http(s) URL of at most 2000 characters'],
    ];
    for (const [query, message] of cases) {
      const { status, body } = await s.search(query, { token });
      expect({ query, status, body }).toEqual({ query, status: 400, body: { error: { code: 'bad_request', message } } });
    }
    // Trimmed, 500 characters (an emoji counts one) are enough.
    expect((await s.search(`q=${encodeURIComponent(` ${'😀'.repeat(500)} `)}`, { token })).status).toBe(200);
    expect((await s.search('q=install&limit=20&page_url=https%3A%2F%2Fdocs.acme.example%2Fproducts%2Fcli%2Finstall', { token })).status).toBe(200);
  });

  it('answers 401 without a valid token and 403 without chat:read', async () => {
    const s = await searchServer();
    expect((await s.search('q=install')).status).toBe(401);
    expect((await s.search('q=install', { token: 'sk_live_nope' })).status).toBe(401);
    const writer = await s.token('acme', ['chat:write']);
    const refused = await s.search('q=install', { token: writer });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
  });

  it('sees only the token’s organization, and never tickets', async () => {
    const s = await searchServer();
    await s.knowledge.indexTicket('acme', { source: 'plain', externalId: 'th_1', title: 'Refunds for invoices', body: 'Customer asked to download invoices and get refunds', url: 'https://app.plain.com/th_1' });
    await s.knowledge.ingest('globex', [resolve(PRODUCTS, 'cli')], { baseUrl: 'https://docs.globex.example/' });
    const acme = await s.search('q=download+invoices+refunds&limit=20', { token: await s.token() });
    expect(acme.body.results.length).toBeGreaterThan(0);
    expect((acme.body.results as Result[]).every((r) => r.url.startsWith(BASE))).toBe(true);
    const globex = await s.search('q=download+invoices+refunds', { token: await s.token('globex') });
    expect(globex.body.results).toEqual([]);
    const cli = await s.search('q=install+npm', { token: await s.token('globex') });
    expect((cli.body.results as Result[]).map((r) => r.url)).toContain('https://docs.globex.example/cli/install');
    expect((cli.body.results as Result[]).every((r) => r.url.startsWith('https://docs.globex.example/'))).toBe(true);
  });

  it('counts searches in the organization’s search bucket, not the token’s general limit: 429 with Retry-After once it is used up', async () => {
    const s = await searchServer({ perToken: 2, search: 3 });
    const token = await s.token();
    for (let i = 0; i < 3; i++) expect((await s.search('q=install', { token })).status).toBe(200);
    const limited = await s.search('q=install', { token });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // The bucket is the organization's: another of its tokens shares it.
    expect((await s.search('q=install', { token: await s.token() })).status).toBe(429);
    // The token's general limit (2) is untouched by its searches.
    expect((await fetch(`${s.url}/v0/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('weighs the reader’s page and its neighbours: an ambiguous question finds the install page of the product being read', async () => {
    const s = await searchServer();
    const token = await s.token();
    const page = (path: string) => encodeURIComponent(`${BASE}products/${path}`);
    const first = async (query: string) => ((await s.search(query, { token })).body.results as Result[])[0]?.url;
    expect(await first(`q=how+do+I+install+it&page_url=${page('cli/commands')}`)).toBe(`${BASE}products/cli/install`);
    expect(await first(`q=how+do+I+install+it&page_url=${page('desktop/preferences')}`)).toBe(`${BASE}products/desktop/install`);
    // On the page itself, and a boost, not a filter: what the question names is still found elsewhere.
    expect(await first(`q=how+do+I+install+it&page_url=${page('desktop/install')}`)).toBe(`${BASE}products/desktop/install`);
    expect(await first(`q=download+invoices&page_url=${page('cli/commands')}`)).toBe(`${BASE}products/billing#invoices`);
  });

  it('answers a question asked from a page with that product’s page, and keeps the page with the question', async () => {
    const s = await searchServer();
    const token = await s.token('acme', ['chat:read', 'chat:write']);
    const ask = async (page: string) => {
      const sent = await fetch(`${s.url}/v0/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'How do I install it?', context: { page_url: `${BASE}products/${page}`, page_title: page } }),
      });
      expect(sent.status).toBe(202);
      const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
      await s.server.worker.runOnce();
      const conversation = (await (await fetch(`${s.url}/v0/chat/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { messages: { sources: { url: string }[] }[] };
      return { id, cited: conversation.messages[1]!.sources[0]?.url };
    };
    const cli = await ask('cli/commands');
    expect(cli.cited).toBe(`${BASE}products/cli/install`);
    expect((await ask('desktop/preferences')).cited).toBe(`${BASE}products/desktop/install`);
    expect(await s.server.sql.get("SELECT page_url, page_title FROM messages WHERE conversation_id = ? AND role = 'user'", [cli.id])).toEqual({ page_url: `${BASE}products/cli/commands`, page_title: 'cli/commands' });
  });

  it('refuses a bad context on POST /v0/chat with 400 naming the field', async () => {
    const s = await searchServer();
    const token = await s.token('acme', ['chat:read', 'chat:write']);
    for (const [context, message] of [
      [{ page_url: 'docs/install' }, '"context.page_url" must be an absolute http(s) URL of at most 2000 characters'],
      [{ page_url: 42 }, '"context.page_url" must be an absolute http(s) URL of at most 2000 characters'],
      [{ page_title: '😀'.repeat(301) }, '"context.page_title" must be at most 300 characters'],
      [{ selection: 'x'.repeat(1001) }, '"context.selection" must be at most 1000 characters'],
      [{ pageUrl: 'https://a.example/' }, 'Unknown field "context.pageUrl"'],
      [[], '"context" must be an object'],
    ] as const) {
      const response = await fetch(`${s.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Hi', context }) });
      expect({ context, status: response.status, body: await response.json() }).toEqual({ context, status: 400, body: { error: { code: 'bad_request', message } } });
    }
    // 300 emoji are 300 characters.
    const fine = await fetch(`${s.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Hi', context: { page_title: '😀'.repeat(300) } }) });
    expect(fine.status).toBe(202);
  });
});
