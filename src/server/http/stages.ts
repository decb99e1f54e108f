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
import type { Bucket, RateDecision, RateLimiter, RateLimits } from './rate-limit.js';
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
  /** The buckets of a token, per endpoint bucket, made once per token record (records are cached while unchanged). */
  const bucketCache = new WeakMap<TokenRecord, Map<string, Bucket[]>>();
  function tokenBuckets(auth: TokenRecord, route: Route | undefined): Bucket[] {
    let byRoute = bucketCache.get(auth);
    if (!byRoute) bucketCache.set(auth, (byRoute = new Map()));
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

  /** The bucket of a request without a valid token: its client (behind trusted proxies, the one they name), an IPv6 address by its network (`ipv6Prefix`). */
  function addressBucket(ctx: RequestContext): Bucket[] {
    const forwarded = trustProxy > 0 ? forwardedClient(ctx.request.header('x-forwarded-for'), trustProxy) : undefined;
    return [{ key: `addr:${addressKey(forwarded ?? ctx.remoteAddress, ipv6Prefix)}`, limit: limits.perAddress }];
  }

  /** Counts the request in `buckets`; 429 when one is used up. The in-memory limiter answers at once, a shared one (Redis) later. */
  function count(ctx: RequestContext, buckets: Bucket[], next: Next): ReturnType<Next> {
    const decision = limiter.consume(buckets);
    // Checked here rather than with after(): the synchronous path makes no closure.
    if (decision instanceof Promise) return decision.then((settled) => counted(ctx, settled, next));
    return counted(ctx, decision, next);
  }

  /** A request Node's parser refused: its error, counted against the client address like any unauthenticated request. */
  const refused: ServerStage = (ctx, next) => {
    const error = ctx.request.refused;
    if (!error) return next();
    ctx.log.route = 'unparsed';
    // Answered with the parser's error whatever the count says.
    return after(limiter.consume(addressBucket(ctx)), (decision) => {
      ctx.decision = decision;
      throw error;
    });
  };

  /** A body refused before it was read (route.readBody): counted against the client address, 429 past its limit, else the refusal. */
  function refusedBody(ctx: RequestContext, error: HttpError): ReturnType<Next> {
    return after(limiter.consume(addressBucket(ctx)), (decision) => {
      ctx.decision = decision;
      throw decision.allowed ? error : rateLimited();
    });
  }

  /** The path, the query and the route they address. */
  const route: ServerStage = (ctx, next) => {
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

  /** The Bearer token's record, when it is valid; public routes take none. A token looked up recently is answered at once. */
  const authenticate: ServerStage = (ctx, next) => {
    if (ctx.route?.scope === 'public') return next();
    const token = parseBearer(ctx.request.header('authorization'));
    if (!token) return next();
    const verified = services.tokens.verify(token);
    if (verified instanceof Promise) return verified.then((auth) => authenticated(ctx, auth, next));
    return authenticated(ctx, verified, next);
  };

  /**
   * A token's requests count against the token and its organization (and the route's lower
   * bucket); public routes with their own bucket count there; everything else against the client
   * address. A public route whose requests prove who sent them (a helpdesk's signature) counts
   * genuine ones in its bucket and forged ones against the address, so forgeries can never use up
   * the quota of the sender they impersonate.
   */
  const rateLimit: ServerStage = (ctx, next) => {
    const route = ctx.route;
    if (ctx.auth) return count(ctx, tokenBuckets(ctx.auth, route), next);
    if (route?.publicBucket && route.genuine) {
      const own = [{ key: route.publicBucket(ctx.params), limit: limits.perOrganization }];
      const body = route.readBody ? route.readBody(ctx) : ctx.request.text();
      return body.then((text) => {
        ctx.bodyText = text;
        let verdict: boolean | Promise<boolean> = false;
        try {
          verdict = route.genuine!(ctx);
        } catch {
          // Treated as forged: the handler gives the precise error.
        }
        const counted = (genuine: boolean) => count(ctx, genuine ? own : addressBucket(ctx), next);
        return verdict instanceof Promise ? verdict.then(counted, () => counted(false)) : counted(verdict);
      }, (error: unknown) => (error instanceof HttpError ? refusedBody(ctx, error) : Promise.reject(error)));
    }
    if (route?.publicBucket) return count(ctx, [{ key: route.publicBucket(ctx.params), limit: limits.perOrganization }], next);
    return count(ctx, addressBucket(ctx), next);
  };

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
    if (ctx.auth && route.scope !== 'any' && route.scope !== 'public' && !ctx.auth.scopes.includes(route.scope as Scope)) throw forbidden();
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
  const idempotency: ServerStage = (ctx, next) => {
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

  /** The route's handler: the answer. */
  const handle: ServerStage = (ctx) => {
    const response = ctx.route!.handler(ctx);
    if (response instanceof Promise) return response.then((r) => void (ctx.response = r));
    ctx.response = response;
  };

  return { refused, route, authenticate, rateLimit, authorize, readBody, idempotency, handle };
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

