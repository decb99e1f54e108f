/** @module A local HTTP endpoint that records webhook deliveries (no vitest hooks: global setups use it too). */
import { createServer as createHttpServer, type Server } from 'node:http';

export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Receiver {
  url: string;
  /** Deliveries answered 200. */
  deliveries: Delivery[];
  /** Deliveries answered with one of `failNext`'s codes. */
  refused: Delivery[];
  /** Status codes to answer with next, in order (then 200). */
  failNext: number[];
  /** Milliseconds to wait before answering. */
  delayMs: number;
  close(): Promise<void>;
}

/** A local HTTP endpoint that records webhook deliveries. */
export async function webhookReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', deliveries: [], refused: [], failNext: [], delayMs: 0, close: async () => undefined };
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      setTimeout(() => {
        const status = receiver.failNext.shift() ?? 200;
        (status === 200 ? receiver.deliveries : receiver.refused).push({ headers: req.headers, body });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(status === 200 ? { url: `https://helpdesk.example.com/tickets/${JSON.parse(body).id}` } : { error: 'nope' }));
      }, receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks/tickets`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}
