/**
 * @module The proxy's routes (relative to its basePath) and what each does upstream: send a
 * message, list the visitor's conversations, say who the visitor is, poll a conversation (cached once settled, shared while in flight, long-polled when
 * the upstream offers it), stream its answer as it is written (relayed unbuffered, a few streams per visitor), escalate with the site owner's integration, rate an answer,
 * search the docs (no conversation or cookie needed; one upstream search serves every visitor asking the same for a minute).
 */
import { createHash, randomUUID } from 'node:crypto';
import { badRequest, conflict, isConversationId, isErrorBody, parseJsonObject, parsePreferWait, parseRetryAfter, rateLimited, readCappedText, SEARCH_LIMIT_DEFAULT } from '../protocol/index.js';
import { FeedbackRequest, parseBody, readSearchQuery, VisitorSendMessageRequest } from '../protocol/schemas/index.js';
import type { ProxyContext, ProxyRoute } from './context.js';
import { errorResponse } from './errors.js';
import { upstreamFor } from './stages.js';
import { readClientKey, turnKey } from './turn-key.js';
import type { UpstreamResult } from './upstream.js';
import { encodeVisitor, MAX_CONVERSATIONS } from './visitor.js';

/** Upstream headers the browser may see; everything else (cookies, server details) stays behind. */
const PASSED_HEADERS = ['content-type', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'preference-applied'];
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
/** `Retry-After` of "escalation still in progress" when the upstream gives none, in seconds. */
const IN_PROGRESS_RETRY_AFTER = 5;

export const PROXY_ROUTES: ProxyRoute[] = [
  { method: 'POST', pattern: '/chat', name: 'send', visitorLimit: 'messages', handler: sendMessage },
  { method: 'GET', pattern: '/chat', name: 'list', visitorLimit: 'polls', handler: list },
  { method: 'GET', pattern: '/visitor', name: 'visitor', visitorLimit: 'polls', handler: async (ctx) => Response.json(ctx.state.identity.whoIs(ctx)) },
  { method: 'GET', pattern: '/chat/:id', name: 'get', visitorLimit: 'polls', handler: getConversation },
  { method: 'GET', pattern: '/chat/:id/events', name: 'events', visitorLimit: 'polls', handler: events },
  { method: 'POST', pattern: '/chat/:id/escalate', name: 'escalate', visitorLimit: 'escalations', handler: escalate },
  { method: 'POST', pattern: '/chat/:id/feedback', name: 'feedback', visitorLimit: 'messages', handler: feedback },
  { method: 'GET', pattern: '/search', name: 'search', visitorLimit: 'searches', handler: search },
];

async function readJson(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type) && type !== '') throw badRequest('Content-Type must be application/json');
  return parseJsonObject(await readCappedText(request.body, { declaredLength: request.headers.get('content-length') }));
}

function cookieHeader(ctx: ProxyContext): string {
  const { opts } = ctx.state;
  const secure = ctx.origin.protocol === 'https:';
  const crossSite = secure && opts.allowed.size > 0;
  const attributes = [`Path=${opts.basePath || '/'}`, 'HttpOnly', `Max-Age=${Math.floor(opts.visitorMaxAgeSeconds)}`, crossSite ? 'SameSite=None' : 'SameSite=Lax'];
  if (secure) attributes.push('Secure');
  return `${opts.cookieName}=${encodeVisitor(opts.secret, ctx.visitor)}; ${attributes.join('; ')}`;
}

/** Relays an upstream answer: 401/403 mean the proxy's token is wrong, which is not the visitor's business. */
function relay(result: UpstreamResult, ctx: ProxyContext, extra: Record<string, string> = {}): Response {
  if (result.status === 401 || result.status === 403) {
    ctx.state.opts.logger?.warn({ msg: 'upstream refused the proxy token', status: result.status });
    return errorResponse(502, 'internal_error', 'The support service is not available right now', { retryable: false });
  }
  if (!result.headers.get('content-type')?.includes('json')) {
    return errorResponse(502, 'internal_error', 'The support service answered unexpectedly', { retryable: true });
  }
  return new Response(result.status === 204 ? null : result.body, { status: result.status, headers: passHeaders(result.headers, PASSED_HEADERS, ctx, extra) });
}

/** `names` of the upstream's headers, over `extra`; of the visitor's limits and the organization's, the rate-limit headers report the one with fewer requests left. */
function passHeaders(upstream: Headers, names: string[], ctx: ProxyContext, extra: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = { ...extra };
  for (const name of names) {
    const value = upstream.get(name);
    if (value !== null) headers[name] = value;
  }
  const upstreamRemaining = Number(upstream.get('x-ratelimit-remaining') ?? 'Infinity');
  if (ctx.rate && ctx.rate.remaining <= upstreamRemaining) for (const name of RATE_HEADERS) delete headers[name];
  return headers;
}

