/**
 * @module The stages of the proxy's request pipeline, in order: `site`, `route`, `visitor`,
 * `identify`, `limitVisitor`, `ownership`, `handle`. Each reads and completes the request's ProxyContext and
 * calls `next()`, answers by setting `ctx.response`, or throws an `HttpError` (handler.ts turns
 * every error into a response in one place). Also the one rate-limit entry point (`limit`) and the
 * upstream step (`upstreamFor`), where the organization's quota is spent.
 */
import { addressKey, forwardedClient } from '../protocol/client-address.js';
import { badRequest, forbidden, HttpError, internal, isConversationId, methodNotAllowed, notFound, rateLimited, type Bucket } from '../protocol/index.js';
import type { Router } from '../protocol/router.js';
import type { Stage } from '../protocol/pipeline.js';
import type { ProxyContext, ProxyRoute } from './context.js';
import type { Upstream } from './upstream.js';
import { decodeVisitor, newVisitor, readCookie } from './visitor.js';

export type ProxyStage = Stage<ProxyContext>;

const EXPOSED = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Preference-Applied';

/** What a request can count against: its client address, its address's new visitors, visitor tokens or searches, or its visitor's limit of a kind. */
export type Limit = 'address' | 'newVisitor' | 'token' | 'addressSearches' | ProxyRoute['visitorLimit'];

/** The per-address limits: the bucket's key prefix and the option that sets its size. */
const ADDRESS_LIMITS = {
  address: { prefix: 'addr', option: 'perAddress' },
  newVisitor: { prefix: 'new', option: 'newVisitorsPerAddress' },
  token: { prefix: 'token', option: 'perAddress' },
  addressSearches: { prefix: 'search-addr', option: 'searchesPerAddress' },
} as const;

const isAddressLimit = (name: Limit): name is keyof typeof ADDRESS_LIMITS => name in ADDRESS_LIMITS;

/**
 * The one rate-limit entry point: counts the request once in each of `limits`, all or none, and
 * throws 429 when one is used up. Keeps the decision with the fewest requests left for the headers.
 * Without a client address, the address's limits are off (said once in the log).
 */
export function limit(ctx: ProxyContext, ...limits: Limit[]): void {
  const { opts } = ctx.state;
  const buckets: Bucket[] = [];
  for (const name of limits) {
    if (isAddressLimit(name)) {
      const { prefix, option } = ADDRESS_LIMITS[name];
      if (ctx.address) buckets.push({ key: `${prefix}:${ctx.address}`, limit: opts.visitorLimits[option] });
      else if (!ctx.state.warnedNoAddress) {
        ctx.state.warnedNoAddress = true;
        opts.logger?.warn({ msg: 'no client address: per-address limits are off; pass { remoteAddress } or set trustProxy' });
      }
    } else buckets.push({ key: `${name}:${visitorKey(ctx, name)}`, limit: opts.visitorLimits[name] });
  }
  if (buckets.length === 0) return;
  const decision = ctx.state.limiter.consume(buckets);
  if (!decision.allowed) {
    ctx.rate = decision;
    throw rateLimited();
  }
  if (!ctx.rate || decision.remaining < ctx.rate.remaining) ctx.rate = decision;
}

/**
 * Whom a visitor's limit counts: the visitor of the cookie; for searches, which set no cookie, a
 * visitor without one is their client address (a new random visitor each time would never be limited).
 */
function visitorKey(ctx: ProxyContext, name: ProxyRoute['visitorLimit']): string {
  return name === 'searches' && ctx.visitorIsNew && ctx.address ? `addr:${ctx.address}` : ctx.visitor.id;
}

/**
 * The upstream step, the one place the organization's quota is spent: every call upstream on a
 * visitor's behalf takes the upstream from here, which counts it against the client address first,
 * whatever cookie it holds. Returns the upstream to call once (or for one listing).
 */
export function upstreamFor(ctx: ProxyContext): Upstream {
  limit(ctx, 'address');
  return ctx.state.upstream;
}

/** A refusal before a visitor is known: counted against the client address. */
function refuseEarly(ctx: ProxyContext, error: HttpError): never {
  limit(ctx, 'address');
  throw error;
}

/**
 * The client's address. Behind `trustProxy` hops, the `X-Forwarded-For` entry the outermost
 * trusted proxy appended: counted from the right, since entries further left are whatever the
 * client sent and can be forged.
 */
export function clientAddress(request: Request, trustProxy: number, fallback: string | undefined, ipv6Prefix?: number): string | undefined {
  const address = forwardedClient(request.headers.get('x-forwarded-for'), trustProxy) ?? fallback;
  // Counted per client: an IPv6 address by its network (`ipv6Prefix`).
  return address === undefined ? undefined : addressKey(address, ipv6Prefix);
}

/** The last value of a forwarded header: the one the trusted hop set. */
function forwarded(request: Request, name: string): string | undefined {
  const value = request.headers.get(name)?.split(',').at(-1)?.trim();
  return value || undefined;
}

/** The origin the browser addressed: the request URL's, or the trusted reverse proxy's `X-Forwarded-Proto` and `-Host`. */
function siteOrigin(request: Request, url: URL, trustProxy: number): URL {
  if (trustProxy === 0) return url;
  const proto = forwarded(request, 'x-forwarded-proto')?.toLowerCase();
  const host = forwarded(request, 'x-forwarded-host');
  if (!proto && !host) return url;
  try {
    return new URL(`${proto === 'https' || proto === 'http' ? proto : url.protocol.slice(0, -1)}://${host ?? url.host}`);
  } catch {
    return url;
  }
}

