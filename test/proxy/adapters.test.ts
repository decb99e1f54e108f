import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createSupportProxy, expressMiddleware, nodeListener } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
let api: Awaited<ReturnType<typeof startServer>>;
let proxy: (request: Request, info?: { remoteAddress?: string }) => Promise<Response>;
let token: string;
const servers: { close(cb?: () => void): unknown }[] = [];

beforeAll(async () => {
  // The real v0 server behind the proxy, over real HTTP.
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  proxy = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET });
});
afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  await api.close();
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** Asks a question and polls until the answer is there, like the widget does. */
async function converse(base: string) {
  const sent = await fetch(`${base}/api/support/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'How do I install?' }) });
  expect(sent.status).toBe(202);
  const cookie = sent.headers.get('set-cookie')!.split(';')[0]!;
  const { conversation_id } = (await sent.json()) as { conversation_id: string };
  const polled = await fetch(`${base}/api/support/chat/${conversation_id}`, { headers: { cookie, prefer: 'wait=5' } });
  expect(polled.status).toBe(200);
  expect(polled.headers.get('preference-applied')).toBe('wait=5');
  const conversation = (await polled.json()) as { status: string; messages: { role: string }[] };
  expect(conversation.status).toBe('completed');
  expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  const stranger = await fetch(`${base}/api/support/chat/${conversation_id}`);
  expect(stranger.status).toBe(404);
  expect((await fetch(`${base}/api/support/anything`)).status).toBe(404);
}

describe('mounting the proxy', () => {
  it("works in Node's http server", async () => {
    await converse(await listen(createServer(nodeListener(proxy))));
  });

  it('works in Express', async () => {
    const app = express();
    app.all('/api/support/*path', expressMiddleware(proxy));
    await converse(await listen(createServer(app)));
  });

  it('works in Hono', async () => {
    const app = new Hono();
    app.all('/api/support/*', (c) => proxy(c.req.raw));
    let server: Server | undefined;
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as unknown as Server;
    });
    servers.push(server!);
    await converse(`http://127.0.0.1:${port}`);
  });

  it('works as a Next.js route handler (app/api/support/[...path]/route.ts)', async () => {
    // Next.js calls the exported functions with a Request and sends back the Response they return.
    const route = { GET: proxy, POST: proxy, OPTIONS: proxy };
    const server = createServer(
      nodeListener((request) => {
        const handler = route[request.method as keyof typeof route];
        return handler ? handler(request) : Promise.resolve(new Response(null, { status: 405 }));
      }),
    );
    await converse(await listen(server));
  });
});

/** Sends messages from one address, each with a fresh visitor (no cookie), until refused. */
async function sendsAllowed(base: string, headers: Record<string, string> = {}): Promise<number> {
  for (let i = 0; i < 10; i++) {
    const sent = await fetch(`${base}/api/support/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ message: `Question ${i}` }) });
    if (sent.status === 429) return i;
    expect(sent.status).toBe(202);
  }
  return 10;
}

describe('per-address limits behind every mount', () => {
  const limited = () => createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, trustProxy: true, visitorLimits: { perAddress: 3, newVisitorsPerAddress: 100 } });

  it('Hono passes the connection’s address, so one address with many cookies is limited', async () => {
    const handler = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, visitorLimits: { perAddress: 3, newVisitorsPerAddress: 100 } });
    const app = new Hono();
    app.all('/api/support/*', (c) => handler(c.req.raw, { remoteAddress: getConnInfo(c).remote.address }));
    let server: Server | undefined;
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as unknown as Server;
    });
    servers.push(server!);
    expect(await sendsAllowed(`http://127.0.0.1:${port}`)).toBe(3);
  });

  it('a Next.js route handler (behind its server, which appends X-Forwarded-For) is limited per address with trustProxy', async () => {
    const handler = limited();
    const route = { GET: handler, POST: handler, OPTIONS: handler };
    // Like Next.js's server: the socket's address is appended to whatever X-Forwarded-For the client sent.
    const server = createServer(
      nodeListener((request, info) => {
        const headers = new Headers(request.headers);
        const sent = headers.get('x-forwarded-for');
        headers.set('x-forwarded-for', sent ? `${sent}, ${info?.remoteAddress}` : String(info?.remoteAddress));
        const forwarded = new Request(request, { headers });
        const fn = route[request.method as keyof typeof route];
        return fn ? fn(forwarded) : Promise.resolve(new Response(null, { status: 405 }));
      }),
    );
    const base = await listen(server);
    // Forged leftmost entries do not buy a new budget.
    expect(await sendsAllowed(base, { 'x-forwarded-for': '10.1.2.3' })).toBe(3);
    expect(await sendsAllowed(base, { 'x-forwarded-for': '10.9.9.9' })).toBe(0);
  });
});
