/** @module One polite HTTP request of a crawl: the product's user agent, a timeout, a size cap, and retries with backoff on 429 and 5xx. */
import { parseRetryAfter, withRetries } from '../../../protocol/retry.js';

/** The user agent of every crawl request: robots.txt rules for `support-chat` apply to it. */
export const USER_AGENT = 'support-chat-crawler/1.0 (+https://www.npmjs.com/package/support-chat)';
/** The token robots.txt groups are matched against. */
export const ROBOTS_AGENT = 'support-chat';

export interface FetchOptions {
  /** Per request, the body included. @default 15000 */
  timeoutMs?: number;
  /** Bodies larger than this are not read (the page is skipped). @default 5 MiB */
  maxBytes?: number;
  /** Attempts after the first on 429, 5xx, timeouts and network errors. @default 2 */
  retries?: number;
  /** First backoff delay (doubled per attempt); `Retry-After` replaces it. @default 1000 */
  baseDelayMs?: number;
  /** Longest wait before a retry, `Retry-After` included. @default 30000 */
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** `manual`: a redirect is answered as it is (see `Fetched.location`), for the crawler to follow once. @default 'follow' */
  redirect?: 'follow' | 'manual';
  /** Stand-in for the global `fetch` (tests count requests with it). */
  fetch?: typeof fetch;
}

export interface Fetched {
  status: number;
  /** The address answered from, after redirects. */
  url: string;
  contentType: string;
  body: Buffer;
  etag: string | null;
  lastModified: string | null;
  /** A redirect's `Location`, as written (with `redirect: 'manual'`). */
  location: string | null;
  /** Requests made, retries included. */
  requests: number;
}

/** A request that did not get an answer: unreachable, timed out, or a body over the size cap. */
export class FetchError extends Error {
  override name = 'FetchError';
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchError(`larger than ${Math.round(maxBytes / 1024)} KiB`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new FetchError(`larger than ${Math.round(maxBytes / 1024)} KiB`);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

/**
 * GETs a URL as the crawler: redirects followed, `If-None-Match`/`If-Modified-Since` sent when
 * known (a 304 has an empty body), 429 and 5xx retried after `Retry-After` or a backoff. Throws
 * `FetchError` when no answer came.
 */
export async function fetchPage(url: string, options: FetchOptions & { etag?: string | null; lastModified?: string | null } = {}): Promise<Fetched> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5' };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  let requests = 0;
  return withRetries<Fetched>(
    async () => {
      requests++;
      const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let response: Response;
      let body: Buffer;
      try {
        response = await doFetch(url, { headers, redirect: options.redirect ?? 'follow', signal });
        const retryable = response.status === 429 || response.status >= 500;
        if (retryable) {
          await response.body?.cancel();
          const error = new FetchError(`HTTP ${response.status}`);
          return { retry: true, error, retryAfter: parseRetryAfter(response.headers.get('retry-after')), value: { status: response.status, url: response.url || url, contentType: '', body: Buffer.alloc(0), etag: null, lastModified: null, location: null, requests } };
        }
        body = await readCapped(response, maxBytes);
      } catch (error) {
        // A body over the cap, or the caller stopping the crawl, is final.
        if (options.signal?.aborted || error instanceof FetchError) throw error;
        const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${timeoutMs / 1000} s` : error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
        return { retry: true, error: new FetchError(reason) };
      }
      return {
        retry: false,
        value: { status: response.status, url: response.url || url, contentType: response.headers.get('content-type') ?? '', body, etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified'), location: response.headers.get('location'), requests },
      };
    },
    { retries: options.retries ?? 2, baseDelayMs: options.baseDelayMs ?? 1_000, maxDelayMs: options.maxDelayMs ?? 30_000, signal: options.signal },
  ).then((fetched) => ({ ...fetched, requests }));
}