/** The URL, the path below basePath, the site's origin, and whether (and with which CORS headers) the Origin may call. */
export const site: ProxyStage = (ctx, next) => {
  const { opts } = ctx.state;
  try {
    ctx.url = new URL(ctx.request.url);
  } catch {
    throw badRequest('Malformed request URL');
  }
  const pathname = ctx.url.pathname;
  ctx.path = pathname.startsWith(`${opts.basePath}/`) ? pathname.slice(opts.basePath.length) : null;
  ctx.origin = siteOrigin(ctx.request, ctx.url, opts.trustProxy);
  const origin = ctx.request.headers.get('origin');
  // Browsers send Origin on cross-site POSTs and CORS GETs; a cross-site request without one is still refused.
  ctx.originAllowed = origin === null ? ctx.request.headers.get('sec-fetch-site') !== 'cross-site' : origin === ctx.origin.origin || opts.allowed.has(origin);
  if (ctx.originAllowed && origin && origin !== ctx.origin.origin) {
    ctx.cors = { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
  }
  return next();
};

/** The route (404 none, 403 a foreign Origin, a CORS preflight answered, 405 another method). */
export function route(router: Router<ProxyRoute>): ProxyStage {
  return (ctx, next) => {
    const method = ctx.request.method;
    const match = ctx.path === null ? { route: undefined, allowed: [] } : router.match(method, ctx.path);
    const allowed = match.route ? [match.route.method] : match.allowed;
    if (allowed.length === 0) refuseEarly(ctx, notFound());
    const name = match.route?.name ?? router.match(allowed[0]!, ctx.path!).route?.name;
    ctx.log.route = name;
    if (!ctx.originAllowed) refuseEarly(ctx, forbidden('Origin not allowed'));
    const methods = allowed.join(', ');
    if (method === 'OPTIONS') {
      ctx.response = new Response(null, {
        status: 204,
        headers: {
          'Access-Control-Allow-Methods': `${methods}, OPTIONS`,
          'Access-Control-Allow-Headers': 'Content-Type, Prefer, Idempotency-Key, Authorization, Last-Event-ID',
          'Access-Control-Max-Age': '600',
        },
      });
      return;
    }
    if (!match.route) refuseEarly(ctx, methodNotAllowed(method, methods));
    ctx.route = match.route;
    ctx.params = match.params;
    return next();
  };
}

/** Who is asking: the visitor of the signed cookie, or a new one (a signed-in visitor is the `identify` stage's). */
export const visitor: ProxyStage = (ctx, next) => {
  const { opts } = ctx.state;
  const fromCookie = decodeVisitor(opts.secret, readCookie(ctx.request.headers.get('cookie'), opts.cookieName), opts.visitorMaxAgeSeconds);
  ctx.visitor = fromCookie ?? newVisitor();
  ctx.visitorIsNew = !fromCookie;
  ctx.log.visitor = ctx.visitor.id.slice(0, 6);
  return next();
};

/**
 * The signed-in visitor, from the site's session (`identify`) or a visitor JWT (`identity`); null
 * when anonymous. A token that does not verify, or no visitor in `required` mode, is 401, counted
 * against the client address like every refusal before a visitor is known.
 */
export const identify: ProxyStage = async (ctx, next) => {
  // A visitor token is verified (with `jwksUrl`, perhaps after fetching the key set) only within
  // its address's limit: one past it is 429 before any of that work.
  if (ctx.state.opts.identity && ctx.request.headers.has('authorization')) limit(ctx, 'token');
  try {
    ctx.known = await ctx.state.identity.resolve(ctx.request);
  } catch (error) {
    refuseEarly(ctx, error instanceof HttpError ? error : internal());
  }
  return next();
};

/**
 * The visitor's limit of the route's kind; a new visitor's first message also counts in its
 * address's new-visitor limit, and every search in its address's search limit (a fresh cookie is
 * a fresh visitor, so the visitor's limit alone would grow with each cookie minted).
 */
export const limitVisitor: ProxyStage = (ctx, next) => {
  const route = ctx.route!;
  if (route.name === 'send' && ctx.visitorIsNew) limit(ctx, 'newVisitor', route.visitorLimit);
  else if (route.visitorLimit === 'searches') limit(ctx, 'addressSearches', route.visitorLimit);
  else limit(ctx, route.visitorLimit);
  return next();
};

/**
 * A conversation in the path must be this visitor's (owners.ts, `ensureOwns`): an anonymous
 * visitor's is in their cookie, a signed-in visitor's was started by their id. Anyone else's is 404.
 */
export const ownership: ProxyStage = async (ctx, next) => {
  const id = ctx.params.id;
  if (id !== undefined) {
    if (!isConversationId(id)) throw notFound();
    await ctx.state.owners.ensureOwns(ctx, () => upstreamFor(ctx), id);
  }
  return next();
};

/** The route's handler: the answer. */
export const handle: ProxyStage = async (ctx) => {
  ctx.response = await ctx.route!.handler(ctx);
};
