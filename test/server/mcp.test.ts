/**
 * `/v0/mcp` through the real HTTP server, driven by the SDK's own `Client` over Streamable HTTP, on
 * SQLite and (in the node-postgres project) on PostgreSQL: each tool, tokens and scopes, another
 * organization's docs, bad arguments, the Origin check, and a client that goes away mid-call.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer, type ServerOptions } from '../../src/server/index.js';
import type { Scope } from '../../src/protocol/index.js';
import { freshDatabaseUrl } from '../helpers/database.js';

const PRODUCTS = resolve(import.meta.dirname, '../fixtures/products');
const BASE = 'https://docs.acme.example/';
const OTHER = resolve(import.meta.dirname, '../fixtures/kb-two-pages');
const OTHER_BASE = 'https://docs.globex.example/';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
});

/**
 * A server over HTTP with its worker running, the products fixture ingested for `acme` and other
 * docs for `globex`; `gate`, while set, holds every answer until it resolves.
 */
async function mcpServer(options: Partial<ServerOptions> = {}) {
  const held: { gate: Promise<void> | null } = { gate: null };
  const started = await startServer({
    port: 0,
    dataDir: ':memory:',
    databaseUrl: freshDatabaseUrl(),
    engine: (sql) => {
      const real = createAnswerEngine({ sql, llm: null, embedder: null });
      const answer: AnswerEngine['answer'] = async (request) => {
        if (held.gate) await held.gate;
        return real.answer(request);
      };
      return { ...real, answer };
    },
    logger: silentLogger,
    ...options,
  });
  closing.push(() => started.close());
  const knowledge = started.server.engine as unknown as KnowledgeBase;
  await knowledge.ingest('acme', [PRODUCTS], { baseUrl: BASE });
  await knowledge.ingest('globex', [OTHER], { baseUrl: OTHER_BASE });
  const token = async (orgId = 'acme', scopes: Scope[] = ['chat:read']) => (await started.server.tokens.create({ orgId, name: 'mcp', scopes })).token;
  /** A connected SDK client with the token's header. */
  async function client(bearer: string, headers: Record<string, string> = {}) {
    const transport = new StreamableHTTPClientTransport(new URL(`${started.url}/v0/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}`, ...headers } } });
    const c = new Client({ name: 'mcp-test', version: '1.0.0' });
    await c.connect(transport);
    closing.push(() => c.close());
    return c;
  }
  /** One JSON-RPC message POSTed as an MCP client sends it. */
  function post(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
    return fetch(`${started.url}/v0/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal,
    });
  }
  return { ...started, held, token, client, post };
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('/v0/mcp', () => {
  it('lists search_docs, read_page and ask, read-only, with their schemas', async () => {
    const s = await mcpServer({ startWorker: false });
    const c = await s.client(await s.token('acme', ['chat:read', 'chat:write']));
    expect(c.getServerVersion()?.name).toBe('support-chat-kit');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask', 'read_page', 'search_docs']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
    const search = tools.find((t) => t.name === 'search_docs')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect(search.outputSchema?.properties).toHaveProperty('results');
    expect(tools.find((t) => t.name === 'ask')!.outputSchema?.required).toEqual(expect.arrayContaining(['answer', 'sources', 'uncertain']));
  });

  it('search_docs answers what GET /v0/search answers, as text and structured content', async () => {
    const s = await mcpServer({ startWorker: false });
    const token = await s.token();
    const c = await s.client(token);
    const result = await c.callTool({ name: 'search_docs', arguments: { query: 'download invoices', limit: 5 } });
    const http = await (await fetch(`${s.url}/v0/search?q=download+invoices&limit=5`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(http);
    const first = http.results[0];
    expect(first).toMatchObject({ url: `${BASE}products/billing#invoices`, title: 'Billing', section: 'Invoices' });
    expect(textOf(result)).toContain(`1. Billing › Invoices\n   ${first.url}\n   ${first.excerpt}`);
  });

  it('read_page answers the indexed page as Markdown with its headings; a URL not in the docs is a tool error', async () => {
    const s = await mcpServer({ startWorker: false });
    const c = await s.client(await s.token());
    const page = await c.callTool({ name: 'read_page', arguments: { url: `${BASE}products/cli/install#updating` } });
    expect(page.isError).toBeFalsy();
    expect(textOf(page)).toBe(
      `# Installing the CLI\n\nSource: ${BASE}products/cli/install\n\nInstall it with npm: run \`npm install --global acme-cli\`, then check the version with \`acme --version\`.\n\n## Updating\n\nRun \`npm update --global acme-cli\` to get the latest release.`,
    );
    const missing = await c.callTool({ name: 'read_page', arguments: { url: `${BASE}products/nowhere` } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe(`No page at ${BASE}products/nowhere in the documentation: use a URL that search_docs returned.`);
  });

  it('ask answers with its sources, counted in insights as asked through MCP', async () => {
    const s = await mcpServer();
    const c = await s.client(await s.token('acme', ['chat:read', 'chat:write']));
    const result = await c.callTool({ name: 'ask', arguments: { question: 'How do I install the CLI?' } });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { answer: string; sources: { url: string }[]; uncertain: boolean; conversation_id: string };
    expect(answer.uncertain).toBe(false);
    expect(answer.answer).toContain('npm install --global acme-cli');
    expect(answer.sources.map((x) => x.url)).toContain(`${BASE}products/cli/install`);
    expect(textOf(result)).toContain(`Sources:\n- [`);
    const insights = await (await fetch(`${s.url}/v0/insights`, { headers: { authorization: `Bearer ${await s.token('acme', ['insights:read'])}` } })).json();
    expect(insights.totals).toMatchObject({ questions: 1, mcp: 1, answered: 1 });
    // A question sent through the chat API is not counted as MCP's.
    await fetch(`${s.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${await s.token('acme', ['chat:write'])}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'How do I update the CLI?' }) });
    const after = await (await fetch(`${s.url}/v0/insights`, { headers: { authorization: `Bearer ${await s.token('acme', ['insights:read'])}` } })).json();
    expect(after.totals).toMatchObject({ questions: 2, mcp: 1 });
  });

  it('answers 401 with a Bearer challenge without a valid token, and 403 without chat:read', async () => {
    const s = await mcpServer({ startWorker: false });
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    for (const headers of [{}, { authorization: 'Bearer sc_not_a_token' }, { authorization: 'Basic dXNlcjpwYXNz' }] as Record<string, string>[]) {
      const response = await s.post(initialize, headers);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: 'Invalid or expired API token' } });
    }
    const writer = await s.token('acme', ['chat:write']);
    const response = await s.post(initialize, { authorization: `Bearer ${writer}` });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: 'forbidden', message: 'Insufficient permissions' } });
    await expect(s.client(writer)).rejects.toThrow(/Insufficient permissions/);
  });

  it('shows a token its own organization’s docs only', async () => {
    const s = await mcpServer({ startWorker: false });
    const globex = await s.client(await s.token('globex'));
    const search = await globex.callTool({ name: 'search_docs', arguments: { query: 'download invoices billing acme-cli', limit: 20 } });
    const urls = (search.structuredContent as { results: { url: string }[] }).results.map((r) => r.url);
    expect(urls.every((u) => u.startsWith(OTHER_BASE))).toBe(true);
    const page = await globex.callTool({ name: 'read_page', arguments: { url: `${BASE}products/billing` } });
    expect(page.isError).toBe(true);
  });

  it('answers bad arguments with a tool error naming the field, never a failure of the server', async () => {
    const s = await mcpServer({ startWorker: false });
    const c = await s.client(await s.token('acme', ['chat:read', 'chat:write']));
    const cases: [string, Record<string, unknown>, string][] = [
      ['search_docs', {}, '"query" is required'],
      ['search_docs', { query: '   ' }, '"query" must not be empty'],
      ['search_docs', { query: 'x'.repeat(501) }, '"query" must be at most 500 characters'],
      ['search_docs', { query: 42 }, '"query" must be a string'],
      ['search_docs', { query: 'x', limit: 0 }, '"limit" must be an integer from 1 to 20'],
      ['search_docs', { query: 'x', limit: 21 }, '"limit" must be an integer from 1 to 20'],
      ['search_docs', { query: 'x', limit: '5' }, '"limit" must be an integer from 1 to 20'],
      ['read_page', { url: '' }, '"url" must not be empty'],
      ['read_page', { url: `https://a.example/${'p'.repeat(2000)}` }, '"url" must be at most 2000 characters'],
      ['ask', { question: '' }, '"question" must not be empty'],
      ['ask', { question: 'x'.repeat(16_001) }, '"question" must be at most 16000 characters'],
      ['ask', { question: ['a list'] }, '"question" must be a string'],
      ['nope', {}, 'Tool nope not found'],
    ];
    for (const [name, args, message] of cases) {
      const result = await c.callTool({ name, arguments: args });
      expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 40)}`).toBe(true);
      expect(textOf(result), `${name} ${JSON.stringify(args).slice(0, 40)}`).toContain(message);
    }
    // Not JSON, and not JSON-RPC: the transport's own errors, 4xx.
    const token = await s.token();
    const garbled = await s.post('{"jsonrpc":', { authorization: `Bearer ${token}` });
    expect(garbled.status).toBe(400);
    expect((await garbled.json()).error.code).toBe(-32700);
    // Over the body cap of every route.
    const huge = await s.post({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(300_000) } }, { authorization: `Bearer ${token}` });
    expect(huge.status).toBe(413);
    expect((await c.ping())).toEqual({});
  });

  it('counts its requests against the token as reads are: past the limit, the JSON-RPC error names it, with Retry-After', async () => {
    const s = await mcpServer({ startWorker: false, rateLimits: { perToken: 3 } });
    const token = await s.token();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    for (let i = 0; i < 3; i++) expect((await s.post(ping, { authorization: `Bearer ${token}` })).status).toBe(200);
    const limited = await s.post(ping, { authorization: `Bearer ${token}` });
    expect(limited.status).toBe(200);
    expect((await limited.json()).error).toMatchObject({ code: -32029, data: { limit: 'per-token limit', limit_per_minute: 3 } });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    // Another token of the organization has its own count.
    expect((await (await s.post(ping, { authorization: `Bearer ${await s.token()}` })).json()).result).toEqual({});
  });

  it('refuses a foreign Origin with 403, and accepts loopback and listed origins', async () => {
    const s = await mcpServer({ startWorker: false, mcpOrigins: ['https://agent.acme.example'] });
    const token = await s.token();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const foreign = await s.post(ping, { authorization: `Bearer ${token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error).toEqual({ code: 'forbidden', message: 'Origin "https://evil.example" may not call /v0/mcp' });
    expect((await s.post(ping, { authorization: `Bearer ${token}`, origin: 'null' })).status).toBe(403);
    expect((await s.post(ping, { authorization: `Bearer ${token}`, origin: new URL(s.url).origin })).status).toBe(200);
    expect((await s.post(ping, { authorization: `Bearer ${token}`, origin: 'https://agent.acme.example' })).status).toBe(200);
    // A page whose name was rebound to this server's address names itself in Host and Origin alike.
    const { request } = await import('node:http');
    const status = await new Promise<number>((done, fail) => {
      const body = JSON.stringify(ping);
      const req = request(`${s.url}/v0/mcp`, { method: 'POST', headers: { host: 'evil.example', origin: 'http://evil.example', authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        done(res.statusCode!);
      });
      req.once('error', fail);
      req.end(body);
    });
    expect(status).toBe(403);
  });

  it('stays healthy when a client goes away mid-call: the next call is answered', async () => {
    const s = await mcpServer();
    const token = await s.token('acme', ['chat:read', 'chat:write']);
    let open!: () => void;
    s.held.gate = new Promise<void>((resolveGate) => (open = resolveGate));
    const controller = new AbortController();
    const call = s.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: { question: 'How do I install the CLI?' } } }, { authorization: `Bearer ${token}` }, controller.signal);
    await expect.poll(() => s.server.lifecycle.waiting).toBe(1);
    controller.abort();
    await expect(call).rejects.toThrow();
    // The call stopped waiting for its answer as its client left, while the answer is still held.
    await expect.poll(() => s.server.lifecycle.waiting).toBe(0);
    s.held.gate = null;
    open();
    const c = await s.client(token);
    const search = await c.callTool({ name: 'search_docs', arguments: { query: 'install' } });
    expect(search.isError).toBeFalsy();
    const asked = await c.callTool({ name: 'ask', arguments: { question: 'How do I update the CLI?' } });
    expect(asked.isError).toBeFalsy();
    expect((asked.structuredContent as { answer: string }).answer).toContain('npm update --global acme-cli');
  });
});
