/**
 * @module The stages of the v0 API's request pipeline, in order: `refused`, `route`,
 * `authenticate`, `rateLimit`, `authorize`, `readBody`, `idempotency`, `handle`. Each sets what
 * it learns on the request's context and calls `next()`, answers by setting `ctx.response`, or
 * throws an `HttpError` (app.ts turns every error into a response in one place).
 *
 * A stage stays synchronous unless it has to wait (a token lookup, a shared limiter, a body, a
 * handler that awaits): a cached GET allocates no promise.
 */
import { addressKey, forwardedClient } from '../../protocol/client-address.js';
import { after, type Next, type Stage } from '../../protocol/pipeline.js';
import { IDEMPOTENCY_KEY_PATTERN, parseBearer, type Scope } from '../../protocol/index.js';
import { badRequest, forbidden, HttpError, notFound, rateLimited, unauthorized } from './errors.js';
import type { RequestContext } from './context.js';
import type { ApiResponse } from './exchange.js';
import { STANDALONE_BUCKETS, type Bucket, type EndpointBucket, type RateDecision, type RateLimiter, type RateLimits } from './rate-limit.js';
import type { Route, Router } from './router.js';
import type { Services } from './services.js';
import type { TokenRecord } from '../store/tokens.js';
import { IdempotencyStore, type IdempotencyBegin } from '../store/idempotency.js';

export interface StageDeps {
  router: Router;
  services: Services;
  limiter: RateLimiter;
  limits: RateLimits;
  /** Trusted reverse proxies in front: the client address is then the `X-Forwarded-For` entry the outermost one appended. */
  trustProxy: number;
  /** An IPv6 client is counted by its network of this many bits. @default 56 */
  ipv6Prefix?: number;
  /** The one error path (app.ts): an error as the response it is answered with. */
  toErrorResponse(error: unknown, ctx: RequestContext): ApiResponse;
}

export type ServerStage = Stage<RequestContext>;

const IDEMPOTENCY_KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** The stages, bound to one app's router, services and limits. */
export function serverStages({ router, services, limiter, limits, trustProxy, ipv6Prefix, toErrorResponse }: StageDeps) {
  const counter = new RequestCounter(limiter, limits, trustProxy, ipv6Prefix);
  return {
    refused: refusedStage(counter),
    route: routeStage(router),
    authenticate: authenticateStage(services),
    rateLimit: rateLimitStage(counter, limits),
    authorize,
    readBody,
    idempotency: idempotencyStage(services, toErrorResponse),
    handle,
  };
}

/** Which buckets a request counts in, and its count: a token's, an organization's, a route's own, or its client address's. */
class RequestCounter {
  /** The buckets of a token, per endpoint bucket, made once per token record (records are cached while unchanged). */
  readonly #bucketCache = new WeakMap<TokenRecord, Map<string, Bucket[]>>();

  constructor(
    readonly limiter: RateLimiter,
    readonly limits: RateLimits,
    readonly trustProxy: number,
    readonly ipv6Prefix: number | undefined,
  ) {}

  tokenBuckets(auth: TokenRecord, bucket: EndpointBucket | undefined): Bucket[] {
    const { limits } = this;
    let byBucket = this.#bucketCache.get(auth);
    if (!byBucket) this.#bucketCache.set(auth, (byBucket = new Map()));
    const name = bucket ?? '';
    let list = byBucket.get(name);
    if (!list) {
      const own = bucket ? [{ key: `org:${auth.orgId}:${bucket}`, limit: limits.endpoints[bucket] }] : [];
      list =
        bucket && STANDALONE_BUCKETS.has(bucket)
          ? own
          : [{ key: `token:${auth.id}`, limit: limits.perToken }, { key: `org:${auth.orgId}`, limit: limits.perOrganization }, ...own];
      byBucket.set(name, list);
    }
    return list;
  }

  /** The bucket of a request without a valid token: its client (behind trusted proxies, the one they name), an IPv6 address by its network (`ipv6Prefix`). */
  addressBucket(ctx: RequestContext): Bucket[] {
    const forwarded = this.trustProxy > 0 ? forwardedClient(ctx.request.header('x-forwarded-for'), this.trustProxy) : undefined;
    return [{ key: `addr:${addressKey(forwarded ?? ctx.remoteAddress, this.ipv6Prefix)}`, limit: this.limits.perAddress }];
  }

