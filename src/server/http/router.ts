/** @module The server's routes as data: method, path pattern, scope, rate-limit bucket, handler; matched by the protocol's Router. */
import type { Scope } from '../../protocol/index.js';
import { Router as SharedRouter, type Match } from '../../protocol/router.js';
import type { TokenRecord } from '../store/tokens.js';
import type { ApiRequest, ApiResponse } from './exchange.js';
import type { EndpointBucket, RateDecision } from './rate-limit.js';
import type { Services } from './services.js';

export interface RouteContext {
  request: ApiRequest;
  /** The query string's parameters. */
  query: URLSearchParams;
  params: Record<string, string>;
  /** The verified token; undefined on public routes. */
  auth: TokenRecord | undefined;
  services: Services;
  /** The request body as JSON; only on POST routes. */
  body(): Record<string, unknown>;
  /** The request body exactly as received (for signature checks); empty on GET and DELETE. */
  rawBody(): string;
  /** Client address as the server saw it. */
  remoteAddress: string;
  /**
   * On routes that count their own calls (`countsEach`): counts one call against the token's
   * limits, as a request to a route of `bucket` is counted. The decision is the response's
   * rate-limit headers' (the last one, or the first refusal).
   */
  count?(bucket?: EndpointBucket): RateDecision | Promise<RateDecision>;
}

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path with `:name` segments, e.g. `/v0/chat/:id`. */
  pattern: string;
  /** The scope a token needs; `any` for any valid token; `public` for no token. */
  scope: Scope | 'any' | 'public';
  /** The route's own per-organization bucket: a lower limit besides the token's, or one standing alone (`STANDALONE_BUCKETS`). */
  bucket?: EndpointBucket;
  /**
   * The handler counts the request's calls itself, through `count()`, because one request carries
   * several (a JSON-RPC batch): each is counted as its HTTP twin would be. Token requests only.
   */
  countsEach?: boolean;
  /**
   * For public routes: the key of the bucket their requests count in, at the organization's limit,
   * instead of the client address's (helpdesks deliver webhooks from shared addresses in bursts).
   */
  publicBucket?(params: Record<string, string>): string;
  /**
   * For public routes with a `publicBucket`: whether the request is genuine (e.g. signed by the
   * sender it claims to be), judged from its body before it is counted. Only genuine requests
   * count in `publicBucket`; the others count against the client address. A promise where
   * judging reads the database (the sender's secret).
   */
  genuine?(ctx: RouteContext): boolean | Promise<boolean>;
  /**
   * For routes with `genuine`: reads the body (`rawBody()` is empty until it is read), first
   * refusing with an HttpError what can never be genuine, so such requests are not buffered; a
   * refusal counts against the client address. @default the whole body, up to the usual cap
   */
  readBody?(ctx: RouteContext): Promise<string>;
  /** Honour `Idempotency-Key`. */
  idempotent?: boolean;
  handler(ctx: RouteContext): Promise<ApiResponse> | ApiResponse;
}

export type RouteMatch = Match<Route>;

/** The server's routes, matched by the protocol's one router (the proxy's too). */
export class Router extends SharedRouter<Route> {}
