/**
 * @module POST /v0/chat (send a message), GET /v0/chat/{id} (get a conversation, with
 * `Prefer: wait=N`) and DELETE /v0/chat/{id} (a conversation and everything derived from it, now:
 * data-subject requests; our addition).
 */
import { CONVERSATION_MAX_TURNS, isConversationId, MAX_PREFER_WAIT_SECONDS, MESSAGES, readMessage, type SendMessageResult } from '../../../protocol/index.js';
import { conflict, notFound } from '../errors.js';
import { stringField } from '../body.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

async function send(ctx: RouteContext): Promise<ApiResponse> {
  const body = ctx.body();
  const message = readMessage(body);
  const conversationId = stringField(body, 'conversation_id', { required: false, min: 1, max: 128 });
  if (conversationId !== undefined && !isConversationId(conversationId)) throw notFound();
  const outcome = ctx.services.lifecycle.send(ctx.auth!.orgId, message, conversationId);
  if (!outcome.ok) {
    if (outcome.reason === 'not_found') throw notFound();
    if (outcome.reason === 'full') throw conflict(`Conversation has reached its limit of ${CONVERSATION_MAX_TURNS} turns; start a new conversation`);
    throw conflict(MESSAGES.stillProcessing);
  }
  const result: SendMessageResult = { conversation_id: outcome.conversationId, status: 'processing' };
  return json(result, 202);
}

/** Seconds asked for by `Prefer: wait=N`, capped; null when absent or malformed (then ignored, as RFC 7240 says). */
export function preferWait(header: string | null): number | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const match = /^\s*wait\s*=\s*(\d{1,6})\s*(;.*)?$/i.exec(part);
    if (match) return Math.min(Number(match[1]), MAX_PREFER_WAIT_SECONDS);
  }
  return null;
}

/** Synchronous unless it has to wait (`Prefer: wait=N` on a conversation still processing): a plain read takes no promise. */
function get(ctx: RouteContext): ApiResponse | Promise<ApiResponse> {
  const id = ctx.params.id!;
  if (!isConversationId(id)) throw notFound();
  const { conversations, lifecycle, closing } = ctx.services;
  const orgId = ctx.auth!.orgId;
  const record = conversations.get(orgId, id);
  if (!record) throw notFound();
  const wait = preferWait(ctx.request.header('prefer'));
  if (wait === null) return { status: 200, headers: { 'content-type': 'application/json' }, body: conversations.toWireJson(record) };
  const headers = { 'content-type': 'application/json', 'Preference-Applied': `wait=${wait}`, Vary: 'Prefer' };
  if (record.status === 'processing' && wait > 0) {
    // Answered when the conversation settles, the wait ends, the client goes away or the server closes.
    const signal = AbortSignal.any([closing, ctx.request.signal]);
    return lifecycle.waitUntilSettled(orgId, id, wait * 1000, signal).then((settled) => {
      if (!settled) throw notFound();
      return { status: 200, headers, body: conversations.toWireJson(settled) };
    });
  }
  return { status: 200, headers, body: conversations.toWireJson(record) };
}

function remove(ctx: RouteContext): ApiResponse {
  const id = ctx.params.id!;
  if (!isConversationId(id) || !ctx.services.lifecycle.delete(ctx.auth!.orgId, id)) throw notFound();
  return { status: 204, headers: {}, body: null };
}

export const chatRoutes: Route[] = [
  { method: 'POST', pattern: '/v0/chat', scope: 'chat:write', bucket: 'send', idempotent: true, handler: send },
  { method: 'GET', pattern: '/v0/chat/:id', scope: 'chat:read', handler: get },
  { method: 'DELETE', pattern: '/v0/chat/:id', scope: 'chat:write', handler: remove },
];
