/** @module What an escalation integration (plain, pylon, linear, webhook) receives and returns. */
import type { Integration, Message } from '../../protocol/index.js';

export interface TicketDraft {
  orgId: string;
  conversationId: string;
  title: string;
  summary: string;
  /** The whole conversation, oldest first. */
  transcript: Message[];
  customer: { email: string; name: string };
  /** What the visitor added in the escalation form, when anything. */
  note?: string;
  labelTypeIds: string[];
  /** 0 urgent, 1 high, 2 normal, 3 low; undefined when not given. */
  priority?: number;
}

export interface CreatedTicket {
  ticketId: string;
  ticketUrl: string;
}

/** A visitor message sent after escalation, for the ticket the conversation became. */
export interface FollowUp {
  orgId: string;
  conversationId: string;
  /** The ticket's id in the helpdesk (as returned by createTicket). */
  ticketId: string;
  /** The message's position in the conversation: with the conversation id, it names the message. */
  seq: number;
  content: string;
  /** When the visitor sent it, ISO 8601. */
  sentAt: string;
  /** 1 for the first try; a later one may follow a try whose answer was lost. */
  attempt: number;
}

export interface EscalationIntegration {
  readonly name: Integration;
  /**
   * Creates the ticket in the helpdesk. Must be safe to call again for the same
   * conversation after a failure (no second ticket): look up by conversation id,
   * or use a client-chosen id derived from it.
   */
  createTicket(draft: TicketDraft, signal?: AbortSignal): Promise<CreatedTicket>;
  /**
   * Adds a visitor's later message to the ticket. Must be safe to call again for the same
   * message after a failure (no second copy) where the helpdesk allows it.
   */
  addFollowUp?(followUp: FollowUp, signal?: AbortSignal): Promise<void>;
}

/** A helpdesk call that failed. `retryable: false` for configuration errors that a retry cannot fix. */
export class IntegrationError extends Error {
  readonly retryable: boolean;
  readonly status: number | undefined;
  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'IntegrationError';
    this.retryable = options.retryable;
    this.status = options.status;
  }
}

/** Resolves the integration an organization uses for a given name; throws IntegrationError (retryable: false) naming missing configuration. */
export type IntegrationResolver = (orgId: string, name: Integration) => EscalationIntegration;
