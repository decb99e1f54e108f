/** @module The request pipeline: route, authenticate, rate-limit, authorize, idempotency, handle, log. */
import { randomUUID } from 'node:crypto';
import { addressKey, forwardedClient } from '../../protocol/client-address.js';
import { setRateLimitHeaders, type Scope } from '../../protocol/index.js';
import type { ConnectionInfo } from '../../protocol/node-http.js';
import { parseJsonObject } from './body.js';
import { fromFetch, toFetchResponse, type ApiRequest, type ApiResponse } from './exchange.js';
import { badRequest, forbidden, HttpError, internal, notFound, rateLimited, unauthorized } from './errors.js';
import type { Bucket, RateDecision, RateLimiter, RateLimits } from './rate-limit.js';
import type { Route, RouteContext, RouteMatch, Router } from './router.js';
import type { Services } from './services.js';
import type { TokenRecord } from '../store/tokens.js';
import { IdempotencyStore, type IdempotencyBegin } from '../store/idempotency.js';

export interface AppOptions {
  router: Router;
  services: Services;
  limiter: RateLimiter;
  limits: RateLimits;
  /**
   * The database's change tracker: pinned for each request's synchronous run, so the token and
   * conversation caches check other processes' commits once per request rather than once per read.
   */
  changes?: { pin(): void; unpin(): void };
  /** Trusted reverse proxies in front: the client address is then the `X-Forwarded-For` entry the outermost one appended. @default 0 */
  trustProxy?: number;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Builds the fetch handler `(Request, info?) => Promise<Response>` of the v0 API. */
export function createApp({ router, services, limiter, limits, changes, trustProxy }: AppOptions) {
  const { logger } = services;
  const hops = trustProxy ?? 0;

  /** The bucket of a request without a valid token: its client (behind trusted proxies, the one they name), an IPv6 address by its /64. */
  function addressBucket(request: ApiRequest): Bucket {
    const address = (hops > 0 ? forwardedClient(request.header('x-forwarded-for'), hops) : undefined) ?? request.remoteAddress;
    return { key: `addr:${addressKey(address)}`, limit: limits.perAddress };
  }

  /** The buckets of a token, per endpoint bucket, made once per token record (records are cached while unchanged). */
  const bucketCache = new WeakMap<TokenRecord, Map<string, Bucket[]>>();
  function buckets(auth: TokenRecord, route: Route | undefined): Bucket[] {
    let byRoute = bucketCache.get(auth);
    if (!byRoute) {
      byRoute = new Map();
      bucketCache.set(auth, byRoute);
    }
    const name = route?.bucket ?? '';
    let list = byRoute.get(name);
    if (!list) {
      list = [
        { key: `token:${auth.id}`, limit: limits.perToken },
        { key: `org:${auth.orgId}`, limit: limits.perOrganization },
      ];
      if (route?.bucket) list.push({ key: `org:${auth.orgId}:${route.bucket}`, limit: limits.endpoints[route.bucket] });
      byRoute.set(name, list);
    }
    return list;
  }

  /**
   * The pipeline is synchronous until something has to wait (a request body, a handler that
   * awaits): a GET that reads from memory or SQLite allocates no promise and takes no microtask hop.
   */
  function run(request: ApiRequest, log: RequestLog, outcome: { decision: RateDecision | undefined }): MaybePromise<ApiResponse> {
    if (request.refused) return unparsed(request.refused, request, log, outcome);
    const queryAt = request.url.indexOf('?');
    const pathname = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
    const search = queryAt < 0 ? '' : request.url.slice(queryAt);
    if (!pathname.startsWith('/')) return toResponse(badRequest('Malformed request URL'));
    const match = router.match(request.method, pathname);
    log.route = match.route?.pattern ?? 'unmatched';

    if (match.route?.scope === 'public') return authenticated(undefined, request, search, match, log, outcome);
    const token = parseBearer(request.header('authorization'));
    // A token looked up recently is answered at once; otherwise the lookup is awaited.
    const verified = token ? services.tokens.verify(token) : null;
    if (verified instanceof Promise) return verified.then((auth) => authenticated(auth ?? undefined, request, search, match, log, outcome));
    return authenticated(verified ?? undefined, request, search, match, log, outcome);
  }

  /** Public routes and requests without a valid token count against the client address. */
  function authenticated(
    auth: TokenRecord | undefined,
    request: ApiRequest,
    search: string,
    match: RouteMatch,
    log: RequestLog,
    outcome: { decision: RateDecision | undefined },
  ): MaybePromise<ApiResponse> {
    let bucketList: Bucket[];
    if (auth) {
      log.org = auth.orgId;
      log.token = auth.prefix;
      bucketList = buckets(auth, match.route);
    } else if (match.route?.publicBucket && match.route.genuine) {
      // Counted once the body shows whether the sender is genuine (see countPublic).
      const route = match.route;
      const params = match.params;
      const body = route.readBody ? route.readBody(new Context(request, search, params, undefined, services, '')) : request.text();
      return body.then(
        (bodyText) => countPublic(request, search, route, params, log, outcome, bodyText),
        (error: unknown) => (error instanceof HttpError ? counted(error, request, outcome) : Promise.reject(error)),
      );
    } else if (match.route?.publicBucket) {
      bucketList = [{ key: match.route.publicBucket(match.params), limit: limits.perOrganization }];
    } else {
      bucketList = [addressBucket(request)];
    }
    // The in-memory limiter answers at once (no closure made); a shared one (Redis) answers later.
    const decision = limiter.consume(bucketList);
    if (decision instanceof Promise) return decision.then((settled) => limited(settled, request, search, match, auth, log, outcome));
    return limited(decision, request, search, match, auth, log, outcome);
  }

  /** A request Node's parser refused: its error, counted against the client address like any unauthenticated request. */
  function unparsed(refused: HttpError, request: ApiRequest, log: RequestLog, outcome: { decision: RateDecision | undefined }): MaybePromise<ApiResponse> {
    log.route = 'unparsed';
    return counted(refused, request, outcome, false);
  }

  /** An error answered before the request could be counted elsewhere: counted against the client address (429 past its limit when `limited`). */
  function counted(refused: HttpError, request: ApiRequest, outcome: { decision: RateDecision | undefined }, limited = true): MaybePromise<ApiResponse> {
    const answer = (decision: RateDecision) => {
      outcome.decision = decision;
      return toResponse(limited && !decision.allowed ? rateLimited() : refused);
    };
    const decision = limiter.consume([addressBucket(request)]);
    return decision instanceof Promise ? decision.then(answer) : answer(decision);
  }

  /**
   * A public route whose requests prove who sent them (a helpdesk's signature): genuine ones count
   * in the route's own bucket, forged ones against the client address, so forgeries can never use
   * up the quota of the sender they impersonate.
   */
  function countPublic(
    request: ApiRequest,
    search: string,
    route: Route,
    params: Record<string, string>,
    log: RequestLog,
    outcome: { decision: RateDecision | undefined },
    bodyText: string,
  ): MaybePromise<ApiResponse> {
    const count = (genuine: boolean): MaybePromise<ApiResponse> => {
      const bucketList = genuine ? [{ key: route.publicBucket!(params), limit: limits.perOrganization }] : [addressBucket(request)];
      const next = (decision: RateDecision): MaybePromise<ApiResponse> => {
        outcome.decision = decision;
        if (!decision.allowed) return toResponse(rateLimited());
        return dispatch(request, search, route, params, undefined, log, bodyText);
      };
      const decision = limiter.consume(bucketList);
      return decision instanceof Promise ? decision.then(next) : next(decision);
    };
    let verdict: boolean | Promise<boolean> = false;
    try {
      verdict = route.genuine!(new Context(request, search, params, undefined, services, bodyText));
    } catch {
      // Treated as forged: the handler gives the precise error.
    }
    return verdict instanceof Promise ? verdict.then(count, () => count(false)) : count(verdict);
  }

  function limited(
    decision: RateDecision,
    request: ApiRequest,
    search: string,
    match: RouteMatch,
    auth: TokenRecord | undefined,
    log: RequestLog,
    outcome: { decision: RateDecision | undefined },
  ): MaybePromise<ApiResponse> {
    outcome.decision = decision;
    if (!decision.allowed) return toResponse(rateLimited());
    return authorized(request, search, match, auth, log);
  }

  function authorized(request: ApiRequest, search: string, match: RouteMatch, auth: TokenRecord | undefined, log: RequestLog): MaybePromise<ApiResponse> {
    if (match.route?.scope !== 'public' && !auth) return toResponse(unauthorized());
    if (!match.route) {
      if (match.allowed.length > 0) {
        const error = new HttpError(405, 'bad_request', `Method ${request.method} is not allowed here; use ${match.allowed.join(', ')}`, {
          headers: { Allow: match.allowed.join(', ') },
        });
        return toResponse(error);
      }
      return toResponse(notFound());
    }
    const route = match.route;
    if (auth && route.scope !== 'any' && route.scope !== 'public' && !auth.scopes.includes(route.scope as Scope)) {
      return toResponse(forbidden());
    }
    if (route.method === 'POST') return request.text().then((bodyText) => dispatch(request, search, route, match.params, auth, log, bodyText));
    return dispatch(request, search, route, match.params, auth, log, '');
  }

  function dispatch(
    request: ApiRequest,
    search: string,
    route: Route,
    params: Record<string, string>,
    auth: TokenRecord | undefined,
    log: RequestLog,
    bodyText: string,
  ): MaybePromise<ApiResponse> {
    const ctx = new Context(request, search, params, auth, services, bodyText);
    const key = request.header('idempotency-key');
    if (route.idempotent && auth && key !== null) {
      if (!IDEMPOTENCY_KEY.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
      const fingerprint = IdempotencyStore.fingerprint(request.method, search ? request.url.slice(0, -search.length) : request.url, bodyText);
      return services.idempotency.begin(auth.id, key, fingerprint).then((begun) => idempotent(begun, ctx, route, auth, key, log));
    }
    return route.handler(ctx);
  }

  /** Runs the handler of a request with an `Idempotency-Key` as the key's reservation says. */
  function idempotent(begun: IdempotencyBegin, ctx: Context, route: Route, auth: TokenRecord, key: string, log: RequestLog): MaybePromise<ApiResponse> {
    if (begun.kind === 'mismatch') throw badRequest('Idempotency-Key was already used with a different request');
    if (begun.kind === 'in_progress') {
      throw new HttpError(409, 'conflict', 'A request with this Idempotency-Key is still in progress', {
        retryable: true,
        headers: { 'Retry-After': String(begun.retryAfterSeconds) },
      });
    }
    if (begun.kind === 'replay') {
      log.replayed = true;
      return { status: begun.status, headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' }, body: begun.body };
    }
    const finish = async (response: ApiResponse) => {
      await services.idempotency.finish(auth.id, key, response.status, response.body ?? '', ctx.params.id);
      return response;
    };
    return Promise.resolve()
      .then(() => route.handler(ctx))
      .then(finish, (error: unknown) => finish(toErrorResponse(error, log)));
  }

  function toErrorResponse(error: unknown, log: RequestLog): ApiResponse {
    if (error instanceof HttpError) return toResponse(error);
    log.error = error instanceof Error ? error.message : String(error);
    return toResponse(internal());
  }

  function finish(response: ApiResponse, log: RequestLog, decision: RateDecision | undefined, started: number): ApiResponse {
    setRateLimitHeaders(response.headers, decision ?? fallbackDecision(limits));
    response.headers['X-Request-Id'] = log.id;
    log.status = response.status;
    log.ms = Math.round((performance.now() - started) * 10) / 10;
    if (response.status >= 500) logger.error(log);
    else logger.info(log);
    return response;
  }

  /** The whole pipeline; a Promise only when something had to wait. Never throws or rejects. */
  function handle(request: ApiRequest): MaybePromise<ApiResponse> {
    const started = performance.now();
    const log: RequestLog = { msg: 'request', id: randomUUID(), method: request.method };
    const outcome: { decision: RateDecision | undefined } = { decision: undefined };
    let result: MaybePromise<ApiResponse>;
    changes?.pin();
    try {
      result = run(request, log, outcome);
    } catch (error) {
      result = toErrorResponse(error, log);
    } finally {
      // Whatever runs after an await reads other processes' commits afresh.
      changes?.unpin();
    }
    if (result instanceof Promise) {
      return result.then(
        (response) => finish(response, log, outcome.decision, started),
        (error: unknown) => finish(toErrorResponse(error, log), log, outcome.decision, started),
      );
    }
    return finish(result, log, outcome.decision, started);
  }

  return {
    /** The pipeline on plain request and response objects (Node's http adapter calls this). */
    handle,
    /** The API as a fetch handler. */
    fetch: async (request: Request, info?: ConnectionInfo): Promise<Response> => toFetchResponse(await handle(fromFetch(request, info?.remoteAddress ?? 'unknown'))),
  };
}

type MaybePromise<T> = T | Promise<T>;

interface RequestLog {
  msg: string;
  id: string;
  method: string;
  [field: string]: unknown;
}

/** What a handler sees; a class, so a request allocates one object and no closures. */
class Context implements RouteContext {
  readonly request: ApiRequest;
  readonly params: Record<string, string>;
  readonly auth: TokenRecord | undefined;
  readonly services: Services;
  readonly remoteAddress: string;
  readonly #search: string;
  readonly #bodyText: string;
  #query: URLSearchParams | undefined;
  #parsed: Record<string, unknown> | undefined;

  constructor(request: ApiRequest, search: string, params: Record<string, string>, auth: TokenRecord | undefined, services: Services, bodyText: string) {
    this.request = request;
    this.params = params;
    this.auth = auth;
    this.services = services;
    this.remoteAddress = request.remoteAddress;
    this.#search = search;
    this.#bodyText = bodyText;
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.#search));
  }

  body(): Record<string, unknown> {
    return (this.#parsed ??= parseJsonObject(this.#bodyText));
  }

  rawBody(): string {
    return this.#bodyText;
  }
}

/** The one place an error becomes a response: the spec's JSON body and the error's headers. */
function toResponse(error: HttpError): ApiResponse {
  return { status: error.status, headers: { 'content-type': 'application/json', ...error.headers }, body: JSON.stringify(error.toBody()) };
}

/**
 * The token of `Bearer <token>`. The scheme is case-insensitive and may be followed by several
 * spaces (RFC 9110 §11.1, §11.4); anything else is no token.
 */
function parseBearer(header: string | null): string | null {
  if (!header) return null;
  // test() and slice() rather than exec(): no match array per request, in the usual case.
  if (FAST_BEARER.test(header)) return header.slice(7);
  const match = BEARER.exec(header);
  return match ? match[1]! : null;
}

const FAST_BEARER = /^Bearer [\x21-\x7e]+$/;
const BEARER = /^bearer +([\x21-\x7e]+)$/i;

/** Headers for the rare response made before any limit was consulted (a malformed URL). */
function fallbackDecision(limits: RateLimits): RateDecision {
  const reset = Math.ceil((Math.floor(Date.now() / 60_000) + 1) * 60);
  return { allowed: true, limit: limits.perAddress, remaining: limits.perAddress, reset, retryAfter: 0 };
}