  /** Counts the request in `buckets`; 429 when one is used up. The in-memory limiter answers at once, a shared one (Redis) later. */
  count(ctx: RequestContext, buckets: Bucket[], next: Next): ReturnType<Next> {
    const decision = this.limiter.consume(buckets);
    // Checked here rather than with after(): the synchronous path makes no closure.
    if (decision instanceof Promise) return decision.then((settled) => counted(ctx, settled, next));
    return counted(ctx, decision, next);
  }

  /** Counts one call of a request whose handler counts each (`countsEach`); the headers report the first refusal, else the last decision. */
  countCall(ctx: RequestContext, auth: TokenRecord) {
    return (bucket?: EndpointBucket) =>
      after(this.limiter.consume(this.tokenBuckets(auth, bucket)), (decision) => {
        if (ctx.decision?.allowed !== false) ctx.decision = decision;
        return decision;
      });
  }

  /** A request refused before it was handled (by Node's parser, or its body by route.readBody): counted against the client address, then `error`, or 429 past the limit when `limited`. */
  refuse(ctx: RequestContext, error: unknown, limited: boolean): ReturnType<Next> {
    return after(this.limiter.consume(this.addressBucket(ctx)), (decision) => {
      ctx.decision = decision;
      throw limited && !decision.allowed ? rateLimited() : error;
    });
  }
}

/** A request Node's parser refused: its error, counted against the client address like any unauthenticated request (answered with the parser's error whatever the count says). */
function refusedStage(counter: RequestCounter): ServerStage {
  return (ctx, next) => {
    const error = ctx.request.refused;
    if (!error) return next();
    ctx.log.route = 'unparsed';
    return counter.refuse(ctx, error, false);
  };
}

/** The path, the query and the route they address. */
function routeStage(router: Router): ServerStage {
  return (ctx, next) => {
    const url = ctx.request.url;
    const queryAt = url.indexOf('?');
    ctx.pathname = queryAt < 0 ? url : url.slice(0, queryAt);
    ctx.search = queryAt < 0 ? '' : url.slice(queryAt);
    if (!ctx.pathname.startsWith('/')) throw badRequest('Malformed request URL');
    const match = router.match(ctx.request.method, ctx.pathname);
    if (match.route) {
      ctx.route = match.route;
      ctx.params = match.params;
    } else ctx.allowed = match.allowed;
    ctx.log.route = match.route?.pattern ?? 'unmatched';
    return next();
  };
}

/** The Bearer token's record, when it is valid; public routes take none. A token looked up recently is answered at once. */
function authenticateStage(services: Services): ServerStage {
  return (ctx, next) => {
    if (ctx.route?.scope === 'public') return next();
    const token = parseBearer(ctx.request.header('authorization'));
    if (!token) return next();
    const verified = services.tokens.verify(token);
    if (verified instanceof Promise) return verified.then((auth) => authenticated(ctx, auth, next));
    return authenticated(ctx, verified, next);
  };
}

/**
 * A token's requests count against the token and its organization (and the route's lower
 * bucket); public routes with their own bucket count there; everything else against the client
 * address. A public route whose requests prove who sent them (a helpdesk's signature) counts
 * genuine ones in its bucket and forged ones against the address (see `countSigned`).
 */
function rateLimitStage(counter: RequestCounter, limits: RateLimits): ServerStage {
  return (ctx, next) => {
    const route = ctx.route;
    if (ctx.auth && route?.countsEach && hasScope(ctx.auth, route)) {
      ctx.count = counter.countCall(ctx, ctx.auth);
      return next();
    }
    if (ctx.auth) return counter.count(ctx, counter.tokenBuckets(ctx.auth, route?.bucket), next);
    if (route?.publicBucket && route.genuine) return countSigned(counter, ctx, route, [{ key: route.publicBucket(ctx.params), limit: limits.perOrganization }], next);
    if (route?.publicBucket) return counter.count(ctx, [{ key: route.publicBucket(ctx.params), limit: limits.perOrganization }], next);
    return counter.count(ctx, counter.addressBucket(ctx), next);
  };
}

/**
 * A request to a public route that proves who sent it: its body read, then counted in the route's
 * bucket (`own`) when genuine, against the client address when forged, so forgeries can never use
 * up the quota of the sender they impersonate. A body refused before it was read counts against the address.
 */
