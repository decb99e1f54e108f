/** @module The request pipeline: route, authenticate, rate-limit, authorize, idempotency, handle, log. */
import { randomUUID } from 'node:crypto';
import { MESSAGES, type Scope } from '../../protocol/index.js';
import type { ConnectionInfo } from '../../protocol/node-http.js';
import { parseJsonObject, readBodyText } from './body.js';
import { badRequest, conflict, forbidden, HttpError, internal, notFound, unauthorized } from './errors.js';
import { rateLimitHeaders, type Bucket, type RateDecision, type RateLimiter, type RateLimits } from './rate-limit.js';
import type { Route, RouteContext, Router } from './router.js';
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

  async function run(request: Request, info: ConnectionInfo | undefined, log: Record<string, unknown>): Promise<{ response: Response; decision: RateDecision | undefined }> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { response: badRequest('Malformed request URL').toResponse(), decision: undefined };
    }
    const remoteAddress = info?.remoteAddress ?? 'unknown';
    const match = router.match(request.method, url.pathname);
    log.route = match.route?.pattern ?? 'unmatched';

    // Public routes and requests without a valid token count against the client address.
    let auth: TokenRecord | undefined;
    let decision: RateDecision;
    const publicRoute = match.route?.scope === 'public';
    const header = request.headers.get('authorization');
    if (!publicRoute) {
      const token = parseBearer(header);
      auth = token ? (services.tokens.verify(token) ?? undefined) : undefined;
    }
    if (auth) {
      log.org = auth.orgId;
      log.token = auth.prefix;
      decision = limiter.consume(buckets(auth, match.route));
    } else {
      decision = limiter.consume([{ key: `addr:${remoteAddress}`, limit: limits.perAddress }]);
    }
    if (!decision.allowed) {
      return { response: new HttpError(429, 'rate_limited', MESSAGES.rateLimited, { retryable: true }).toResponse(), decision };
    }
    try {
      return { response: await authorized(request, url, match, auth, remoteAddress, log), decision };
    } catch (error) {
      return { response: toErrorResponse(error, log), decision };
    }
  }

  async function authorized(
    request: Request,
    url: URL,
    match: ReturnType<Router['match']>,
    auth: TokenRecord | undefined,
    remoteAddress: string,
    log: Record<string, unknown>,
  ): Promise<Response> {
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
    if (route.method === 'POST') bodyText = await readBodyText(request);
    let parsed: Record<string, unknown> | undefined;
    const ctx: RouteContext = {
      request,
      url,
      params: match.params,
      auth,
      services,
      remoteAddress,
      body: () => (parsed ??= parseJsonObject(bodyText)),
    };

    const key = request.headers.get('idempotency-key');
    if (route.idempotent && auth && key !== null) {
      if (!IDEMPOTENCY_KEY.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
      const fingerprint = IdempotencyStore.fingerprint(request.method, url.pathname, bodyText);
      const begun = services.idempotency.begin(auth.id, key, fingerprint);
      if (begun.kind === 'mismatch') throw badRequest('Idempotency-Key was already used with a different request');
      if (begun.kind === 'in_progress') throw conflict('A request with this Idempotency-Key is still in progress');
      if (begun.kind === 'replay') {
        log.replayed = true;
        return new Response(begun.body, { status: begun.status, headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' } });
      }
      let response: Response;
      try {
        response = await route.handler(ctx);
      } catch (error) {
        response = toErrorResponse(error, log);
      }
      const text = await response.clone().text();
      services.idempotency.finish(auth.id, key, response.status, text);
      return response;
    }
    return route.handler(ctx);
  }

  function toErrorResponse(error: unknown, log: Record<string, unknown>): Response {
    if (error instanceof HttpError) return error.toResponse();
    log.error = error instanceof Error ? error.message : String(error);
    return internal().toResponse();
  }

  return async function fetch(request: Request, info?: ConnectionInfo): Promise<Response> {
    const started = performance.now();
    const requestId = randomUUID();
    const log: Record<string, unknown> = { msg: 'request', id: requestId, method: request.method };
    let response: Response;
    let decision: RateDecision | undefined;
    try {
      ({ response, decision } = await run(request, info, log));
    } catch (error) {
      response = toErrorResponse(error, log);
    }
    // Every response here is built by the app itself, so its headers are mutable.
    const headers = response.headers;
    for (const [name, value] of Object.entries(rateLimitHeaders(decision ?? fallbackDecision(limits)))) headers.set(name, value);
    headers.set('X-Request-Id', requestId);
    log.status = response.status;
    log.ms = Math.round((performance.now() - started) * 10) / 10;
    if (response.status >= 500) logger.error(log as { msg: string });
    else logger.info(log as { msg: string });
    return response;
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
