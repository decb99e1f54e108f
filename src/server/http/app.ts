/**
 * @module The v0 API's request pipeline: named stages (stages.ts) composed over one context
 * (context.ts), one error path, one log line per request. To add a stage, write it in stages.ts
 * and put it in `STAGE_ORDER` below (docs/server.md, "Adding a stage").
 */
import { randomUUID } from 'node:crypto';
import { setRateLimitHeaders } from '../../protocol/index.js';
import { compose, type MaybePromise } from '../../protocol/pipeline.js';
import type { ConnectionInfo } from '../../protocol/node-http.js';
import { RequestContext, type RequestLog } from './context.js';
import { fromFetch, toFetchResponse, type ApiRequest, type ApiResponse } from './exchange.js';
import { HttpError, internal } from './errors.js';
import type { RateDecision, RateLimiter, RateLimits } from './rate-limit.js';
import type { Router } from './router.js';
import type { Services } from './services.js';
import { serverStages } from './stages.js';

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
  /** An IPv6 client is counted by its network of this many bits. @default 56 */
  ipv6Prefix?: number;
}

/** The stages every request goes through, in order; each may answer and stop the rest. */
const STAGE_ORDER = ['refused', 'route', 'authenticate', 'rateLimit', 'authorize', 'readBody', 'idempotency', 'handle'] as const;

/** Builds the fetch handler `(Request, info?) => Promise<Response>` of the v0 API. */
export function createApp({ router, services, limiter, limits, changes, trustProxy, ipv6Prefix }: AppOptions) {
  const { logger } = services;
  /** The one place an error becomes a response; an unexpected one is logged and answered 500. */
  function toErrorResponse(error: unknown, ctx: RequestContext): ApiResponse {
    if (error instanceof HttpError) return toResponse(error);
    ctx.log.error = error instanceof Error ? error.message : String(error);
    return toResponse(internal());
  }

  const stages = serverStages({ router, services, limiter, limits, trustProxy: trustProxy ?? 0, ipv6Prefix, toErrorResponse });
  const run = compose(STAGE_ORDER.map((name) => stages[name]));

  function finish(ctx: RequestContext, started: number): ApiResponse {
    const response = ctx.response ?? toResponse(internal());
    setRateLimitHeaders(response.headers, ctx.decision ?? fallbackDecision(limits));
    response.headers['X-Request-Id'] = ctx.log.id;
    ctx.log.status = response.status;
    ctx.log.ms = Math.round((performance.now() - started) * 10) / 10;
    if (response.status >= 500) logger.error(ctx.log);
    else logger.info(ctx.log);
    return response;
  }

  /** The whole pipeline; a Promise only when something had to wait. Never throws or rejects. */
  function handle(request: ApiRequest): MaybePromise<ApiResponse> {
    const started = performance.now();
    const log: RequestLog = { msg: 'request', id: randomUUID(), method: request.method };
    const ctx = new RequestContext(request, services, log);
    let result: MaybePromise<void>;
    changes?.pin();
    try {
      result = run(ctx);
    } catch (error) {
      ctx.response = toErrorResponse(error, ctx);
    } finally {
      // Whatever runs after an await reads other processes' commits afresh.
      changes?.unpin();
    }
    if (result! instanceof Promise) {
      return result.then(
        () => finish(ctx, started),
        (error: unknown) => {
          ctx.response = toErrorResponse(error, ctx);
          return finish(ctx, started);
        },
      );
    }
    return finish(ctx, started);
  }

  return {
    /** The pipeline on plain request and response objects (Node's http adapter calls this). */
    handle,
    /** The API as a fetch handler. */
    fetch: async (request: Request, info?: ConnectionInfo): Promise<Response> => toFetchResponse(await handle(fromFetch(request, info?.remoteAddress ?? 'unknown'))),
  };
}

/** An error as its response: the spec's JSON body and the error's headers. */
function toResponse(error: HttpError): ApiResponse {
  return { status: error.status, headers: { 'content-type': 'application/json', ...error.headers }, body: JSON.stringify(error.toBody()) };
}

/** Headers for the rare response made before any limit was consulted (a malformed URL). */
function fallbackDecision(limits: RateLimits): RateDecision {
  const reset = Math.ceil((Math.floor(Date.now() / 60_000) + 1) * 60);
  return { allowed: true, limit: limits.perAddress, remaining: limits.perAddress, reset, retryAfter: 0 };
}
