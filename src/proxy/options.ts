/** @module `SupportProxyOptions`: every option with its default, checked when the proxy is created. */
import { isHelpdeskName, type AdditionalFields, type Integration } from '../protocol/index.js';
import { ipv6PrefixLength, trustedHops } from '../protocol/client-address.js';
import { DEFAULT_VISITOR_MAX_AGE_SECONDS } from './visitor.js';
import { checkIdentityOptions, type IdentityTokenOptions, type KnownVisitor } from './identity-options.js';

export interface ProxyLogger {
  info(fields: Record<string, unknown>): void;
  warn(fields: Record<string, unknown>): void;
}

export interface VisitorLimits {
  /** Messages a visitor may send per minute. @default 20 */
  messages: number;
  /** Conversation reads (polls) per minute; a long poll counts once. @default 240 */
  polls: number;
  /** Escalations per minute. @default 5 */
  escalations: number;
  /**
   * Answer streams (`GET {basePath}/chat/:id/events`) one visitor may hold open at once; one more is
   * 429 `rate_limited` until one closes. Opening a stream also counts as a poll. @default 4
   */
  streams: number;
  /**
   * Searches (`GET {basePath}/search`) a visitor may make per minute; a visitor without a cookie is
   * counted by their client address. Searches answered from the shared cache count too. @default 60
   */
  searches: number;
  /**
   * Searches one client address may make per minute, whatever cookies it holds, so that minting
   * cookies does not multiply `searches`; cached answers count too. Room for a few visitors
   * sharing an address (an office, a school). Applies when the client address is known. @default 120
   */
  searchesPerAddress: number;
  /** New visitors one client address may start per minute. @default 30 */
  newVisitorsPerAddress: number;
  /**
   * Upstream requests (messages, uncached polls, escalations) one client address may cause per
   * minute, whatever cookies it holds, so that one address cannot spend the token's quota.
   * Applies when the client address is known (see `trustProxy` and the adapters). @default 60
   */
  perAddress: number;
}