async function sendMessage(ctx: ProxyContext): Promise<Response> {
  const { cache } = ctx.state;
  const clientKey = readClientKey(ctx.request);
  const { message, conversation_id: conversationId, context } = parseBody(VisitorSendMessageRequest, await readJson(ctx.request));
  if (conversationId) await ctx.state.owners.ensureOwns(ctx, () => upstreamFor(ctx), conversationId);
  // Before the visitor is read: a keyed message of a visitor without a cookie is the key's visitor.
  const idempotencyKey = clientKey === undefined ? `chat-${randomUUID()}` : turnKey(ctx, clientKey);
  const visitor = ctx.state.identity.upstreamVisitor(ctx);
  const body: Record<string, unknown> = conversationId ? { message, conversation_id: conversationId, visitor } : { message, visitor };
  // Where the visitor asks from, as the schema bounded it (its null fields dropped).
  const page = context ? Object.fromEntries(Object.entries(context).filter(([, value]) => typeof value === 'string')) : {};
  if (Object.keys(page).length > 0) body.context = page;
  const result = await upstreamFor(ctx).request('POST', '/v0/chat', { body: JSON.stringify(body), idempotencyKey, signal: ctx.request.signal });
  if (result.status === 202) {
    const id = (JSON.parse(result.body) as { conversation_id?: unknown }).conversation_id;
    if (!isConversationId(id)) return errorResponse(502, 'internal_error', 'The support service answered unexpectedly', { retryable: true });
    if (ctx.known) ctx.state.owners.started(ctx, id);
    else ctx.visitor.conversations = [...ctx.visitor.conversations.filter((c) => c !== id), id].slice(-MAX_CONVERSATIONS);
    cache.delete(id);
    const response = relay(result, ctx);
    response.headers.append('Set-Cookie', cookieHeader(ctx));
    return response;
  }
  return relay(result, ctx);
}

/** `GET {basePath}/chat`: the visitor's conversations, newest first (owners.ts, `list`). */
async function list(ctx: ProxyContext): Promise<Response> {
  return Response.json(await ctx.state.owners.list(ctx, () => upstreamFor(ctx), ctx.state.identity.upstreamVisitor(ctx)));
}

async function getConversation(ctx: ProxyContext): Promise<Response> {
  const { state } = ctx;
  const id = ctx.params.id!;
  const asked = parsePreferWait(ctx.request.headers.get('prefer'), state.opts.maxWaitSeconds);
  const wait = asked !== null && state.longPoll !== false ? asked : 0;
  const cached = state.cache.get(id);
  if (cached) {
    ctx.log.cached = true;
    return relay(cached, ctx, wait ? { 'Preference-Applied': `wait=${wait}` } : {});
  }
  // Concurrent polls of one conversation share one upstream request (and spend quota once).
  const result = await shared(ctx, state.inflight, `${id}|${wait}`, () => upstreamFor(ctx).request('GET', `/v0/chat/${id}`, { waitSeconds: wait || undefined }));
  if (wait && result.status === 200) state.longPoll = result.headers.has('preference-applied');
  if (result.status === 200) {
    try {
      const status = (JSON.parse(result.body) as { status?: unknown }).status;
      if (status === 'completed' || status === 'failed') state.cache.set(id, result, result.body.length * 2);
    } catch {
      // Not JSON: relay() answers 502.
    }
  }
  return relay(result, ctx);
}

/**
 * One upstream request per `key` at a time: a request with the key of one in flight awaits that
 * one (and spends no quota) instead of making its own.
 */
function shared(ctx: ProxyContext, inflight: Map<string, Promise<UpstreamResult>>, key: string, request: () => Promise<UpstreamResult>): Promise<UpstreamResult> {
  const pending = inflight.get(key);
  if (pending) {
    ctx.log.shared = true;
    return pending;
  }
  const started = request().finally(() => inflight.delete(key));
  inflight.set(key, started);
  return started;
}

/**
 * `GET {basePath}/search?q=&limit=&page_url=`: the docs' search, relayed. The parameters are
 * bounded here as the API bounds them; the same search (query, limit and page) is served to every
 * visitor from the shared cache for `searchCacheTtlMs`, and concurrent misses share one upstream
 * request, which alone spends quota.
 */
async function search(ctx: ProxyContext): Promise<Response> {
  const { state } = ctx;
  const { q, limit = SEARCH_LIMIT_DEFAULT, page_url: pageUrl } = readSearchQuery(ctx.url.searchParams);
  const query = new URLSearchParams({ q, limit: String(limit) });
  if (pageUrl) query.set('page_url', pageUrl);
  const key = query.toString();
  const cached = state.searches.get(key);
  if (cached) {
    ctx.log.cached = true;
    return relay(cached, ctx);
  }
  const result = await shared(ctx, state.searching, key, () => upstreamFor(ctx).request('GET', `/v0/search?${key}`));
  if (result.status === 200) state.searches.set(key, result, key.length * 2 + result.body.length * 2);
  return relay(result, ctx);
}

