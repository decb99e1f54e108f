/**
 * @module A round-robin HTTP load balancer for tests: each request goes to the next upstream in
 * turn, as a deployment's balancer spreads requests over API processes. Requests and responses
 * are streamed through unchanged (long polls included); an upstream that refuses the connection
 * answers 502.
 */
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';

export interface Balancer {
  url: string;
  /** The upstreams' base URLs (`http://host:port`), in turn order. */
  upstreams: string[];
  /** How many requests each upstream was sent, by its index. */
  sent: number[];
  close(): Promise<void>;
}

export async function startBalancer(upstreams: string[]): Promise<Balancer> {
  const targets = upstreams.map((u) => new URL(u));
  // Kept-alive connections to the upstreams, as a real balancer keeps them.
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const balancer: Balancer = { url: '', upstreams, sent: targets.map(() => 0), close: async () => undefined };
  let next = 0;
  const server: Server = createServer((req, res) => {
    const index = next;
    next = (next + 1) % targets.length;
    balancer.sent[index]!++;
    const target = targets[index]!;
    const forwarded = req.socket.remoteAddress ?? '';
    const upstream = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${forwarded}` : forwarded },
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'bad_gateway', message: `upstream ${target.host} failed`, retryable: true } }));
    });
    // A client that goes away takes its upstream request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  balancer.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  balancer.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        agent.destroy();
        resolve();
      });
    });
  return balancer;
}
