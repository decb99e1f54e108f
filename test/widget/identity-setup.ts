/**
 * @module For the widget's known-visitor tests: the real server (SQLite in memory, the test answer
 * engine, the webhook integration) behind real proxies, one per test (`POST /__proxy` with the
 * test page's origin and the proxy's identity options), each at its own base path. A proxy's
 * `identify` reads the site's session from the cookie `user_<namespace>` (base64url JSON of the
 * visitor), as an app's own session would; visitor JWTs are signed by the tests with `JWT_SECRET`.
 *
 * A proxy made with `lose` loses its first 202 to `POST /chat` on the way back to the browser,
 * after the server accepted the message: the connection closes (`close`), or a gateway answers 504
 * (`504`). `GET /__accepted/<ns>` lists the conversation of every 202 the proxy gave, lost or not.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { TestProject } from 'vitest/node';
import { createSupportProxy } from '../../src/proxy/index.js';
import { toNodeListener, toRequest, writeResponse } from '../../src/protocol/node-http.js';
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
  /** Per namespace: how its first 202 is lost (if it is), whether it was, and the conversations of its 202s. */
  const lossy = new Map<string, { lose: 'close' | '504'; lost: boolean; accepted: string[] }>();
  let namespaces = 0;

  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/__proxy') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { origin, identityMode, lose } = JSON.parse(body) as { origin: string; identityMode?: 'optional' | 'required'; lose?: 'close' | '504' };
        const ns = `ns${++namespaces}`;
        if (lose) lossy.set(ns, { lose, lost: false, accepted: [] });
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
    if (req.method === 'GET' && req.url?.startsWith('/__accepted/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify(lossy.get(req.url.slice('/__accepted/'.length))?.accepted ?? []));
      return;
    }
    const ns = req.url?.split('/')[1] ?? '';
    const proxy = proxies.get(ns);
    const losing = lossy.get(ns);
    if (proxy && losing && req.method === 'POST' && req.url === `/${ns}/chat`) return void sendLosing(proxy, losing, req, res);
    if (proxy) return toNodeListener(proxy)(req, res);
    res.writeHead(404).end();
  });
  /** A message through a lossy proxy: its first 202 never reaches the browser. */
  async function sendLosing(proxy: (request: Request) => Promise<Response>, losing: { lose: 'close' | '504'; lost: boolean; accepted: string[] }, req: IncomingMessage, res: ServerResponse) {
    const response = await proxy(toRequest(req, res));
    if (response.status === 202) losing.accepted.push((JSON.parse(await response.clone().text()) as { conversation_id: string }).conversation_id);
    if (response.status !== 202 || losing.lost) return writeResponse(res, response);
    losing.lost = true;
    if (losing.lose === 'close') return void req.socket.destroy();
    const cors = [...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary');
    const gateway = { error: { code: 'internal_error', message: 'The gateway timed out', retryable: true } };
    return writeResponse(res, new Response(JSON.stringify(gateway), { status: 504, headers: [['content-type', 'application/json'], ...cors] }));
  }

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
