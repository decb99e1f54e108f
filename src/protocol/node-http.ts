/**
 * @module Serving a fetch handler `(Request) => Promise<Response>` from Node's `http` server.
 * Used by the server and the proxy; Node only (the widget never imports it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { errorBody, MESSAGES } from './errors.js';

/** What a handler learns about the connection besides the Request. */
export interface ConnectionInfo {
  remoteAddress: string;
}

export type FetchHandler = (request: Request, info: ConnectionInfo) => Promise<Response>;

/** Builds a WHATWG Request from a Node request; its signal aborts when the client goes away. */
export function toRequest(req: IncomingMessage, res: ServerResponse): Request {
  const host = req.headers.host ?? 'localhost';
  const protocol = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const url = new URL(req.url ?? '/', `${protocol}://${host}`);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    const value = req.rawHeaders[i + 1];
    if (name === undefined || value === undefined) continue;
    try {
      headers.append(name, value);
    } catch {
      // A header Node accepted but the Fetch API rejects is dropped rather than failing the request.
    }
  }
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal: controller.signal,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
    // @ts-expect-error Node's fetch needs `duplex` for streamed bodies; the DOM types do not know it.
    duplex: hasBody ? 'half' : undefined,
  });
}

/** Writes a WHATWG Response to a Node response, streaming its body. */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (!response.body) {
    res.writeHead(response.status, response.statusText, headers);
    res.end();
    return;
  }
  // Bodies of known length are sent in one write; streams (long responses) chunk by chunk.
  if (response.headers.get('content-type')?.includes('json') || response.headers.has('content-length')) {
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.length);
    res.writeHead(response.status, response.statusText, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, response.statusText, headers);
  const reader = response.body.getReader();
  // A client that goes away (a dropped slow link included) ends the body: its reader is cancelled,
  // so whatever the body holds (an upstream request, a stream slot) is let go at once.
  const cancel = () => void reader.cancel(new Error('client closed the connection')).catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value) && !(await drained(res))) return;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
}

/** Waits until `res` can take more: true on `'drain'`, false when it closed first (a client that stopped reading and left). */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed || res.closed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (value: boolean) => () => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(value);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * Adapts a fetch handler to Node's `(req, res)` listener.
 *
 * @example
 * http.createServer(toNodeListener(handler)).listen(8787);
 */
export function toNodeListener(handler: FetchHandler) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    let request: Request;
    try {
      request = toRequest(req, res);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody('bad_request', 'Malformed request')));
      return;
    }
    const remoteAddress = req.socket.remoteAddress ?? 'unknown';
    handler(request, { remoteAddress })
      .then((response) => writeResponse(res, response))
      .catch(() => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify(errorBody('internal_error', MESSAGES.internal)));
        } else res.destroy();
      });
  };
}