export interface SupportProxyOptions {
  /** Base URL of any v0 API, e.g. `https://api.example.com`. */
  apiBaseUrl: string;
  /** The API token, or a pool of one organization's tokens (requests go to the one with the most quota left). */
  token: string | string[];
  /** Signs visitor cookies; at least 32 characters. Share it between proxy instances. */
  secret: string;
  /** Where the routes live. @default '/api/support' */
  basePath?: string;
  /** Origins allowed to call the proxy from a browser (CORS with credentials). @default [] (same origin only) */
  allowedOrigins?: string[];
  /** The integration escalations go to, and the ticket fields the site owner sets. The browser cannot choose them. @default { integration: 'webhook' } */
  escalation?: { integration: Integration; additionalFields?: AdditionalFields };
  /** Per-visitor limits. @default see VisitorLimits */
  visitorLimits?: Partial<VisitorLimits>;
  /**
   * Upstream request timeout in ms (a long poll adds its wait; a stream must start within it, and
   * is closed when the upstream sends nothing, not even a keepalive, for 45 s or this, whichever is longer). @default 10000
   */
  timeoutMs?: number;
  /**
   * Upstream timeout of an escalation, in ms. It must exceed what the server may spend on one:
   * summarizing the conversation and its helpdesk calls (SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS,
   * 10 s by default, per call). @default 60000
   */
  escalationTimeoutMs?: number;
  /** Retries of safe upstream requests (GET, and POSTs with an Idempotency-Key). @default 2 */
  retries?: number;
  /** How long a completed conversation is served from memory, in ms. @default 5000 */
  cacheTtlMs?: number;
  /** Most conversations held in that cache; the least recently used go first (it also holds at most 32 MiB). @default 1000 */
  cacheSize?: number;
  /**
   * How long a search's results are served to every visitor asking the same (query, limit and
   * page), in ms: a query many visitors type costs one upstream search per this long; 0 turns the
   * cache off. @default 60000
   */
  searchCacheTtlMs?: number;
  /** Most searches held in that cache; the least recently used go first (it also holds at most 8 MiB). @default 1000 */
  searchCacheSize?: number;
  /** Longest `Prefer: wait=N` passed upstream, in seconds. @default 20 */
  maxWaitSeconds?: number;
  /** Name of the visitor cookie. @default 'sc_visitor' */
  cookieName?: string;
  /** How long a visitor cookie holds after it was issued (again with each message), checked by the proxy as well as the browser. @default 2592000 (30 days) */
  visitorMaxAgeSeconds?: number;
  /**
   * Behind a trusted reverse proxy: `true` (one proxy) or the number of proxies in front of this one.
   * The client address is then the `X-Forwarded-For` entry the outermost trusted proxy appended
   * (counted from the right; entries left of it are the client's own and can be forged), and the
   * site's origin for the same-origin check and the cookie's `Secure` comes from
   * `X-Forwarded-Proto` and `X-Forwarded-Host`. Only set it when the reverse proxy sets those headers.
   * @default false
   */
  trustProxy?: boolean | number;
  /**
   * An IPv6 client is counted in the per-address limits by its network of this many bits: one
   * subscriber commonly holds a whole /56 (some a /48, some a /64). @default 56
   */
  ipv6Prefix?: number;
  /**
   * The site's own session decides who is asking: return the signed-in visitor, or null when
   * anonymous. A visitor's conversations then belong to their id on every device. May be async.
   * @default none (every visitor is anonymous, bound by the cookie)
   */
  identify?: (request: Request) => KnownVisitor | null | undefined | Promise<KnownVisitor | null | undefined>;
  /**
   * Visitor JWTs (`Authorization: Bearer`, from the widget's `identityToken`) for a proxy deployed
   * apart from the app: `sub` is the id, `email`/`name` optional, `exp` required and at most 24 h
   * ahead; HS256 with `secret`, RS256/ES256 from `jwksUrl`. A token that does not verify is 401.
   */
  identity?: IdentityTokenOptions;
  /** `required`: a request with no signed-in visitor answers 401 `unauthorized`. @default 'optional' */
  identityMode?: 'optional' | 'required';
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** One line per request; never sees the token. @default no logging */
  logger?: ProxyLogger;
}

export type ResolvedOptions = Required<Omit<SupportProxyOptions, 'token' | 'logger' | 'visitorLimits' | 'escalation' | 'trustProxy' | 'identify' | 'identity' | 'identityMode'>> & {
  identify: SupportProxyOptions['identify'];
  identity: IdentityTokenOptions | undefined;
  identityMode: 'optional' | 'required';
  tokens: string[];
  /** Trusted reverse proxies in front of this one; 0 when none. */
  trustProxy: number;
  logger: ProxyLogger | undefined;
  visitorLimits: VisitorLimits;
  escalation: { integration: Integration; additionalFields?: AdditionalFields };
  allowed: Set<string>;
};

