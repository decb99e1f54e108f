/** @module `createSupportProxy`: the backend-for-frontend between `<support-chat>` and a v0 API. */
import { createHash, randomUUID } from 'node:crypto';
import {
  FEEDBACK_COMMENT_MAX_LENGTH,
  FixedWindowLimiter,
  HttpError,
  isConversationId,
  isErrorBody,
  MESSAGES,
  parseJsonObject,
  parseRetryAfter,
  readCappedText,
  readMessage,
  rateLimited,
  setRateLimitHeaders,
  type Bucket,
  type RateDecision,
} from '../protocol/index.js';
import { errorResponse, NetworkError, TimeoutError } from './errors.js';
import { TtlLruCache } from './cache.js';
import { resolveOptions, type SupportProxyOptions } from './options.js';
import { Upstream, type UpstreamResult } from './upstream.js';
import { decodeVisitor, encodeVisitor, MAX_CONVERSATIONS, newVisitor, readCookie, type Visitor } from './visitor.js';
import { VisitorIdentity, type KnownVisitor } from './identity.js';

/** Upstream headers the browser may see; everything else (cookies, server details) stays behind. */
const PASSED_HEADERS = ['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'preference-applied'];
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const EXPOSED = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Preference-Applied';
/** Most bytes of settled conversations the cache holds, whatever `cacheSize` says. */
const CACHE_MAX_BYTES = 32 * 1024 * 1024;
/** `Retry-After` of "escalation still in progress" when the upstream gives none, in seconds. */
const IN_PROGRESS_RETRY_AFTER = 5;

type Handler = (request: Request, info?: { remoteAddress?: string }) => Promise<Response>;

/** One request's state, passed to each stage. */
interface Context {
  request: Request;
  /** The site's origin as the browser sees it (from X-Forwarded-* with `trustProxy`). */
  origin: URL;
  visitor: Visitor;
  visitorIsNew: boolean;
  /** The signed-in visitor (identity.ts), or null when anonymous. */
  known: KnownVisitor | null;
  address: string | undefined;
  /** Of the limits counted so far, the one with the fewest requests left. */
  rate: RateDecision | undefined;
  log: Record<string, unknown>;
}

/**
 * Creates the proxy's fetch handler. It serves `POST {basePath}/chat`, `GET {basePath}/chat/:id`,
 * `POST {basePath}/chat/:id/escalate` and `POST {basePath}/chat/:id/feedback`, and nothing else.
 *
 * @example
 * const proxy = createSupportProxy({ apiBaseUrl: 'http://127.0.0.1:8787', token: process.env.SUPPORT_API_TOKEN!, secret: process.env.SUPPORT_PROXY_SECRET! });
 * export const GET = proxy, POST = proxy, OPTIONS = proxy; // Next.js route handler
 */
export function createSupportProxy(options: SupportProxyOptions): Handler {
  const opts = resolveOptions(options);
  const upstream = new Upstream(opts);
  const identity = new VisitorIdentity(opts, upstream);
  const limiter = new FixedWindowLimiter();
  const inflight = new Map<string, Promise<UpstreamResult>>();
  const cache = new TtlLruCache<UpstreamResult>({ ttlMs: opts.cacheTtlMs, maxEntries: opts.cacheSize, maxBytes: CACHE_MAX_BYTES });
  /** Whether the upstream honours `Prefer: wait`; unknown until it answers once. */
  let longPoll: boolean | undefined;
  let warnedNoAddress = false;

  /** The last value of a forwarded header: the one the trusted hop set. */
  function forwarded(request: Request, name: string): string | undefined {
    const value = request.headers.get(name)?.split(',').at(-1)?.trim();
    return value || undefined;
  }

  /** The origin the browser addressed: the request URL's, or the trusted reverse proxy's `X-Forwarded-Proto` and `-Host`. */
  function siteOrigin(request: Request, url: URL): URL {
    if (opts.trustProxy === 0) return url;
    const proto = forwarded(request, 'x-forwarded-proto')?.toLowerCase();
    const host = forwarded(request, 'x-forwarded-host');
    if (!proto && !host) return url;
    try {
      return new URL(`${proto === 'https' || proto === 'http' ? proto : url.protocol.slice(0, -1)}://${host ?? url.host}`);
    } catch {
      return url;
    }
  }

  function originAllowed(request: Request, site: URL): { ok: boolean; origin: string | null } {
    const origin = request.headers.get('origin');
    if (origin === null) {
      // Browsers send Origin on cross-site POSTs and CORS GETs; a cross-site request without one is still refused.
      return { ok: request.headers.get('sec-fetch-site') !== 'cross-site', origin: null };
    }
    return { ok: origin === site.origin || opts.allowed.has(origin), origin };
  }

  function corsHeaders(origin: string | null, site: URL): Record<string, string> {
    if (!origin || origin === site.origin) return {};
    return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
  }

  function cookieHeader(ctx: Context): string {
    const secure = ctx.origin.protocol === 'https:';
    const crossSite = secure && opts.allowed.size > 0;
    const attributes = [`Path=${opts.basePath || '/'}`, 'HttpOnly', `Max-Age=${60 * 60 * 24 * 30}`, crossSite ? 'SameSite=None' : 'SameSite=Lax'];
    if (secure) attributes.push('Secure');
    return `${opts.cookieName}=${encodeVisitor(opts.secret, ctx.visitor)}; ${attributes.join('; ')}`;
  }

  /**
   * The client's address. Behind `trustProxy` hops, the `X-Forwarded-For` entry the outermost
   * trusted proxy appended: counted from the right, since entries further left are whatever the
   * client sent and can be forged.
   */
  function clientAddress(request: Request, fallback: string | undefined): string | undefined {
    if (opts.trustProxy > 0) {
      const entries = (request.headers.get('x-forwarded-for') ?? '').split(',').map((e) => e.trim()).filter(Boolean);
      const entry = entries[entries.length - opts.trustProxy];
      if (entry) return entry;
    }
    return fallback;
  }

  /** Counts one request in each bucket; throws 429 when one is used up. Keeps the decision with the fewest requests left for the headers. */
  function count(ctx: Pick<Context, 'rate'>, buckets: Bucket[]): void {
    const decision = limiter.consume(buckets);
    if (!decision.allowed) {
      ctx.rate = decision;
      throw rateLimited();
    }
    if (!ctx.rate || decision.remaining < ctx.rate.remaining) ctx.rate = decision;
  }

  /** Per-visitor limit of one kind of request. */
  function limitVisitor(ctx: Context, kind: 'messages' | 'polls' | 'escalations'): void {
    count(ctx, [{ key: `${kind}:${ctx.visitor.id}`, limit: opts.visitorLimits[kind] }]);
  }

  /** A request about to spend the organization's quota counts against its client address, whatever cookie it holds. */
  function spend(ctx: Context): void {
    if (ctx.address) count(ctx, [{ key: `addr:${ctx.address}`, limit: opts.visitorLimits.perAddress }]);
    else if (!warnedNoAddress) {
      warnedNoAddress = true;
      opts.logger?.warn({ msg: 'no client address: per-address limits are off; pass { remoteAddress } or set trustProxy' });
    }
  }

  async function readJson(request: Request): Promise<Record<string, unknown>> {
    const type = request.headers.get('content-type') ?? '';
    if (!/^application\/json\b/i.test(type) && type !== '') throw new HttpError(400, 'bad_request', 'Content-Type must be application/json');
    return parseJsonObject(await readCappedText(request.body, { declaredLength: request.headers.get('content-length') }));
  }

  /** Relays an upstream answer: 401/403 mean the proxy's token is wrong, which is not the visitor's business. */
  function relay(result: UpstreamResult, ctx: Context, extra: Record<string, string> = {}): Response {
    if (result.status === 401 || result.status === 403) {
      opts.logger?.warn({ msg: 'upstream refused the proxy token', status: result.status });
      return errorResponse(502, 'internal_error', 'The support service is not available right now', { retryable: false });
    }
    if (!result.headers.get('content-type')?.includes('json')) {
      return errorResponse(502, 'internal_error', 'The support service answered unexpectedly', { retryable: true });
    }
    const headers: Record<string, string> = { ...extra };
    for (const name of PASSED_HEADERS) {
      const value = result.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    // Of the visitor's limits and the organization's, the headers report the one with fewer requests left.
    const upstreamRemaining = Number(result.headers.get('x-ratelimit-remaining') ?? 'Infinity');
    if (ctx.rate && ctx.rate.remaining <= upstreamRemaining) for (const name of RATE_HEADERS) delete headers[name];
    return new Response(result.status === 204 ? null : result.body, { status: result.status, headers });
  }

  async function sendMessage(ctx: Context): Promise<Response> {
    limitVisitor(ctx, 'messages');
    const body = await readJson(ctx.request);
    const message = readMessage(body);
    const conversationId = body.conversation_id;
    if (conversationId !== undefined && conversationId !== null) {
      if (!isConversationId(conversationId)) throw new HttpError(404, 'not_found', MESSAGES.notFound);
      await identity.ensureOwns(ctx, conversationId, () => spend(ctx));
    }
    spend(ctx);
    const visitor = identity.upstreamVisitor(ctx);
    const payload = JSON.stringify(conversationId ? { message, conversation_id: conversationId, visitor } : { message, visitor });
    const result = await upstream.request('POST', '/v0/chat', { body: payload, idempotencyKey: `chat-${randomUUID()}`, signal: ctx.request.signal });
    if (result.status === 202) {
      const id = (JSON.parse(result.body) as { conversation_id?: unknown }).conversation_id;
      if (!isConversationId(id)) return errorResponse(502, 'internal_error', 'The support service answered unexpectedly', { retryable: true });
      if (ctx.known) identity.started(ctx, id);
      else ctx.visitor.conversations = [...ctx.visitor.conversations.filter((c) => c !== id), id].slice(-MAX_CONVERSATIONS);
      cache.delete(id);
      const response = relay(result, ctx);
      response.headers.append('Set-Cookie', cookieHeader(ctx));
      return response;
    }
    return relay(result, ctx);
  }

  async function getConversation(ctx: Context, id: string): Promise<Response> {
    const asked = /(?:^|,)\s*wait\s*=\s*(\d{1,3})\s*(?:;|,|$)/i.exec(ctx.request.headers.get('prefer') ?? '');
    const wait = asked && longPoll !== false ? Math.min(Number(asked[1]), opts.maxWaitSeconds) : 0;
    const cached = cache.get(id);
    if (cached) {
      ctx.log.cached = true;
      return relay(cached, ctx, wait ? { 'Preference-Applied': `wait=${wait}` } : {});
    }
    // Concurrent polls of one conversation share one upstream request (and spend quota once).
    const key = `${id}|${wait}`;
    let pending = inflight.get(key);
    if (!pending) {
      spend(ctx);
      pending = upstream.request('GET', `/v0/chat/${id}`, { waitSeconds: wait || undefined }).finally(() => inflight.delete(key));
      inflight.set(key, pending);
    } else ctx.log.shared = true;
    const result = await pending;
    if (wait && result.status === 200) longPoll = result.headers.has('preference-applied');
    if (result.status === 200) {
      try {
        const status = (JSON.parse(result.body) as { status?: unknown }).status;
        if (status === 'completed' || status === 'failed') cache.set(id, result, result.body.length * 2);
      } catch {
        // Not JSON: relay() answers 502.
      }
    }
    return relay(result, ctx);
  }

  async function escalate(ctx: Context, id: string): Promise<Response> {
    const contact = identity.escalationContact(ctx, await readJson(ctx.request));
    spend(ctx);
    // The integration and ticket fields come from the site owner's options, never from the browser.
    const payload: Record<string, unknown> = { integration: opts.escalation.integration, name: contact.name, email: contact.email };
    if (contact.note) payload.note = contact.note;
    if (opts.escalation.additionalFields) payload.additional_fields = opts.escalation.additionalFields;
    const body = JSON.stringify(payload);
    const result = await upstream.request('POST', `/v0/chat/${id}/escalate`, {
      body,
      idempotencyKey: escalationKey(id, body),
      signal: ctx.request.signal,
      timeoutMs: opts.escalationTimeoutMs,
    });
    if (result.status === 200) cache.delete(id);
    if (result.status === 409 && stillInProgress(result.body)) {
      // The ticket is being made (by this request's earlier attempt, or another tab's): not an outcome yet.
      const retryAfter = parseRetryAfter(result.headers.get('retry-after')) ?? IN_PROGRESS_RETRY_AFTER;
      throw new HttpError(409, 'conflict', 'Escalation is still in progress', { retryable: true, headers: { 'Retry-After': String(Math.max(1, retryAfter)) } });
    }
    return relay(result, ctx);
  }

  /** A visitor's rating of an answer in one of their conversations; only the rating, comment and message index go upstream. */
  async function feedback(ctx: Context, id: string): Promise<Response> {
    const body = await readJson(ctx.request);
    if (body.rating !== 'up' && body.rating !== 'down') throw new HttpError(400, 'bad_request', '"rating" must be "up" or "down"');
    const payload: Record<string, unknown> = { rating: body.rating };
    if (body.comment !== undefined && body.comment !== null) {
      if (typeof body.comment !== 'string') throw new HttpError(400, 'bad_request', '"comment" must be a string');
      if (body.comment.length > FEEDBACK_COMMENT_MAX_LENGTH) throw new HttpError(400, 'bad_request', `"comment" must be at most ${FEEDBACK_COMMENT_MAX_LENGTH} characters`);
      payload.comment = body.comment;
    }
    if (body.message_index !== undefined && body.message_index !== null) {
      if (typeof body.message_index !== 'number' || !Number.isSafeInteger(body.message_index) || body.message_index < 0) {
        throw new HttpError(400, 'bad_request', '"message_index" must be a non-negative integer');
      }
      payload.message_index = body.message_index;
    }
    spend(ctx);
    return relay(await upstream.request('POST', `/v0/chat/${id}/feedback`, { body: JSON.stringify(payload), signal: ctx.request.signal }), ctx);
  }

  /** Answers the proxy's own errors: the spec's body, the error's headers. */
  function toResponse(error: unknown, log: Record<string, unknown>): Response {
    if (error instanceof HttpError) return errorResponse(error.status, error.code, error.message, { retryable: error.retryable, headers: error.headers });
    if (error instanceof TimeoutError) return errorResponse(504, 'internal_error', 'The support service did not answer in time', { retryable: true });
    if (error instanceof NetworkError) return errorResponse(502, 'internal_error', 'The support service could not be reached', { retryable: true });
    log.error = error instanceof Error ? error.name : 'unknown';
    return errorResponse(500, 'internal_error', MESSAGES.internal, { retryable: true });
  }

  return async function handle(request: Request, info?: { remoteAddress?: string }): Promise<Response> {
    const started = performance.now();
    const log: Record<string, unknown> = { msg: 'proxy request', method: request.method };
    const address = clientAddress(request, info?.remoteAddress);
    // The limits counted for this request, for its headers (the context takes over once there is a visitor).
    const counted: Pick<Context, 'rate'> = { rate: undefined };
    let cors: Record<string, string> = {};
    let response: Response;
    try {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        throw new HttpError(400, 'bad_request', 'Malformed request URL');
      }
      const path = url.pathname.startsWith(`${opts.basePath}/`) ? url.pathname.slice(opts.basePath.length) : null;
      const parts = path?.split('/').slice(1) ?? [];
      const route =
        path === '/chat'
          ? request.method === 'GET'
            ? 'list'
            : 'send'
          : parts.length === 2 && parts[0] === 'chat'
            ? 'get'
            : parts.length === 3 && parts[0] === 'chat' && (parts[2] === 'escalate' || parts[2] === 'feedback')
              ? parts[2]
              : null;
      const allowedMethods = route === 'get' || route === 'list' ? 'GET' : 'POST';
      const site = siteOrigin(request, url);
      const { ok, origin } = originAllowed(request, site);
      if (ok) cors = corsHeaders(origin, site);
      // Refusals before a visitor is known count against the client address.
      function refuseEarly(error: HttpError): never {
        if (address) count(counted, [{ key: `addr:${address}`, limit: opts.visitorLimits.perAddress }]);
        throw error;
      }
      if (!route) refuseEarly(new HttpError(404, 'not_found', MESSAGES.notFound));
      log.route = route;
      if (!ok) refuseEarly(new HttpError(403, 'forbidden', 'Origin not allowed'));
      if (request.method === 'OPTIONS') {
        response = new Response(null, {
          status: 204,
          headers: {
            'Access-Control-Allow-Methods': path === '/chat' ? 'GET, POST, OPTIONS' : `${allowedMethods}, OPTIONS`,
            'Access-Control-Allow-Headers': 'Content-Type, Prefer, Idempotency-Key, Authorization',
            'Access-Control-Max-Age': '600',
          },
        });
      } else if (request.method !== allowedMethods) {
        refuseEarly(new HttpError(405, 'bad_request', `Method ${request.method} is not allowed here; use ${allowedMethods}`, { headers: { Allow: `${allowedMethods}, OPTIONS` } }));
      } else {
        const fromCookie = decodeVisitor(opts.secret, readCookie(request.headers.get('cookie'), opts.cookieName));
        const known = await identity.resolve(request).catch((error: unknown) => refuseEarly(error instanceof HttpError ? error : new HttpError(500, 'internal_error', MESSAGES.internal, { retryable: true })));
        const ctx: Context = { request, origin: site, visitor: fromCookie ?? newVisitor(), visitorIsNew: !fromCookie, known, address, rate: undefined, log };
        log.visitor = ctx.visitor.id.slice(0, 6);
        try {
          if (route === 'send') {
            // New visitors are limited per client address, when it is known.
            if (ctx.visitorIsNew && address) count(ctx, [{ key: `new:${address}`, limit: opts.visitorLimits.newVisitorsPerAddress }]);
            response = await sendMessage(ctx);
          } else if (route === 'list') {
            limitVisitor(ctx, 'polls');
            response = Response.json(await identity.list(ctx, () => spend(ctx)));
          } else {
            const id = parts[1]!;
            limitVisitor(ctx, route === 'get' ? 'polls' : route === 'feedback' ? 'messages' : 'escalations');
            // Ids never issued to this visitor are refused here, before any upstream call.
            if (!isConversationId(id)) throw new HttpError(404, 'not_found', MESSAGES.notFound);
            await identity.ensureOwns(ctx, id, () => spend(ctx));
            response = route === 'get' ? await getConversation(ctx, id) : route === 'feedback' ? await feedback(ctx, id) : await escalate(ctx, id);
          }
        } finally {
          counted.rate = ctx.rate;
        }
      }
    } catch (error) {
      response = toResponse(error, log);
    }
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
    // Every answer carries rate limit headers, as the API's do: the upstream's when relayed, else the proxy's.
    if (!response.headers.has('x-ratelimit-limit')) {
      const headers = setRateLimitHeaders({}, counted.rate ?? unusedWindow(opts.visitorLimits.perAddress));
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    }
    response.headers.set('Cache-Control', 'no-store');
    log.status = response.status;
    log.ms = Math.round((performance.now() - started) * 10) / 10;
    opts.logger?.info(log);
    return response;
  };
}

/**
 * The `Idempotency-Key` of an escalation (docs/idempotency.md): the same conversation and the same
 * request give the same key, so a resent form replays its outcome; a corrected form is a new
 * request with its own key, and the conversation's one-ticket rule (409) still holds.
 */
export function escalationKey(conversationId: string, body: string): string {
  return `escalate-${conversationId}-${createHash('sha256').update(body).digest('base64url').slice(0, 22)}`;
}

/** Whether an upstream 409 says the escalation is still being made (rather than done, or the answer still processing). */
function stillInProgress(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return isErrorBody(parsed) && /in progress/i.test(parsed.error.message);
  } catch {
    return false;
  }
}

/** The headers of a window nothing has counted in (a request refused before any limit applied). */
function unusedWindow(limit: number): RateDecision {
  const now = Date.now();
  return { allowed: true, limit, remaining: limit, reset: Math.ceil((Math.floor(now / 60_000) + 1) * 60), retryAfter: 0 };
}
