/**
 * @module Wire types of the Conversational Support API v0, shared by widget, proxy and server: each
 * derived from its zod schema (./schemas), the one description of the format, which also validates
 * bodies and generates the OpenAPI document. Imports are type-only, so zod stays out of the widget.
 * Responses are typed as they are parsed (`z.output`), requests as they are sent (`z.input`).
 */
import type { z } from 'zod';
import type * as requests from './schemas/requests.js';
import type * as responses from './schemas/responses.js';

export type { Scope } from './scopes.js';
export { SCOPES } from './scopes.js';

export type Conversation = z.output<typeof responses.Conversation>;
export type ConversationStatus = Conversation['status'];
export type Message = z.output<typeof responses.Message>;
export type Role = Message['role'];
export type Source = z.output<typeof responses.Source>;
/** An answer of the API's that says it found no direct answer (`is_uncertain`; a user message never does). */
export function isUncertain(message: Message | undefined): boolean {
  return message?.role === 'assistant' && message.is_uncertain === true;
}
/** One entry of GET /v0/chat?visitor_id=… (and of the proxy's `GET {basePath}/chat`). */
export type ConversationSummary = z.output<typeof responses.ConversationSummary>;
export type SendMessageResult = z.output<typeof responses.SendMessageResult>;
export type EscalationResult = z.output<typeof responses.EscalationResult>;
export type TokenInfo = z.output<typeof responses.TokenInfo>;
export type Ticket = z.output<typeof responses.Ticket>;

export type SendMessageRequest = z.input<typeof requests.SendMessageRequest>;
export type EscalationRequest = z.input<typeof requests.EscalationRequest>;
export type AdditionalFields = NonNullable<EscalationRequest['additional_fields']>;
/**
 * A helpdesk's name: plain, pylon, linear, webhook, or one registered at run time. Which exist is
 * the server's helpdesk registry's to say; the protocol knows only their shape (`isHelpdeskName`).
 */
export type Integration = EscalationRequest['integration'];
