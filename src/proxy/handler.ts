/**
 * @module `createSupportProxy`: the backend-for-frontend between `<support-chat>` and a v0 API. A
 * request goes through named stages (stages.ts) over one context (context.ts) to its route
 * (routes.ts), matched by the protocol's Router; every error becomes a response in one place here.
 * To add a stage, write it in stages.ts and put it in the pipeline below (docs/proxy.md).
 */
import { FixedWindowLimiter, HttpError, MESSAGES, setRateLimitHeaders, type RateDecision } from '../protocol/index.js';
import { compose } from '../protocol/pipeline.js';
import { Router } from '../protocol/router.js';
import { shortCache } from './cache.js';
import { ProxyContext, type ProxyState } from './context.js';
import { errorResponse, NetworkError, TimeoutError } from './errors.js';
import { resolveOptions, type SupportProxyOptions } from './options.js';
import { PROXY_ROUTES } from './routes.js';
import { clientAddress, handle, identify, limitVisitor, ownership, route, site, visitor } from './stages.js';
import { Upstream } from './upstream.js';
import { VisitorIdentity } from './identity.js';
import { ConversationOwners } from './owners.js';

export { escalationKey } from './routes.js';

/** Most bytes of settled conversations the cache holds, whatever `cacheSize` says. */
const CACHE_MAX_BYTES = 32 * 1024 * 1024;
/** Most bytes of search results the search cache holds, whatever `searchCacheSize` says. */
const SEARCH_CACHE_MAX_BYTES = 8 * 1024 * 1024;

type Handler = (request: Request, info?: { remoteAddress?: string }) => Promise<Response>;

/**
 * Creates the proxy's fetch handler. It serves these routes (routes.ts, `PROXY_ROUTES`), and nothing else:
 *
 * - `POST {basePath}/chat`: send a message (starting a conversation or continuing one);
 * - `GET {basePath}/chat`: the visitor's conversations, newest first;
 * - `GET {basePath}/visitor`: who the visitor is, for the widget (no secret in it);
 * - `GET {basePath}/chat/:id`: a conversation (long-polled when the upstream offers it);
 * - `GET {basePath}/chat/:id/events`: its answer as it is written, relayed unbuffered;
 * - `POST {basePath}/chat/:id/escalate`: hand it to the site owner's helpdesk;
 * - `POST {basePath}/chat/:id/feedback`: rate an answer;
 * - `GET {basePath}/search`: the docs' search, one upstream call serving every visitor asking the same.
 *
 * @example
 * const proxy = createSupportProxy({ apiBaseUrl: 'http://127.0.0.1:8787', token: process.env.SUPPORT_API_TOKEN!, secret: process.env.SUPPORT_PROXY_SECRET! });
 * export const GET = proxy, POST = proxy, OPTIONS = proxy; // Next.js route handler
 */
export function createSupportProxy(options: SupportProxyOptions): Handler {
  const opts = resolveOptions(options);
  const upstream = new Upstream(opts);
  const state: ProxyState = {
    opts,
    upstream,
    identity: new VisitorIdentity(opts),
    owners: new ConversationOwners(),
    limiter: new FixedWindowLimiter(),
    inflight: new Map(),
    cache: shortCache({ ttlMs: opts.cacheTtlMs, maxEntries: opts.cacheSize, maxBytes: CACHE_MAX_BYTES }),
    searches: shortCache({ ttlMs: opts.searchCacheTtlMs, maxEntries: opts.searchCacheSize, maxBytes: SEARCH_CACHE_MAX_BYTES }),
    searching: new Map(),
    longPoll: undefined,
    streams: new Map(),
    warnedNoAddress: false,
  };
  // The stages every request goes through, in order; each may answer and stop the rest.
  const run = compose<ProxyContext>([site, route(new Router(PROXY_ROUTES)), visitor, identify, limitVisitor, ownership, handle]);

  return async function proxy(request: Request, info?: { remoteAddress?: string }): Promise<Response> {
    const started = performance.now();
    const log: Record<string, unknown> = { msg: 'proxy request', method: request.method };
    const ctx = new ProxyContext(request, state, clientAddress(request, opts.trustProxy, info?.remoteAddress, opts.ipv6Prefix), log);
    let response: Response;
    try {
      await run(ctx);
      response = ctx.response ?? toResponse(new Error('no stage answered'), log);
    } catch (error) {
      response = toResponse(error, log);
    }
    for (const [name, value] of Object.entries(ctx.cors)) response.headers.set(name, value);
    // Every answer carries rate limit headers, as the API's do: the upstream's when relayed, else the proxy's.
    if (!response.headers.has('x-ratelimit-limit')) {
      const headers = setRateLimitHeaders({}, ctx.rate ?? unusedWindow(opts.visitorLimits.perAddress));
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    }
    // A stream says `no-cache, no-transform` (routes.ts, `events`); everything else is never stored.
    if (!response.headers.has('cache-control')) response.headers.set('Cache-Control', 'no-store');
    log.status = response.status;
    log.ms = Math.round((performance.now() - started) * 10) / 10;
    opts.logger?.info(log);
    return response;
  };
}

/** The one place an error becomes the proxy's answer: the spec's body, the error's headers. */
function toResponse(error: unknown, log: Record<string, unknown>): Response {
  if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message, { retryable: error.retryable, headers: error.headers });
  if (error instanceof TimeoutError) return errorResponse(504, 'internal_error', 'The support service did not answer in time', { retryable: true });
  if (error instanceof NetworkError) return errorResponse(502, 'internal_error', 'The support service could not be reached', { retryable: true });
  log.error = error instanceof Error ? error.name : 'unknown';
  return errorResponse(500, 'internal_error', MESSAGES.internal, { retryable: true });
}

/** The headers of a window nothing has counted in (a request refused before any limit applied). */
function unusedWindow(limit: number): RateDecision {
  const now = Date.now();
  return { allowed: true, limit, remaining: limit, reset: Math.ceil((Math.floor(now / 60_000) + 1) * 60), retryAfter: 0 };
}
