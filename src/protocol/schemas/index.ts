/**
 * @module The one definition of every request and response body (zod): server and proxy parse
 * requests with them, and the OpenAPI document's schemas are generated from them. Not part of the
 * protocol barrel, so the widget never bundles zod; it shares plain constants from limits.ts.
 */
import { z } from 'zod';
import { ConversationVisitor, EscalationRequest, FeedbackRequest, PageContext, SearchQuery, SendMessageRequest, VisitorEscalationRequest, type SearchQueryParams } from './requests.js';
import { parseBody } from './parse.js';
import type { ConversationVisitor as Visitor } from '../visitor.js';
import type { ConversationVisitorBody } from './requests.js';
import {
  Conversation,
  ConversationList,
  ConversationSummary,
  ErrorResponse,
  EscalationResult,
  FeedbackResult,
  Health,
  InsightCounts,
  Insights,
  Message,
  SendMessageResult,
  SearchResult,
  SearchResults,
  Source,
  StreamDelta,
  StreamStatus,
  Ticket,
  TicketPage,
  TokenInfo,
  VisitorDeletion,
  WebhookReceipt,
} from './responses.js';

export * from './requests.js';
export * from './responses.js';
export { parseBody } from './parse.js';
export { text } from './fields.js';

/** The bodies the OpenAPI document names, under their component names. */
export const COMPONENTS = {
  Source,
  Message,
  Conversation,
  Visitor: ConversationVisitor,
  PageContext,
  ConversationSummary,
  ConversationList,
  VisitorDeletion,
  SendMessageRequest,
  SendMessageResult,
  EscalationRequest,
  EscalationResult,
  FeedbackRequest,
  FeedbackResult,
  TokenInfo,
  Ticket,
  TicketPage,
  InsightCounts,
  Insights,
  SearchResult,
  SearchResults,
  Health,
  WebhookReceipt,
  StreamDelta,
  StreamStatus,
  Error: ErrorResponse,
} satisfies Record<string, z.ZodType>;

/**
 * The JSON Schemas (draft 2020-12, as OpenAPI 3.1 takes them) of every component, referring to
 * one another by `#/components/schemas/<name>`.
 */
export function componentSchemas(): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io: 'input', unrepresentable: 'throw' });
  const out: Record<string, Record<string, unknown>> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
    out[id] = rest;
  }
  return out;
}

/**
 * The `message` of `POST /chat`: a non-blank string of at most MESSAGE_MAX_LENGTH characters.
 *
 * @example
 * readMessage({ message: 'Hello' }); // 'Hello'
 */
export function readMessage(body: Record<string, unknown>): string {
  return parseBody(SendMessageRequest.pick({ message: true }), body).message;
}

/**
 * The query parameters of a search (`q` trimmed, then 1–500 characters; `limit` 1–20; `page_url`
 * an absolute http(s) URL); the first of a repeated parameter counts. Throws the 400 naming the
 * parameter.
 *
 * @example
 * readSearchQuery(new URLSearchParams('q=install&limit=5')); // { q: 'install', limit: 5 }
 */
export function readSearchQuery(params: URLSearchParams): SearchQueryParams {
  const value = (name: string) => params.get(name) ?? undefined;
  return parseBody(SearchQuery, { q: value('q')?.trim(), limit: value('limit'), page_url: value('page_url') });
}

/** The visitor's part of an escalation: name, email and an optional note to the support team, trimmed. */
export interface EscalationContact {
  name: string;
  email: string;
  note?: string;
}

/** Reads and checks `name`, `email` and the optional `note` of an escalation body; trims them. */
export function readEscalationContact(body: Record<string, unknown>): EscalationContact {
  return trimContact(parseBody(VisitorEscalationRequest, body));
}

/** The contact of a parsed escalation, trimmed; a blank note is none. */
export function trimContact(body: { name: string; email: string; note?: string | null }): EscalationContact {
  const note = body.note?.trim();
  return note ? { name: body.name.trim(), email: body.email.trim(), note } : { name: body.name.trim(), email: body.email.trim() };
}

/** A parsed `visitor` (of POST /v0/chat) as the store keeps it: trimmed, `verified` false unless said; undefined when absent. */
export function toConversationVisitor(body: ConversationVisitorBody | null | undefined): Visitor | undefined {
  if (!body) return undefined;
  const visitor: Visitor = { id: body.id, verified: body.verified === true };
  if (body.email) visitor.email = body.email.trim();
  if (body.name) visitor.name = body.name.trim();
  return visitor;
}
