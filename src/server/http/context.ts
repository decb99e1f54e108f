/**
 * @module The one object a request's stages and its handler share (as Hono's `Context`): what the
 * stages learned (route, token, rate decision, body), the log line, and the response. A class, so
 * a request allocates one object and no closures.
 */
import type { EndpointBucket, RateDecision } from './rate-limit.js';
import type { ApiRequest, ApiResponse } from './exchange.js';
import type { Route, RouteContext } from './router.js';
import type { Services } from './services.js';
import type { TokenRecord } from '../store/tokens.js';
import { parseJsonObject } from './body.js';

/** The request's log line: one per request, written when it is answered. */
export interface RequestLog {
  msg: string;
  id: string;
  method: string;
  [field: string]: unknown;
}

// Shared empty values, so a request that matches no route allocates none.
const NONE: readonly string[] = Object.freeze([]);
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class RequestContext implements RouteContext {
  readonly request: ApiRequest;
  readonly services: Services;
  readonly remoteAddress: string;
  readonly log: RequestLog;
  /** Path without the query (set by the `route` stage). */
  pathname = '';
  /** The query string with its `?`, or empty. */
  search = '';
  /** The matched route; undefined when none is (the `authorize` stage answers 404 or 405). */
  route: Route | undefined;
  /** Methods the path allows when no route matched the method. */
  allowed: readonly string[] = NONE;
  params: Record<string, string> = NO_PARAMS;
  /** The verified token; undefined on public routes and without a valid token. */
  auth: TokenRecord | undefined;
  /** Of the limits counted, the decision the response's rate-limit headers report. */
  decision: RateDecision | undefined;
  /** The body as received; undefined until the `readBody` stage (or a stage needing it earlier) read it. */
  bodyText: string | undefined;
  /** On routes that count each call (`countsEach`): counts one (set by the `rateLimit` stage). */
  count: ((bucket?: EndpointBucket) => RateDecision | Promise<RateDecision>) | undefined;
  /** The answer, set by the stage that answers. */
  response: ApiResponse | undefined;
  #query: URLSearchParams | undefined;
  #parsed: Record<string, unknown> | undefined;

  constructor(request: ApiRequest, services: Services, log: RequestLog) {
    this.request = request;
    this.services = services;
    this.remoteAddress = request.remoteAddress;
    this.log = log;
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.search));
  }

  body(): Record<string, unknown> {
    return (this.#parsed ??= parseJsonObject(this.bodyText ?? ''));
  }

  rawBody(): string {
    return this.bodyText ?? '';
  }
}
