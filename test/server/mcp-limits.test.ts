/**
 * `/v0/mcp` counts every message as its HTTP twin, through the real HTTP server on SQLite and (in
 * the node-postgres project) PostgreSQL: a JSON-RPC batch counts each message, `search_docs`
 * spends the search bucket, `ask` the send bucket and needs `chat:write`, and a call over a limit
 * is answered with a JSON-RPC error naming the limit while the rest of its batch is answered.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../../src/server/answers/index.js';
import { silentLogger } from '../../src/server/log.js';
import { startServer, type ServerOptions } from '../../src/server/index.js';
import type { Scope } from '../../src/protocol/index.js';
import { freshDatabaseUrl } from '../helpers/database.js';

const PRODUCTS = resolve(import.meta.dirname, '../fixtures/products');

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
});

async function server(options: Partial<ServerOptions> = {}) {
  const started = await startServer({ port: 0, dataDir: ':memory:', databaseUrl: freshDatabaseUrl(), logger: silentLogger, ...options });
  closing.push(() => started.close());
  await (started.server.engine as unknown as KnowledgeBase).ingest('acme', [PRODUCTS], { baseUrl: 'https://docs.acme.example/' });
  const token = async (scopes: Scope[]) => (await started.server.tokens.create({ orgId: 'acme', name: 'mcp', scopes })).token;
  const post = async (token: string, body: unknown) => {
    const response = await fetch(`${started.url}/v0/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: response.status === 202 ? null : ((await response.json()) as JsonRpcAnswer | JsonRpcAnswer[]) };
  };
  const conversations = async () => (await started.server.sql.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM conversations'))!.n;
  return { ...started, token, post, conversations };
}

interface JsonRpcAnswer {
  id: number | null;
  result?: { tools?: { name: string }[]; isError?: boolean; structuredContent?: { results?: unknown[] } };
  error?: { code: number; message: string; data?: { limit: string; retry_after: number } };
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
const byId = (answers: JsonRpcAnswer[]) => new Map(answers.map((a) => [a.id, a]));

describe('/v0/mcp limits', () => {
  it('a batch of 100 ask makes only as many conversations as the send limit allows; the rest are refused by name and the batch is answered', async () => {
    const s = await server({ rateLimits: { perToken: 1000, perOrganization: 1000, endpoints: { send: 5 } } });
    const token = await s.token(['chat:read', 'chat:write']);
    // The send bucket is the one POST /v0/chat spends: one of the five goes here.
    const chat = await fetch(`${s.url}/v0/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(chat.status).toBe(202);
    const batch = [...Array.from({ length: 100 }, (_, i) => call(i + 1, 'ask', { question: `How do I install the CLI? (${i})` })), list(101)];
    const { status, headers, body } = await s.post(token, batch);
    expect(status).toBe(200);
    const answers = byId(body as JsonRpcAnswer[]);
    expect(answers.size).toBe(101);
    const refused = [...answers.values()].filter((a) => a.error);
    expect(refused).toHaveLength(96);
    for (const a of refused) {
      expect(a.error!.code).toBe(-32029);
      expect(a.error!.message).toMatch(/per-organization send limit of 5 a minute is used up; retry after \d+ seconds/);
      expect(a.error!.data).toMatchObject({ limit: 'per-organization send limit' });
      expect(a.error!.data!.retry_after).toBeGreaterThan(0);
    }
    expect([...answers.values()].filter((a) => a.result && a.id! <= 100)).toHaveLength(4);
    expect(answers.get(101)!.result!.tools!.map((t) => t.name)).toContain('ask');
    expect(Number(await s.conversations())).toBe(5);
    expect(headers.get('retry-after')).not.toBeNull();
  }, 60_000);

  it('counts each message of a batch against the token: a batch of 10 with a limit of 4 answers 4', async () => {
    const s = await server({ rateLimits: { perToken: 4 } });
    const token = await s.token(['chat:read']);
    const { body } = await s.post(token, Array.from({ length: 10 }, (_, i) => list(i + 1)));
    const answers = body as JsonRpcAnswer[];
    expect(answers.filter((a) => a.result)).toHaveLength(4);
    const refused = answers.filter((a) => a.error);
    expect(refused).toHaveLength(6);
    expect(refused[0]!.error!.message).toContain('per-token limit of 4 a minute');
    const me = await fetch(`${s.url}/v0/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(429);
  });

  it('search_docs spends the search bucket, as GET /v0/search does, and not the token limit', async () => {
    const s = await server({ rateLimits: { perToken: 2, endpoints: { search: 3 } } });
    const token = await s.token(['chat:read']);
    const { body } = await s.post(token, Array.from({ length: 5 }, (_, i) => call(i + 1, 'search_docs', { query: 'invoices' })));
    const answers = body as JsonRpcAnswer[];
    expect(answers.filter((a) => a.result?.structuredContent?.results)).toHaveLength(3);
    expect(answers.filter((a) => a.error).map((a) => a.error!.data!.limit)).toEqual(['per-organization search limit', 'per-organization search limit']);
    const search = await fetch(`${s.url}/v0/search?q=invoices`, { headers: { authorization: `Bearer ${token}` } });
    expect(search.status).toBe(429);
    // The token's own limit (2) was not spent by the searches.
    const single = await s.post(token, list(1));
    expect((single.body as JsonRpcAnswer).result).toBeDefined();
  });

  it('a chat:read token is not shown ask and cannot call it, and the refused call spends no send bucket', async () => {
    const s = await server({ rateLimits: { endpoints: { send: 1 } } });
    const reader = await s.token(['chat:read']);
    const { body } = await s.post(reader, [list(1), call(2, 'ask', { question: 'How do I install the CLI?' }), call(3, 'ask', { question: 'Again?' })]);
    const answers = byId(body as JsonRpcAnswer[]);
    expect(answers.get(1)!.result!.tools!.map((t) => t.name).sort()).toEqual(['read_page', 'search_docs']);
    for (const id of [2, 3]) expect(answers.get(id)!.error).toMatchObject({ code: -32003, message: 'ask needs a token with scope chat:write' });
    expect(Number(await s.conversations())).toBe(0);
    const writer = await s.token(['chat:read', 'chat:write']);
    const listed = await s.post(writer, list(1));
    expect((listed.body as JsonRpcAnswer).result!.tools!.map((t) => t.name).sort()).toEqual(['ask', 'read_page', 'search_docs']);
    const asked = await s.post(writer, call(7, 'ask', { question: 'How do I install the CLI?' }));
    expect((asked.body as JsonRpcAnswer).result?.isError).toBeFalsy();
    expect(Number(await s.conversations())).toBe(1);
  }, 30_000);

  it('a single call over a limit is answered with its JSON-RPC error and Retry-After', async () => {
    const s = await server({ rateLimits: { perToken: 1 } });
    const token = await s.token(['chat:read']);
    expect((await s.post(token, list(1))).body).toHaveProperty('result');
    const over = await s.post(token, list(2));
    expect(over.status).toBe(200);
    expect(over.body).toMatchObject({ id: 2, error: { code: -32029 } });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