/** The headers of a relayed stream: never stored or transformed (compression middleware honours `no-transform`), never buffered by nginx. */
const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };
/** The comment a relayed stream starts with. */
const OPENED = new TextEncoder().encode(': relayed\n\n');
/** Longest `Last-Event-ID` relayed; an event id is a short token. */
const MAX_EVENT_ID_LENGTH = 128;
/** `Retry-After` of "too many streams open", seconds: streams close when their answer ends. */
const STREAMS_RETRY_AFTER = 5;

/** Whom a stream counts against: a signed-in visitor by their id (on every device), else the cookie's visitor. */
function streamKey(ctx: ProxyContext): string {
  return ctx.known ? `known:${ctx.known.id}` : ctx.visitor.id;
}

/** The event id to resume after: the `Last-Event-ID` header (what EventSource sends), else the `last_event_id` query parameter. */
function lastEventId(ctx: ProxyContext): string | undefined {
  const value = ctx.request.headers.get('last-event-id') ?? ctx.url.searchParams.get('last_event_id');
  if (value === null || value === '') return undefined;
  // Printable ASCII only: it goes upstream as a header.
  if (value.length > MAX_EVENT_ID_LENGTH || ![...value].every((c) => c >= ' ' && c <= '~')) throw badRequest('Last-Event-ID must be an event id of this stream');
  return value;
}

/**
 * `GET {basePath}/chat/:id/events`: the upstream's event stream of the conversation, relayed chunk by
 * chunk as it arrives (nothing buffered, nothing compressed); the upstream request ends when the
 * visitor leaves. A visitor holds at most `visitorLimits.streams` at once.
 */
async function events(ctx: ProxyContext): Promise<Response> {
  const { state } = ctx;
  const key = streamKey(ctx);
  const open = state.streams.get(key) ?? 0;
  if (open >= state.opts.visitorLimits.streams) {
    throw rateLimited(`Too many answer streams open at once (at most ${state.opts.visitorLimits.streams})`, { 'Retry-After': String(STREAMS_RETRY_AFTER) });
  }
  const resume = lastEventId(ctx);
  const upstream = upstreamFor(ctx);
  // Counted from here, so that streams still starting count too.
  state.streams.set(key, open + 1);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const left = (state.streams.get(key) ?? 1) - 1;
    if (left > 0) state.streams.set(key, left);
    else state.streams.delete(key);
  };
  // A visitor who leaves frees the place at once, whether or not the body was ever read again.
  ctx.request.signal.addEventListener('abort', release, { once: true });
  let result;
  try {
    result = await upstream.stream(`/v0/chat/${ctx.params.id!}/events`, { lastEventId: resume, signal: ctx.request.signal });
  } catch (error) {
    release();
    throw error;
  }
  if (!('stream' in result)) {
    release();
    // 204: the event named was the settled turn's last; nothing more to send.
    if (result.status === 204) return new Response(null, { status: 204, headers: passHeaders(result.headers, RATE_HEADERS, ctx, {}) });
    return relay(result, ctx);
  }
  ctx.log.stream = true;
  const reader = result.stream.getReader();
  const body = new ReadableStream<Uint8Array>({
    // A comment at once: the response's headers and first byte leave now, so the widget knows the
    // stream is not held back on its way (it falls back to polling when no byte comes).
    start(out) {
      out.enqueue(OPENED.slice());
    },
    async pull(out) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          out.close();
        } else out.enqueue(value);
      } catch (error) {
        release();
        out.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: 200, headers: passHeaders(result.headers, RATE_HEADERS, ctx, STREAM_HEADERS) });
}

async function escalate(ctx: ProxyContext): Promise<Response> {
  const { opts, cache } = ctx.state;
  const id = ctx.params.id!;
  const contact = ctx.state.identity.escalationContact(ctx, await readJson(ctx.request));
  const upstream = upstreamFor(ctx);
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
    throw conflict('Escalation is still in progress', { retryable: true, headers: { 'Retry-After': String(Math.max(1, retryAfter)) } });
  }
  return relay(result, ctx);
}

/** A visitor's rating of an answer in one of their conversations; only the rating, comment and message index go upstream. */
async function feedback(ctx: ProxyContext): Promise<Response> {
  const body = parseBody(FeedbackRequest, await readJson(ctx.request));
  const payload: Record<string, unknown> = { rating: body.rating };
  if (typeof body.comment === 'string') payload.comment = body.comment;
  if (typeof body.message_index === 'number') payload.message_index = body.message_index;
  return relay(await upstreamFor(ctx).request('POST', `/v0/chat/${ctx.params.id!}/feedback`, { body: JSON.stringify(payload), signal: ctx.request.signal }), ctx);
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
