/** @module `createSupportProxy`: the backend-for-frontend between `<support-chat>` and a v0 API. */
import { randomUUID } from 'node:crypto';
import { FEEDBACK_COMMENT_MAX_LENGTH, isPlausibleEmail, MAX_BODY_BYTES, MESSAGE_MAX_LENGTH, MESSAGES, NAME_MAX_LENGTH, type ErrorCode } from '../protocol/index.js';
import { errorResponse, NetworkError, TimeoutError } from './errors.js';
import { WindowLimiter } from './limiter.js';
import { resolveOptions, type SupportProxyOptions } from './options.js';
import { Upstream, type UpstreamResult } from './upstream.js';
import { decodeVisitor, encodeVisitor, MAX_CONVERSATIONS, newVisitor, readCookie, type Visitor } from './visitor.js';

const ID = /^[A-Za-z0-9_-]{1,128}$/;
/** Upstream headers the browser may see; everything else (cookies, server details) stays behind. */
const PASSED_HEADERS = ['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'preference-applied'];
const EXPOSED = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Preference-Applied';

type Handler = (request: Request, info?: { remoteAddress?: string }) => Promise<Response>;

interface Context {
  request: Request;
  url: URL;
  origin: string | null;
  visitor: Visitor;
  visitorIsNew: boolean;
  address: string | undefined;
  log: Record<string, unknown>;
}

class Refusal extends Error {
  constructor(readonly response: Response) {
    super('refused');
  }
}

const refuse = (status: number, code: ErrorCode, message: string, headers?: Record<string, string>) =>
  new Refusal(errorResponse(status, code, message, { headers }));

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
  const limiter = new WindowLimiter();
  const inflight = new Map<string, Promise<UpstreamResult>>();
  const cache = new Map<string, { until: number; result: UpstreamResult }>();
  /** Whether the upstream honours `Prefer: wait`; unknown until it answers once. */
  let longPoll: boolean | undefined;

  function originAllowed(request: Request, url: URL): { ok: boolean; origin: string | null } {
    const origin = request.headers.get('origin');
    if (origin === null) {
      // Browsers send Origin on cross-site POSTs and CORS GETs; a cross-site request without one is still refused.
      return { ok: request.headers.get('sec-fetch-site') !== 'cross-site', origin: null };
    }
    return { ok: origin === url.origin || opts.allowed.has(origin), origin };
  }

  function corsHeaders(origin: string | null, url: URL): Record<string, string> {
    if (!origin || origin === url.origin) return {};
    return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
  }

  function cookieHeader(ctx: Context): string {
    const secure = ctx.url.protocol === 'https:';
    const crossSite = secure && opts.allowed.size > 0;
    const attributes = [`Path=${opts.basePath || '/'}`, 'HttpOnly', `Max-Age=${60 * 60 * 24 * 30}`, crossSite ? 'SameSite=None' : 'SameSite=Lax'];
    if (secure) attributes.push('Secure');
    return `${opts.cookieName}=${encodeVisitor(opts.secret, ctx.visitor)}; ${attributes.join('; ')}`;
  }

  function clientAddress(request: Request, fallback: string | undefined): string | undefined {
    if (opts.trustProxy) {
      const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
      if (forwarded) return forwarded;
    }
    return fallback;
  }

  function limit(ctx: Context, kind: 'messages' | 'polls' | 'escalations'): Record<string, string> {
    const result = limiter.take(`${kind}:${ctx.visitor.id}`, opts.visitorLimits[kind]);
    if (!result.allowed) throw new Refusal(errorResponse(429, 'rate_limited', MESSAGES.rateLimited, { retryable: true, headers: result.headers }));
    return result.headers;
  }

  async function readJson(request: Request): Promise<Record<string, unknown>> {
    const type = request.headers.get('content-type') ?? '';
    if (!/^application\/json\b/i.test(type) && type !== '') throw refuse(400, 'bad_request', 'Content-Type must be application/json');
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > MAX_BODY_BYTES) throw refuse(413, 'bad_request', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
    const reader = request.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        void reader.cancel().catch(() => undefined);
        throw refuse(413, 'bad_request', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
      }
      chunks.push(value);
    }
    let value: unknown;
    try {
      value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw refuse(400, 'bad_request', MESSAGES.invalidJson);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse(400, 'bad_request', 'Request body must be a JSON object');
    return value as Record<string, unknown>;
  }

  /** Relays an upstream answer: 401/403 mean the proxy's token is wrong, which is not the visitor's business. */
  function relay(result: UpstreamResult, extra: Record<string, string> = {}): Response {
    if (result.status === 401 || result.status === 403) {
      opts.logger?.warn({ msg: 'upstream refused the proxy token', status: result.status });
      return errorResponse(502, 'internal_error', 'The support service is not available right now', { retryable: false, headers: extra });
    }
    const headers: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = result.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    // Of the visitor's limit and the organization's, the headers report the one with fewer requests left.
    const upstreamRemaining = Number(result.headers.get('x-ratelimit-remaining') ?? 'Infinity');
    if (extra['X-RateLimit-Remaining'] !== undefined && Number(extra['X-RateLimit-Remaining']) <= upstreamRemaining) {
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) delete headers[name];
    } else {
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) delete extra[name];
    }
    Object.assign(headers, extra);
    if (!result.headers.get('content-type')?.includes('json')) {
      return errorResponse(502, 'internal_error', 'The support service answered unexpectedly', { retryable: true, headers: extra });
    }
    return new Response(result.status === 204 ? null : result.body, { status: result.status, headers });
  }

  async function sendMessage(ctx: Context): Promise<Response> {
    const limits = limit(ctx, 'messages');
    const body = await readJson(ctx.request);
    const message = body.message;
    if (typeof message !== 'string') throw refuse(400, 'bad_request', '"message" is required and must be a string');
    if (message.trim().length === 0) throw refuse(400, 'bad_request', '"message" must not be empty');
    if (message.length > MESSAGE_MAX_LENGTH) throw refuse(400, 'bad_request', `"message" must be at most ${MESSAGE_MAX_LENGTH} characters`);
    const conversationId = body.conversation_id;
    if (conversationId !== undefined && conversationId !== null) {
      if (typeof conversationId !== 'string' || !ID.test(conversationId) || !ctx.visitor.conversations.includes(conversationId)) {
        throw refuse(404, 'not_found', MESSAGES.notFound);
      }
    }
    const payload = JSON.stringify(conversationId ? { message, conversation_id: conversationId } : { message });
    const result = await upstream.request('POST', '/v0/chat', { body: payload, idempotencyKey: `chat-${randomUUID()}`, signal: ctx.request.signal });
    if (result.status === 202) {
      const id = (JSON.parse(result.body) as { conversation_id?: unknown }).conversation_id;
      if (typeof id === 'string' && ID.test(id)) {
        ctx.visitor.conversations = [...ctx.visitor.conversations.filter((c) => c !== id), id].slice(-MAX_CONVERSATIONS);
        cache.delete(id);
        return withCookie(relay(result, limits), ctx);
      }
      return errorResponse(502, 'internal_error', 'The support service answered unexpectedly', { retryable: true });
    }
    return relay(result, limits);
  }

  async function getConversation(ctx: Context, id: string): Promise<Response> {
    const limits = limit(ctx, 'polls');
    const asked = /(?:^|,)\s*wait\s*=\s*(\d{1,3})\s*(?:;|,|$)/i.exec(ctx.request.headers.get('prefer') ?? '');
    const wait = asked && longPoll !== false ? Math.min(Number(asked[1]), opts.maxWaitSeconds) : 0;
    const cached = cache.get(id);
    if (cached && cached.until > Date.now()) {
      ctx.log.cached = true;
      return relay(cached.result, { ...limits, ...(wait ? { 'Preference-Applied': `wait=${wait}` } : {}) });
    }
    // Concurrent polls of one conversation share one upstream request.
    const key = `${id}|${wait}`;
    let pending = inflight.get(key);
    if (!pending) {
      pending = upstream.request('GET', `/v0/chat/${id}`, { waitSeconds: wait || undefined }).finally(() => inflight.delete(key));
      inflight.set(key, pending);
    } else ctx.log.shared = true;
    const result = await pending;
    if (wait && result.status === 200) longPoll = result.headers.has('preference-applied');
    if (result.status === 200) {
      try {
        const status = (JSON.parse(result.body) as { status?: unknown }).status;
        if ((status === 'completed' || status === 'failed') && opts.cacheTtlMs > 0) cache.set(id, { until: Date.now() + opts.cacheTtlMs, result });
      } catch {
        // Not JSON: relay() answers 502.
      }
    }
    return relay(result, limits);
  }

  async function escalate(ctx: Context, id: string): Promise<Response> {
    const limits = limit(ctx, 'escalations');
    const body = await readJson(ctx.request);
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    if (!name) throw refuse(400, 'bad_request', '"name" is required');
    if (name.length > NAME_MAX_LENGTH) throw refuse(400, 'bad_request', `"name" must be at most ${NAME_MAX_LENGTH} characters`);
    if (!email) throw refuse(400, 'bad_request', '"email" is required');
    if (!isPlausibleEmail(email)) throw refuse(400, 'bad_request', '"email" must be an email address');
    // The integration and ticket fields come from the site owner's options, never from the browser.
    const payload: Record<string, unknown> = { integration: opts.escalation.integration, name, email };
    if (opts.escalation.additionalFields) payload.additional_fields = opts.escalation.additionalFields;
    const result = await upstream.request('POST', `/v0/chat/${id}/escalate`, { body: JSON.stringify(payload), idempotencyKey: `escalate-${id}`, signal: ctx.request.signal });
    if (result.status === 200) cache.delete(id);
    return relay(result, limits);
  }

  /** A visitor's rating of an answer in one of their conversations; only the rating, comment and message index go upstream. */
  async function feedback(ctx: Context, id: string): Promise<Response> {
    const limits = limit(ctx, 'messages');
    const body = await readJson(ctx.request);
    if (body.rating !== 'up' && body.rating !== 'down') throw refuse(400, 'bad_request', '"rating" must be "up" or "down"');
    const payload: Record<string, unknown> = { rating: body.rating };
    if (body.comment !== undefined && body.comment !== null) {
      if (typeof body.comment !== 'string') throw refuse(400, 'bad_request', '"comment" must be a string');
      if (body.comment.length > FEEDBACK_COMMENT_MAX_LENGTH) throw refuse(400, 'bad_request', `"comment" must be at most ${FEEDBACK_COMMENT_MAX_LENGTH} characters`);
      payload.comment = body.comment;
    }
    if (body.message_index !== undefined && body.message_index !== null) {
      if (typeof body.message_index !== 'number' || !Number.isSafeInteger(body.message_index) || body.message_index < 0) {
        throw refuse(400, 'bad_request', '"message_index" must be a non-negative integer');
      }
      payload.message_index = body.message_index;
    }
    return relay(await upstream.request('POST', `/v0/chat/${id}/feedback`, { body: JSON.stringify(payload), signal: ctx.request.signal }), limits);
  }

  function withCookie(response: Response, ctx: Context): Response {
    response.headers.append('Set-Cookie', cookieHeader(ctx));
    return response;
  }

  return async function handle(request: Request, info?: { remoteAddress?: string }): Promise<Response> {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return errorResponse(400, 'bad_request', 'Malformed request URL');
    }
    const log: Record<string, unknown> = { msg: 'proxy request', method: request.method };
    const path = url.pathname.startsWith(`${opts.basePath}/`) ? url.pathname.slice(opts.basePath.length) : null;
    const parts = path?.split('/').slice(1) ?? [];
    const route =
      path === '/chat'
        ? 'send'
        : parts.length === 2 && parts[0] === 'chat'
          ? 'get'
          : parts.length === 3 && parts[0] === 'chat' && (parts[2] === 'escalate' || parts[2] === 'feedback')
            ? parts[2]
            : null;
    const allowedMethods = route === 'get' ? 'GET' : 'POST';
    const { ok, origin } = originAllowed(request, url);
    const cors = ok ? corsHeaders(origin, url) : {};
    let response: Response;
    try {
      if (!route) throw refuse(404, 'not_found', MESSAGES.notFound);
      log.route = route;
      if (!ok) throw refuse(403, 'forbidden', 'Origin not allowed');
      if (request.method === 'OPTIONS') {
        response = new Response(null, {
          status: 204,
          headers: {
            ...cors,
            'Access-Control-Allow-Methods': `${allowedMethods}, OPTIONS`,
            'Access-Control-Allow-Headers': 'Content-Type, Prefer, Idempotency-Key',
            'Access-Control-Max-Age': '600',
          },
        });
      } else if (request.method !== allowedMethods) {
        throw refuse(405, 'bad_request', `Method ${request.method} is not allowed here; use ${allowedMethods}`, { Allow: `${allowedMethods}, OPTIONS` });
      } else {
        const fromCookie = decodeVisitor(opts.secret, readCookie(request.headers.get('cookie'), opts.cookieName));
        const address = clientAddress(request, info?.remoteAddress);
        const ctx: Context = { request, url, origin, visitor: fromCookie ?? newVisitor(), visitorIsNew: !fromCookie, address, log };
        log.visitor = ctx.visitor.id.slice(0, 6);
        if (route === 'send') {
          // New visitors are limited per client address, when the host tells it (Node adapters do).
          if (ctx.visitorIsNew && address) {
            const r = limiter.take(`new:${address}`, opts.visitorLimits.newVisitorsPerAddress);
            if (!r.allowed) throw new Refusal(errorResponse(429, 'rate_limited', MESSAGES.rateLimited, { retryable: true, headers: r.headers }));
          }
          response = await sendMessage(ctx);
        } else {
          const id = parts[1]!;
          // Ids never issued to this visitor are refused here, before any upstream call.
          if (!ID.test(id) || !ctx.visitor.conversations.includes(id)) throw refuse(404, 'not_found', MESSAGES.notFound);
          response = route === 'get' ? await getConversation(ctx, id) : route === 'feedback' ? await feedback(ctx, id) : await escalate(ctx, id);
        }
      }
    } catch (error) {
      if (error instanceof Refusal) response = error.response;
      else if (error instanceof TimeoutError) response = errorResponse(504, 'internal_error', 'The support service did not answer in time', { retryable: true });
      else if (error instanceof NetworkError) response = errorResponse(502, 'internal_error', 'The support service could not be reached', { retryable: true });
      else {
        log.error = error instanceof Error ? error.name : 'unknown';
        response = errorResponse(500, 'internal_error', MESSAGES.internal, { retryable: true });
      }
    }
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
    response.headers.set('Cache-Control', 'no-store');
    log.status = response.status;
    log.ms = Math.round((performance.now() - started) * 10) / 10;
    opts.logger?.info(log);
    return response;
  };
}
