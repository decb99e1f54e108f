/**
 * @module The request and response the pipeline works on: small plain objects, so the same app
 * serves Node's `http` directly (no WHATWG conversion on the hot path) and any fetch host.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES, readCappedText, type HttpError } from '../../protocol/index.js';

export interface ApiRequest {
  method: string;
  /** Path and query, e.g. `/v0/tickets?limit=5`. */
  url: string;
  header(name: string): string | null;
  remoteAddress: string;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** The body as UTF-8 text; 413 past `limit` bytes. */
  text(limit?: number): Promise<string>;
  /** Set when Node's parser refused the request: the pipeline answers with this error (see client-error.ts). */
  refused?: HttpError;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: string | null;
  /**
   * A body written as it is produced (`text/event-stream`), with `body` null: each chunk is sent
   * as it comes, and the iterator is returned when the client goes away.
   */
  stream?: AsyncIterable<string>;
}

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(data) };
}

/** An ApiRequest over a WHATWG Request. */
export function fromFetch(request: Request, remoteAddress: string): ApiRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    url: url.pathname + url.search,
    header: (name) => request.headers.get(name),
    remoteAddress,
    signal: request.signal,
    text(limit = MAX_BODY_BYTES) {
      return readCappedText(request.body, { limit, declaredLength: request.headers.get('content-length') });
    },
  };
}

export function toFetchResponse(response: ApiResponse): Response {
  if (response.stream) {
    const iterator = response.stream[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }
  return new Response(response.body, { status: response.status, headers: response.headers });
}

/** An ApiRequest over Node's request; its abort signal is made only when someone asks for it. */
export function fromNode(req: IncomingMessage, res: ServerResponse): ApiRequest {
  return new NodeRequest(req, res);
}

/** A class rather than an object of closures: one small allocation per request. */
class NodeRequest implements ApiRequest {
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  // Read at once: Node lets go of the request's socket once a refused body has been drained.
  readonly remoteAddress: string;
  #controller: AbortController | undefined;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.#req = req;
    this.#res = res;
    this.remoteAddress = req.socket.remoteAddress ?? 'unknown';
  }

  get method(): string {
    return this.#req.method ?? 'GET';
  }

  get url(): string {
    return this.#req.url ?? '/';
  }

  header(name: string): string | null {
    const value = this.#req.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const c = new AbortController();
      this.#controller = c;
      const res = this.#res;
      // A request whose body was read whole is destroyed by Node (autoDestroy) while its client waits.
      if (res.destroyed || (this.#req.destroyed && !this.#req.complete)) c.abort();
      else res.once('close', () => !res.writableFinished && c.abort());
    }
    return this.#controller.signal;
  }

  text(limit = MAX_BODY_BYTES): Promise<string> {
    const req = this.#req;
    return readCappedText(req, { limit, declaredLength: req.headers['content-length'], cancel: () => req.resume() });
  }
}

export function writeNode(res: ServerResponse, response: ApiResponse): void {
  if (response.stream) {
    res.writeHead(response.status, response.headers);
    void writeStream(res, response.stream);
    return;
  }
  if (response.body === null) {
    res.writeHead(response.status, response.headers);
    res.end();
    return;
  }
  // A string body lets Node send headers and body in one write. The headers object is the
  // response's own (made for this response), so it is completed in place.
  response.headers['content-length'] = String(Buffer.byteLength(response.body));
  res.writeHead(response.status, response.headers);
  res.end(response.body);
}

/**
 * Writes each chunk as it comes, waiting while the socket's buffer is full; ends the response when
 * the stream ends, and stops the stream when the client goes away.
 */
async function writeStream(res: ServerResponse, stream: AsyncIterable<string>): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  try {
    for (;;) {
      const { done, value } = await iterator.next();
      if (done || res.destroyed) break;
      if (!res.write(value)) await Promise.race([new Promise<void>((resolve) => res.once('drain', resolve)), closed]);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    await iterator.return?.();
  }
}
