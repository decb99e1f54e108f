/** @module The request pipeline: route, authenticate, rate-limit, authorize, idempotency, handle, log. */
import { randomUUID } from 'node:crypto';
import { MESSAGES, type Scope } from '../../protocol/index.js';
import type { ConnectionInfo } from '../../protocol/node-http.js';
import { parseJsonObject } from './body.js';
import { fromFetch, toFetchResponse, type ApiRequest, type ApiResponse } from './exchange.js';
import { badRequest, conflict, forbidden, HttpError, internal, notFound, unauthorized } from './errors.js';
import { rateLimitHeaders, type Bucket, type RateDecision, type RateLimiter, type RateLimits } from './rate-limit.js';
import type { Route, RouteContext, Router } from './router.js';
import { HELPDESK_WEBHOOK_PATTERN } from './routes/helpdesk-webhooks.js';
import type { Services } from './services.js';
import type { TokenRecord } from '../store/tokens.js';
import { IdempotencyStore } from '../store/idempotency.js';

export interface AppOptions {
  router: Router;
  services: Services;
  limiter: RateLimiter;
  limits: RateLimits;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Builds the fetch handler `(Request, info?) => Promise<Response>` of the v0 API. */
export function createApp({ router, services, limiter, limits }: AppOptions) {
  const { logger } = services;

  function buckets(auth: TokenRecord, route: Route | undefined): Bucket[] {
    const list: Bucket[] = [
      { key: `token:${auth.id}`, limit: limits.perToken },
      { key: `org:${auth.orgId}`, limit: limits.perOrganization },
    ];
    if (route?.bucket) list.push({ key: `org:${auth.orgId}:${route.bucket}`, limit: limits.endpoints[route.bucket] });
    return list;
  }

  async function run(request: ApiRequest, log: Record<string, unknown>): Promise<{ response: ApiResponse; decision: RateDecision | undefined }> {
    const queryAt = request.url.indexOf('?');
    const pathname = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
    if (!pathname.startsWith('/')) return { response: badRequest('Malformed request URL').toResponse(), decision: undefined };
    const remoteAddress = request.remoteAddress;
    const match = router.match(request.method, pathname);
    log.route = match.route?.pattern ?? 'unmatched';

    // Public routes and requests without a valid token count against the client address.
    let auth: TokenRecord | undefined;
    let decision: RateDecision;
    const publicRoute = match.route?.scope === 'public';
    const header = request.header('authorization');
    if (!publicRoute) {
      const token = parseBearer(header);
      auth = token ? (services.tokens.verify(token) ?? undefined) : undefined;
    }
    if (auth) {
      log.org = auth.orgId;
      log.token = auth.prefix;
      decision = limiter.consume(buckets(auth, match.route));
    } else if (match.route !== undefined && match.route.pattern === HELPDESK_WEBHOOK_PATTERN) {
      // Helpdesks deliver from shared addresses in bursts: their webhooks count per source and
      // organization, at the organization's limit, not against one address's 60 a minute.
      decision = limiter.consume([{ key: `webhook:${match.params.source}:${match.params.org}`, limit: limits.perOrganization }]);
    } else {
      decision = limiter.consume([{ key: `addr:${remoteAddress}`, limit: limits.perAddress }]);
    }
    if (!decision.allowed) {
      return { response: new HttpError(429, 'rate_limited', MESSAGES.rateLimited, { retryable: true }).toResponse(), decision };
    }
    try {
      return { response: await authorized(request, queryAt < 0 ? '' : request.url.slice(queryAt), match, auth, log), decision };
    } catch (error) {
      return { response: toErrorResponse(error, log), decision };
    }
  }

  async function authorized(
    request: ApiRequest,
    search: string,
    match: ReturnType<Router['match']>,
    auth: TokenRecord | undefined,
    log: Record<string, unknown>,
  ): Promise<ApiResponse> {
    const publicRoute = match.route?.scope === 'public';
    if (!publicRoute && !auth) return unauthorized().toResponse();
    if (!match.route) {
      if (match.allowed.length > 0) {
        const error = new HttpError(405, 'bad_request', `Method ${request.method} is not allowed here; use ${match.allowed.join(', ')}`, {
          headers: { Allow: match.allowed.join(', ') },
        });
        return error.toResponse();
      }
      return notFound().toResponse();
    }
    const route = match.route;
    if (auth && route.scope !== 'any' && route.scope !== 'public' && !auth.scopes.includes(route.scope as Scope)) {
      return forbidden().toResponse();
    }

    let bodyText = '';
    if (route.method === 'POST') bodyText = await request.text();
    let parsed: Record<string, unknown> | undefined;
    let query: URLSearchParams | undefined;
    const ctx: RouteContext = {
      request,
      get query() {
        return (query ??= new URLSearchParams(search));
      },
      params: match.params,
      auth,
      services,
      remoteAddress: request.remoteAddress,
      body: () => (parsed ??= parseJsonObject(bodyText)),
      rawBody: () => bodyText,
    };

    const key = request.header('idempotency-key');
    if (route.idempotent && auth && key !== null) {
      if (!IDEMPOTENCY_KEY.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
      const fingerprint = IdempotencyStore.fingerprint(request.method, search ? request.url.slice(0, -search.length) : request.url, bodyText);
      const begun = services.idempotency.begin(auth.id, key, fingerprint);
      if (begun.kind === 'mismatch') throw badRequest('Idempotency-Key was already used with a different request');
      if (begun.kind === 'in_progress') throw conflict('A request with this Idempotency-Key is still in progress');
      if (begun.kind === 'replay') {
        log.replayed = true;
        return { status: begun.status, headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' }, body: begun.body };
      }
      let response: ApiResponse;
      try {
        response = await route.handler(ctx);
      } catch (error) {
        response = toErrorResponse(error, log);
      }
      services.idempotency.finish(auth.id, key, response.status, response.body ?? '');
      return response;
    }
    return route.handler(ctx);
  }

  function toErrorResponse(error: unknown, log: Record<string, unknown>): ApiResponse {
    if (error instanceof HttpError) return error.toResponse();
    log.error = error instanceof Error ? error.message : String(error);
    return internal().toResponse();
  }

  async function handle(request: ApiRequest): Promise<ApiResponse> {
    const started = performance.now();
    const requestId = randomUUID();
    const log: Record<string, unknown> = { msg: 'request', id: requestId, method: request.method };
    let response: ApiResponse;
    let decision: RateDecision | undefined;
    try {
      ({ response, decision } = await run(request, log));
    } catch (error) {
      response = toErrorResponse(error, log);
    }
    Object.assign(response.headers, rateLimitHeaders(decision ?? fallbackDecision(limits)), { 'X-Request-Id': requestId });
    log.status = response.status;
    log.ms = Math.round((performance.now() - started) * 10) / 10;
    if (response.status >= 500) logger.error(log as { msg: string });
    else logger.info(log as { msg: string });
    return response;
  }

  return {
    /** The pipeline on plain request and response objects (Node's http adapter calls this). */
    handle,
    /** The API as a fetch handler. */
    fetch: async (request: Request, info?: ConnectionInfo): Promise<Response> => toFetchResponse(await handle(fromFetch(request, info?.remoteAddress ?? 'unknown'))),
  };
}

/** `Bearer <token>` with exactly one space and nothing else; anything odd is no token. */
function parseBearer(header: string | null): string | null {
  if (!header) return null;
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header);
  return match ? match[1]! : null;
}

/** Headers for the rare response made before any limit was consulted (a malformed URL). */
function fallbackDecision(limits: RateLimits): RateDecision {
  const reset = Math.ceil((Math.floor(Date.now() / 60_000) + 1) * 60);
  return { allowed: true, limit: limits.perAddress, remaining: limits.perAddress, reset, retryAfter: 0 };
}
