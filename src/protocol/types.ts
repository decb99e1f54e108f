/** @module Wire types of the Conversational Support API v0, shared by widget, proxy and server. */
import type { ConversationVisitor } from './visitor.js';

export type ConversationStatus = 'processing' | 'completed' | 'failed';
export type Role = 'user' | 'assistant';

export interface Source {
  title: string;
  url: string;
}

export interface Message {
  role: Role;
  content: string;
  /** Always an array; empty for user turns and for answers that cite nothing. */
  sources: Source[];
  /**
   * Assistant messages only (an extension field; plain v0 clients ignore it): `false` when the
   * reply answers from its `sources`; `true` when it could not find a direct answer, with the
   * related pages as `sources` (best first) or, when nothing in the knowledge base is related, none.
   */
  is_uncertain?: boolean;
}

export interface Conversation {
  id: string;
  status: ConversationStatus;
  messages: Message[];
  created_at: string;
  updated_at: string;
  /** Our extension: who the conversation belongs to, when POST /v0/chat said so. */
  visitor?: ConversationVisitor;
}

export interface SendMessageRequest {
  message: string;
  conversation_id?: string;
  /** Our extension: the visitor the conversation belongs to (plain v0 servers ignore it). */
  visitor?: ConversationVisitor;
}

export interface SendMessageResult {
  conversation_id: string;
  status: 'processing';
}

export const INTEGRATIONS = ['plain', 'pylon', 'linear', 'webhook'] as const;
export type Integration = (typeof INTEGRATIONS)[number];

export interface AdditionalFields {
  label_type_ids?: string[];
  priority?: number;
}

export interface EscalationRequest {
  integration: Integration;
  email: string;
  name: string;
  title?: string;
  summary?: string;
  additional_fields?: AdditionalFields;
}

export interface EscalationResult {
  success: true;
  integration: Integration;
  ticket_id: string;
  ticket_url: string;
}

export const SCOPES = ['chat:read', 'chat:write', 'chat:escalate', 'tickets:read', 'tickets:delete', 'insights:read'] as const;
export type Scope = (typeof SCOPES)[number];

export interface TokenInfo {
  token: { name: string; prefix: string; scopes: Scope[] };
  organization: { id: string };
}

export interface Ticket {
  source: string;
  external_id: string;
  title: string;
  status: string;
  url: string | null;
  customer_email: string | null;
  customer_name: string | null;
  created_at: string;
  updated_at: string;
}
