/**
 * @module One polite HTTP request of a crawl: the product's user agent, a timeout, a size cap,
 * retries with backoff on 429 and 5xx, each attempt drawn from the crawl's request budget; and
 * redirects followed a few hops at most, within the site.
 */
import { parseRetryAfter, withRetries } from '../../../protocol/retry.js';
import { RefusedAddressError } from '../../local-targets.js';

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
  /** The transport: the crawler's `siteFetch` (see http.ts), or a stand-in. @default the global `fetch` */
  fetch?: typeof fetch;
  /** The crawl's requests left: every attempt takes one, and none is made once it is spent. */
  budget?: RequestBudget;
}

/** A request that did not get an answer: unreachable, timed out, or a body over the size cap. */
export class FetchError extends Error {
  override name = 'FetchError';
}

/** A redirect not followed: too many hops, or off the site. */
export class RedirectError extends FetchError {
  override name = 'RedirectError';
  constructor(
    message: string,
    /** Requests made before it. */
    readonly requests: number,
  ) {
    super(message);
  }
}

/** Hops a redirect chain may take, as browsers' 20 is far more than a docs site needs. */
export const MAX_REDIRECTS = 5;

/** The requests a crawl may still make: pages, redirects, retries, robots.txt and sitemaps alike. */
export class RequestBudget {
  #left: number;
  constructor(readonly max: number) {
    this.#left = max;
  }
  get left(): number {
    return this.#left;
  }
  /** Takes one request; false when none is left. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    return true;
  }
}

/** A request refused because the crawl's budget is spent. */
export class BudgetError extends Error {
  override name = 'BudgetError';
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

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

/** The body, up to `maxBytes`: a larger one fails, or with `truncate` is cut there. */
async function readCapped(response: Response, maxBytes: number, truncate: boolean): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (!truncate && Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new FetchError(`larger than ${Math.round(maxBytes / 1024)} KiB`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        await reader.cancel();
        if (!truncate) throw new FetchError(`larger than ${Math.round(maxBytes / 1024)} KiB`);
        chunks.push(value.subarray(0, maxBytes - size));
        break;
      }
      size += value.byteLength;
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}

export interface PageOptions extends FetchOptions {
  etag?: string | null;
  lastModified?: string | null;
  /** A body over `maxBytes` is cut there rather than refused. */
  truncate?: boolean;
  /**
   * Reads a 200's body as it streams (`Fetched.body` is then empty); what it throws is final when a
   * `FetchError`. `deadline` aborts when the request's time (`timeoutMs`, the body's reading
   * included) is up: work done on bytes already received (a gzip that inflates a hundredfold)
   * must stop there too.
   */
  stream?(body: ReadableStream<Uint8Array>, deadline: AbortSignal): Promise<void>;
}

/**
 * GETs a URL as the crawler: redirects followed, `If-None-Match`/`If-Modified-Since` sent when
 * known (a 304 has an empty body), 429 and 5xx retried after `Retry-After` or a backoff. Throws
 * `FetchError` when no answer came.
 */
export async function fetchPage(url: string, options: PageOptions = {}): Promise<Fetched> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5' };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;
  let requests = 0;
  return withRetries<Fetched>(
    async () => {
      if (options.budget && !options.budget.take()) throw new BudgetError(`over the crawl's ${options.budget.max} requests`);
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
        if (response.status >= 300 && response.status < 400) {
          // A redirect's body says nothing the crawler reads.
          await response.body?.cancel();
          body = Buffer.alloc(0);
        } else if (options.stream && response.status === 200 && response.body) {
          await options.stream(response.body, signal);
          body = Buffer.alloc(0);
        } else body = await readCapped(response, maxBytes, options.truncate === true);
      } catch (error) {
        // A body over the cap, or the caller stopping the crawl, is final.
        if (options.signal?.aborted || error instanceof FetchError) throw error;
        const cause = error instanceof Error ? (error.cause as Error | undefined) : undefined;
        // An address the crawler may not reach is final too.
        if (cause instanceof RefusedAddressError) throw new FetchError(cause.message);
        const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${timeoutMs / 1000} s` : error instanceof Error ? (cause?.message ?? error.message) : String(error);
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

/**
 * GETs a URL of the site (robots.txt, a sitemap), following redirects itself: at most
 * `MAX_REDIRECTS` hops, each to an address `allowed` accepts (the crawl's origin), else a
 * `FetchError`. `Fetched.requests` counts every hop.
 */
export async function fetchWithin(url: string, options: PageOptions & { allowed: (url: string) => boolean }): Promise<Fetched> {
  let requests = 0;
  let at = url;
  for (let hop = 0; ; hop++) {
    const fetched = await fetchPage(at, { ...options, redirect: 'manual' });
    requests += fetched.requests;
    if (fetched.status < 300 || fetched.status >= 400 || !fetched.location) return { ...fetched, requests };
    if (hop >= MAX_REDIRECTS) throw new RedirectError(`over ${MAX_REDIRECTS} redirects`, requests);
    const next = new URL(fetched.location, at).href;
    if (!options.allowed(next)) throw new RedirectError(`redirected off the site to ${next}`, requests);
    at = next;
  }
}