/** Validates options and fills defaults; throws a TypeError naming the bad option. */
export function resolveOptions(options: SupportProxyOptions): ResolvedOptions {
  if (!options || typeof options !== 'object') throw new TypeError('createSupportProxy: options are required');
  let base: URL;
  try {
    base = new URL(options.apiBaseUrl);
  } catch {
    throw new TypeError('createSupportProxy: apiBaseUrl must be an absolute http(s) URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('createSupportProxy: apiBaseUrl must be http(s)');
  const tokens = Array.isArray(options.token) ? options.token : [options.token];
  if (tokens.length === 0 || tokens.some((t) => typeof t !== 'string' || t.length < 8 || /\s/.test(t))) {
    throw new TypeError('createSupportProxy: token must be a non-empty API token or an array of them');
  }
  if (typeof options.secret !== 'string' || options.secret.length < 32) {
    throw new TypeError('createSupportProxy: secret must be at least 32 characters (e.g. 32 random bytes, base64)');
  }
  const basePath = (options.basePath ?? '/api/support').replace(/\/+$/, '');
  if (!/^\/[\w\-./]*$/.test(basePath)) throw new TypeError('createSupportProxy: basePath must start with / and hold only URL path characters');
  const allowedOrigins = options.allowedOrigins ?? [];
  for (const origin of allowedOrigins) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new TypeError(`createSupportProxy: allowedOrigins entry "${origin}" is not an origin`);
    }
    if (parsed.origin !== origin) throw new TypeError(`createSupportProxy: allowedOrigins entry "${origin}" must be an origin like https://www.example.com`);
  }
  const escalation = options.escalation ?? { integration: 'webhook' };
  // Which helpdesks exist is the API server's to say (it answers 400 naming them); here only the shape.
  if (typeof escalation.integration !== 'string' || !isHelpdeskName(escalation.integration)) {
    throw new TypeError('createSupportProxy: escalation.integration must be the name of a helpdesk, such as plain, pylon, linear or webhook');
  }
  const positive = (value: number | undefined, fallback: number, name: string) => {
    const v = value ?? fallback;
    if (!Number.isFinite(v) || v < 0) throw new TypeError(`createSupportProxy: ${name} must be a non-negative number`);
    return v;
  };
  const timeoutMs = positive(options.timeoutMs, 10_000, 'timeoutMs');
  const trustProxy = trustedHops(options.trustProxy, 'createSupportProxy: trustProxy');
  checkIdentityOptions(options);
  return {
    apiBaseUrl: base.href.replace(/\/+$/, ''),
    tokens: [...tokens],
    secret: options.secret,
    basePath,
    allowedOrigins,
    allowed: new Set(allowedOrigins),
    escalation,
    visitorLimits: {
      messages: positive(options.visitorLimits?.messages, 20, 'visitorLimits.messages'),
      polls: positive(options.visitorLimits?.polls, 240, 'visitorLimits.polls'),
      escalations: positive(options.visitorLimits?.escalations, 5, 'visitorLimits.escalations'),
      streams: positive(options.visitorLimits?.streams, 4, 'visitorLimits.streams'),
      searches: positive(options.visitorLimits?.searches, 60, 'visitorLimits.searches'),
      searchesPerAddress: positive(options.visitorLimits?.searchesPerAddress, 120, 'visitorLimits.searchesPerAddress'),
      newVisitorsPerAddress: positive(options.visitorLimits?.newVisitorsPerAddress, 30, 'visitorLimits.newVisitorsPerAddress'),
      perAddress: positive(options.visitorLimits?.perAddress, 60, 'visitorLimits.perAddress'),
    },
    timeoutMs,
    escalationTimeoutMs: positive(options.escalationTimeoutMs, Math.max(60_000, timeoutMs), 'escalationTimeoutMs'),
    retries: positive(options.retries, 2, 'retries'),
    cacheTtlMs: positive(options.cacheTtlMs, 5_000, 'cacheTtlMs'),
    cacheSize: positive(options.cacheSize, 1_000, 'cacheSize'),
    searchCacheTtlMs: positive(options.searchCacheTtlMs, 60_000, 'searchCacheTtlMs'),
    searchCacheSize: positive(options.searchCacheSize, 1_000, 'searchCacheSize'),
    maxWaitSeconds: Math.min(20, positive(options.maxWaitSeconds, 20, 'maxWaitSeconds')),
    cookieName: options.cookieName ?? 'sc_visitor',
    visitorMaxAgeSeconds: positive(options.visitorMaxAgeSeconds, DEFAULT_VISITOR_MAX_AGE_SECONDS, 'visitorMaxAgeSeconds'),
    trustProxy,
    ipv6Prefix: ipv6PrefixLength(options.ipv6Prefix, 'createSupportProxy: ipv6Prefix'),
    fetch: options.fetch ?? globalThis.fetch,
    identify: options.identify,
    identity: options.identity,
    identityMode: options.identityMode ?? 'optional',
    logger: options.logger,
  };
}
