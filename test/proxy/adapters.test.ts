import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { createSupportProxy, expressMiddleware, nodeListener } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';
import { createTestEngine } from '../helpers/test-engine.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
let api: Awaited<ReturnType<typeof startServer>>;
let proxy: (request: Request) => Promise<Response>;
const servers: { close(cb?: () => void): unknown }[] = [];

beforeAll(async () => {
  // The real v0 server behind the proxy, over real HTTP.
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger });
  const { token } = api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] });
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
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as unknown as Server;
    servers.push(server);
    await new Promise((r) => setTimeout(r, 50));
    const address = server.address();
    await converse(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
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
