/**
 * @module What the proxy's stages share: per proxy, its state (`ProxyState`: options, upstream,
 * limiter, cache); per request, one context (`ProxyContext`) that every stage and route handler
 * reads and completes.
 */
import type { FixedWindowLimiter, RateDecision } from '../protocol/index.js';
import type { ShortCache } from './cache.js';
import type { ResolvedOptions } from './options.js';
import type { Upstream, UpstreamResult } from './upstream.js';
import type { Visitor } from './visitor.js';
import type { KnownVisitor, VisitorIdentity } from './identity.js';
import type { ConversationOwners } from './owners.js';

/** One proxy's state, made once by `createSupportProxy`. */
export interface ProxyState {
  opts: ResolvedOptions;
  upstream: Upstream;
  /** Who is asking beyond the cookie (identify, visitor JWTs), and which conversations are theirs. */
  identity: VisitorIdentity;
  /** Which conversations are whose. */
  owners: ConversationOwners;
  limiter: FixedWindowLimiter;
  /** Concurrent polls of one conversation share one upstream request. */
  inflight: Map<string, Promise<UpstreamResult>>;
  /** Settled conversations, served without asking upstream. */
  cache: ShortCache<UpstreamResult>;
  /** Searches' upstream answers, shared by every visitor asking the same for `searchCacheTtlMs`. */
  searches: ShortCache<UpstreamResult>;
  /** Concurrent identical searches that missed the cache share one upstream request. */
  searching: Map<string, Promise<UpstreamResult>>;
  /** Whether the upstream honours `Prefer: wait`; unknown until it answers once. */
  longPoll: boolean | undefined;
  /** Answer streams open now, per visitor (`streamKey`), for `visitorLimits.streams`. */
  streams: Map<string, number>;
  /** Whether the missing client address was already warned about. */
  warnedNoAddress: boolean;
}

/** A route of the proxy (relative to its basePath), matched by the protocol's Router. */
export interface ProxyRoute {
  method: 'GET' | 'POST';
  pattern: string;
  /** The name the request log gives it. */
  name: string;
  /** The per-visitor limit it counts against. */
  visitorLimit: 'messages' | 'polls' | 'escalations' | 'searches';
  handler(ctx: ProxyContext): Promise<Response>;
}

/** One request's state, passed to each stage; a class, so a request allocates one object. */
export class ProxyContext {
  readonly request: Request;
  readonly state: ProxyState;
  /** The client's address (see stages.ts, clientAddress); undefined when unknown. */
  readonly address: string | undefined;
  readonly log: Record<string, unknown>;
  /** The request URL (set by the `site` stage). */
  url!: URL;
  /** The site's origin as the browser sees it (from X-Forwarded-* with `trustProxy`). */
  origin!: URL;
  /** The path below basePath, or null outside it. */
  path: string | null = null;
  /** CORS headers every answer carries (an allowed cross-origin request's). */
  cors: Record<string, string> = {};
  /** Whether the request's Origin may use the proxy. */
  originAllowed = false;
  route: ProxyRoute | undefined;
  params: Record<string, string> = {};
  /** The visitor (set by the `visitor` stage). */
  visitor!: Visitor;
  visitorIsNew = false;
  /** The signed-in visitor (set by the `identify` stage, identity.ts), or null when anonymous. */
  known: KnownVisitor | null = null;
  /** Of the limits counted so far, the one with the fewest requests left (for the rate-limit headers). */
  rate: RateDecision | undefined;
  response: Response | undefined;

  constructor(request: Request, state: ProxyState, address: string | undefined, log: Record<string, unknown>) {
    this.request = request;
    this.state = state;
    this.address = address;
    this.log = log;
  }
}
