/**
 * @module POST /v0/chat (send a message), GET /v0/chat/{id} (get a conversation, with
 * `Prefer: wait=N`) and DELETE /v0/chat/{id} (a conversation and everything derived from it, now:
 * data-subject requests; our addition); and, by visitor, GET /v0/chat?visitor_id= (their
 * conversations) and DELETE /v0/chat?visitor_id= (all of them).
 */
import { CONVERSATION_LIST_LIMIT_DEFAULT, CONVERSATION_LIST_LIMIT_MAX, CONVERSATION_MAX_TURNS, isConversationId, isVisitorId, MAX_PREFER_WAIT_SECONDS, MESSAGES, parsePreferWait, type SendMessageResult } from '../../../protocol/index.js';
import { parseBody, SendMessageRequest, toConversationVisitor, type PageContextBody } from '../../../protocol/schemas/index.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { json, type ApiResponse } from '../exchange.js';
import { visitorPage } from '../page-url.js';
import type { Route, RouteContext } from '../router.js';
import type { ConversationRecord, QuestionContext } from '../../store/conversations.js';

/** A parsed `context` as the conversation keeps it: the page without its credentials, query or fragment (they may hold a visitor's data), blank fields dropped. */
function toQuestionContext(body: PageContextBody | null | undefined): QuestionContext {
  const context: QuestionContext = {};
  if (body?.page_url) context.pageUrl = visitorPage(body.page_url);
  const title = body?.page_title?.trim();
  if (title) context.pageTitle = title;
  const selection = body?.selection?.trim();
  if (selection) context.selection = selection;
  return context;
}

async function send(ctx: RouteContext): Promise<ApiResponse> {
  const { message, conversation_id, visitor, context } = parseBody(SendMessageRequest, ctx.body());
  const outcome = await ctx.services.lifecycle.send(ctx.auth!.orgId, message, conversation_id ?? undefined, toConversationVisitor(visitor), toQuestionContext(context));
  if (!outcome.ok) {
    if (outcome.reason === 'not_found') throw notFound();
    if (outcome.reason === 'full') throw conflict(`Conversation has reached its limit of ${CONVERSATION_MAX_TURNS} turns; start a new conversation`);
    throw conflict(MESSAGES.stillProcessing);
  }
  const result: SendMessageResult = { conversation_id: outcome.conversationId, status: 'processing' };
  return json(result, 202);
}

/**
 * Synchronous when the conversation and its serialization are cached and nothing has to wait (a
 * poll of an unchanged conversation on SQLite takes no promise); otherwise a promise.
 */
function get(ctx: RouteContext): ApiResponse | Promise<ApiResponse> {
  const id = ctx.params.id!;
  if (!isConversationId(id)) throw notFound();
  const record = ctx.services.conversations.get(ctx.auth!.orgId, id);
  return record instanceof Promise ? record.then((r) => respond(ctx, id, r)) : respond(ctx, id, record);
}

function respond(ctx: RouteContext, id: string, record: ConversationRecord | null): ApiResponse | Promise<ApiResponse> {
  if (!record) throw notFound();
  const { conversations, lifecycle, closing } = ctx.services;
  const wait = parsePreferWait(ctx.request.header('prefer'), MAX_PREFER_WAIT_SECONDS);
  const headers: Record<string, string> =
    wait === null ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'Preference-Applied': `wait=${wait}`, Vary: 'Prefer' };
  if (wait !== null && record.status === 'processing' && wait > 0) {
    // Answered when the conversation settles, the wait ends, the client goes away or the server closes.
    const signal = AbortSignal.any([closing, ctx.request.signal]);
    return lifecycle.waitUntilSettled(ctx.auth!.orgId, id, wait * 1000, signal).then(async (settled) => {
      if (!settled) throw notFound();
      return { status: 200, headers, body: await conversations.toWireJson(settled) };
    });
  }
  const body = conversations.toWireJson(record);
  return typeof body === 'string' ? { status: 200, headers, body } : body.then((json) => ({ status: 200, headers, body: json }));
}

async function remove(ctx: RouteContext): Promise<ApiResponse> {
  const id = ctx.params.id!;
  if (!isConversationId(id) || !(await ctx.services.lifecycle.delete(ctx.auth!.orgId, id))) throw notFound();
  return { status: 204, headers: {}, body: null };
}

/** The `visitor_id` query parameter of the visitor routes; 400 when missing or malformed. */
function visitorId(ctx: RouteContext): string {
  const ids = ctx.query.getAll('visitor_id');
  if (ids.length !== 1 || !isVisitorId(ids[0])) throw badRequest('"visitor_id" must be given once: a string of 1 to 256 printable characters');
  return ids[0];
}

/** GET /v0/chat?visitor_id=…&verified=true|false&limit=N: one visitor's conversations, most recently active first (our addition). */
async function list(ctx: RouteContext): Promise<ApiResponse> {
  const id = visitorId(ctx);
  const limitText = ctx.query.get('limit');
  const limit = limitText === null ? CONVERSATION_LIST_LIMIT_DEFAULT : Number(limitText);
  if (!/^\d{1,3}$/.test(limitText ?? '0') || !Number.isInteger(limit) || limit < 1 || limit > CONVERSATION_LIST_LIMIT_MAX) throw badRequest(`"limit" must be an integer from 1 to ${CONVERSATION_LIST_LIMIT_MAX}`);
  // Verified and anonymous visitors are apart: `verified` names which one `visitor_id` is.
  const verifiedText = ctx.query.getAll('verified');
  if (verifiedText.length > 1 || (verifiedText.length === 1 && verifiedText[0] !== 'true' && verifiedText[0] !== 'false')) throw badRequest('"verified" must be given at most once: true or false');
  const verified = verifiedText.length === 0 ? undefined : verifiedText[0] === 'true';
  return json({ conversations: await ctx.services.conversations.listByVisitor(ctx.auth!.orgId, id, limit, verified) });
}

/** DELETE /v0/chat?visitor_id=…: every conversation of one visitor and everything derived from them, now (data-subject requests; our addition). */
async function removeVisitor(ctx: RouteContext): Promise<ApiResponse> {
  const id = visitorId(ctx);
  return json({ deleted: await ctx.services.lifecycle.deleteVisitor(ctx.auth!.orgId, id) });
}

export const chatRoutes: Route[] = [
  { method: 'GET', pattern: '/v0/chat', scope: 'chat:read', handler: list },
  { method: 'DELETE', pattern: '/v0/chat', scope: 'chat:write', handler: removeVisitor },
  { method: 'POST', pattern: '/v0/chat', scope: 'chat:write', bucket: 'send', idempotent: true, handler: send },
  { method: 'GET', pattern: '/v0/chat/:id', scope: 'chat:read', handler: get },
  { method: 'DELETE', pattern: '/v0/chat/:id', scope: 'chat:write', handler: remove },
];