function countSigned(counter: RequestCounter, ctx: RequestContext, route: Route, own: Bucket[], next: Next): ReturnType<Next> {
  const body = route.readBody ? route.readBody(ctx) : ctx.request.text();
  return body.then(
    (text) => {
      ctx.bodyText = text;
      let verdict: boolean | Promise<boolean> = false;
      try {
        verdict = route.genuine!(ctx);
      } catch {
        // Treated as forged: the handler gives the precise error.
      }
      const counted = (genuine: boolean) => counter.count(ctx, genuine ? own : counter.addressBucket(ctx), next);
      return verdict instanceof Promise ? verdict.then(counted, () => counted(false)) : counted(verdict);
    },
    (error: unknown) => (error instanceof HttpError ? counter.refuse(ctx, error, true) : Promise.reject(error)),
  );
}

/** 401 without a valid token, 404 or 405 without a route, 403 without the route's scope. */
const authorize: ServerStage = (ctx, next) => {
  const route = ctx.route;
  if (route?.scope !== 'public' && !ctx.auth) throw unauthorized();
  if (!route) {
    if (ctx.allowed.length > 0) {
      const allow = ctx.allowed.join(', ');
      throw new HttpError(405, 'bad_request', `Method ${ctx.request.method} is not allowed here; use ${allow}`, { headers: { Allow: allow } });
    }
    throw notFound();
  }
  if (ctx.auth && !hasScope(ctx.auth, route)) throw forbidden();
  return next();
};

/** A POST's body, read (capped) once; GET and DELETE have none. */
const readBody: ServerStage = (ctx, next) => {
  if (ctx.route!.method !== 'POST' || ctx.bodyText !== undefined) return next();
  return ctx.request.text().then((text) => {
    ctx.bodyText = text;
    return next();
  });
};

/** With an `Idempotency-Key` on a route that honours it: a replay, a refusal, or the handler run once and its outcome kept. */
function idempotencyStage(services: Services, toErrorResponse: StageDeps['toErrorResponse']): ServerStage {
  return (ctx, next) => {
    const key = ctx.request.header('idempotency-key');
    if (!ctx.route!.idempotent || !ctx.auth || key === null) return next();
    if (!IDEMPOTENCY_KEY.test(key)) throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters');
    const auth = ctx.auth;
    const fingerprint = IdempotencyStore.fingerprint(ctx.request.method, ctx.pathname, ctx.bodyText ?? '');
    return services.idempotency.begin(auth.id, key, fingerprint).then((begun: IdempotencyBegin) => {
      if (begun.kind === 'mismatch') throw badRequest('Idempotency-Key was already used with a different request');
      if (begun.kind === 'in_progress') {
        throw new HttpError(409, 'conflict', 'A request with this Idempotency-Key is still in progress', {
          retryable: true,
          headers: { 'Retry-After': String(begun.retryAfterSeconds) },
        });
      }
      if (begun.kind === 'replay') {
        ctx.log.replayed = true;
        ctx.response = { status: begun.status, headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' }, body: begun.body };
        return;
      }
      // The outcome is kept whatever it is, an error included, so a retry replays it.
      const keep = async () => {
        const response = ctx.response!;
        await services.idempotency.finish(auth.id, key, response.status, response.body ?? '', ctx.params.id);
      };
      return Promise.resolve()
        .then(next)
        .then(keep, (error: unknown) => {
          ctx.response = toErrorResponse(error, ctx);
          return keep();
        });
    });
  };
}

/** The route's handler: the answer. */
const handle: ServerStage = (ctx) => {
  const response = ctx.route!.handler(ctx);
  if (response instanceof Promise) return response.then((r) => void (ctx.response = r));
  ctx.response = response;
};

/** Whether the token may call the route. */
function hasScope(auth: TokenRecord, route: Route): boolean {
  return route.scope === 'any' || route.scope === 'public' || auth.scopes.includes(route.scope as Scope);
}

/** The request's token record, when the token was valid. */
function authenticated(ctx: RequestContext, auth: TokenRecord | null | undefined, next: Next): ReturnType<Next> {
  if (auth) {
    ctx.auth = auth;
    ctx.log.org = auth.orgId;
    ctx.log.token = auth.prefix;
  }
  return next();
}

/** A limiter's decision: kept for the headers, 429 when the request is over a limit. */
function counted(ctx: RequestContext, decision: RateDecision, next: Next): ReturnType<Next> {
  ctx.decision = decision;
  if (!decision.allowed) throw rateLimited();
  return next();
}

