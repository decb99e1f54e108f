/**
 * @module For the widget's known-visitor tests: the real server (SQLite in memory, the test answer
 * engine, the webhook integration) behind real proxies, one per test (`POST /__proxy` with the
 * test page's origin and the proxy's identity options), each at its own base path. A proxy's
 * `identify` reads the site's session from the cookie `user_<namespace>` (base64url JSON of the
 * visitor), as an app's own session would; visitor JWTs are signed by the tests with `JWT_SECRET`.
 */
import { createServer, type Server } from 'node:http';
import type { TestProject } from 'vitest/node';
import { createSupportProxy } from '../../src/proxy/index.js';
import { toNodeListener } from '../../src/protocol/node-http.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';

/** The HS256 secret of the proxies' `identity` option (the tests sign with it). */
export const JWT_SECRET = 'the-widget-tests-visitor-token-secret!';

declare module 'vitest' {
  export interface ProvidedContext {
    identityUrl: string;
  }
}

function readCookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

export default async function setup(project: TestProject) {
  const receiver = await webhookReceiver();
  const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec_widget_identity' };
  const api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, env });
  const token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  const proxies = new Map<string, (request: Request) => Promise<Response>>();
  let namespaces = 0;

  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/__proxy') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { origin, identityMode } = JSON.parse(body) as { origin: string; identityMode?: 'optional' | 'required' };
        const ns = `ns${++namespaces}`;
        const proxy = createSupportProxy({
          apiBaseUrl: api.url,
          token,
          secret: 'the-widget-tests-proxy-cookie-secret!!',
          basePath: `/${ns}`,
          allowedOrigins: [origin],
          identityMode,
          identify: (request) => {
            const session = readCookie(request, `user_${ns}`);
            return session ? (JSON.parse(Buffer.from(session, 'base64url').toString()) as { id: string; name?: string; email?: string }) : null;
          },
          identity: { secret: JWT_SECRET },
          visitorLimits: { messages: 10_000, polls: 10_000, escalations: 1_000 },
        });
        proxies.set(ns, proxy);
        res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
        res.end(JSON.stringify({ ns }));
      });
      return;
    }
    if (req.method === 'GET' && req.url === '/__tickets') {
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify(receiver.deliveries.map((d) => JSON.parse(d.body) as unknown)));
      return;
    }
    if (req.method === 'OPTIONS' && req.url === '/__proxy') {
      res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type', 'access-control-allow-methods': 'POST' });
      res.end();
      return;
    }
    const proxy = proxies.get(req.url?.split('/')[1] ?? '');
    if (proxy) return toNodeListener(proxy)(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  // `localhost`, as the test page is: the proxy is then same-site, and the page's cookies reach it.
  project.provide('identityUrl', `http://localhost:${typeof address === 'object' && address ? address.port : 0}`);
  return async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await api.close();
    await receiver.close();
  };
}
