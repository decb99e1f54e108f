/**
 * @module What a helpdesk (plain, pylon, linear, webhook) is to the rest of the server: the
 * `Helpdesk` interface each folder under `helpdesks/` implements, and what its escalation client,
 * sync connector and webhook receiver take and return.
 */
import type { Integration, Message } from '../../protocol/index.js';

/** A ticket as a sync connector or webhook receiver hands it over. */
export interface TicketInput {
  /** Lowercase helpdesk name: `plain`, `pylon`, `linear`. */
  source: string;
  /** The ticket's id in that helpdesk (Plain: the thread id). */
  externalId: string;
  title: string;
  status: string;
  url: string | null;
  customerEmail: string | null;
  customerName: string | null;
  /** Plain text body or latest message, used for the knowledge index when present. */
  body: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TicketDraft {
  orgId: string;
  conversationId: string;
  title: string;
  summary: string;
  /** The whole conversation, oldest first. */
  transcript: Message[];
  /** `verified`: the site vouched for this email (the conversation's signed-in visitor's). */
  customer: { email: string; name: string; verified?: boolean };
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
  /** The helpdesk's registered name (`plain`, …). */
  readonly name: string;
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

/**
 * Resolves the integration an organization uses for a given name (reading its settings from the
 * database, hence the promise; a fixed resolver may answer at once); fails with IntegrationError
 * (retryable: false) naming missing configuration. Callers await it.
 */
export type IntegrationResolver = (orgId: string, name: Integration) => Promise<EscalationIntegration> | EscalationIntegration;

/** The settings a helpdesk can take (each optional; a helpdesk names the ones it uses). */
export interface IntegrationSettings {
  /** Helpdesk API key (Plain, Pylon, Linear). */
  apiKey?: string;
  /** Helpdesk API endpoint; defaults to the vendor's public one. */
  apiUrl?: string;
  /** Plain workspace id for ticket links; looked up with the API key when absent. */
  workspaceId?: string;
  /** Linear team that escalations create issues in. */
  teamId?: string;
  /** Secret that signs the helpdesk's webhooks to `/v0/webhooks/{source}/{org}`. */
  webhookSecret?: string;
  /** `webhook` integration: where tickets are POSTed. */
  url?: string;
  /** `webhook` integration: HMAC signing secret. */
  secret?: string;
}

export type SettingKey = keyof IntegrationSettings;

/** What every helpdesk client is built with. */
export interface ClientOptions {
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per helpdesk call. */
  timeoutMs?: number;
}

/** What an escalation client is built with, besides the organization's settings. */
export interface EscalationContext extends ClientOptions {
  now: () => number;
  /**
   * When this conversation was first escalated to this helpdesk, recording now when never (for
   * helpdesks that take no client-chosen id and must search on a retry). Absent without a database.
   */
  firstAttempt?: (conversationId: string) => Promise<{ at: Date; previous: boolean }>;
}

export interface SyncPage {
  tickets: TicketInput[];
  /** Where the next sync starts; saved once this page is stored. Null keeps the previous cursor. */
  cursor: string | null;
}

export interface SyncConnector {
  readonly source: string;
  /** Pages of tickets changed since `cursor` (everything when null). */
  changes(cursor: string | null): AsyncGenerator<SyncPage>;
  /** One ticket by its id in the helpdesk; null when it no longer exists there. */
  fetch(externalId: string): Promise<TicketInput | null>;
}

/** A webhook delivery as the receiver sees it, before it is trusted. */
export interface WebhookDelivery {
  /** The raw body, exactly as signed. */
  raw: string;
  /** A request header (lowercase name), or null. */
  header(name: string): string | null;
  /** The organization's webhook secret for this helpdesk. */
  secret: string;
  /** Milliseconds since the epoch, for timestamp checks. */
  now: number;
}

/** What a verified delivery asks for. */
export type WebhookEffect = { kind: 'upsert'; ticket: TicketInput } | { kind: 'remove'; externalId: string } | { kind: 'ignore' };

export interface WebhookReceiver {
  /**
   * Checks the delivery's signature and timestamp over the raw body and answers the parsed body.
   * Throws HttpError 401 for a bad signature or a stale timestamp, 400 for a body that is not a JSON object.
   */
  verify(delivery: WebhookDelivery): Record<string, unknown>;
  /** What a verified body asks for; HttpError 400 naming a missing field. */
  parse(body: Record<string, unknown>, settings: IntegrationSettings): WebhookEffect;
}

/**
 * One helpdesk: everything the server knows about it lives in its folder under `helpdesks/` and
 * is reached through this object, registered in `helpdesks/index.ts`.
 */
export interface Helpdesk {
  /** Lowercase name used in URLs, settings and the CLI: `plain`. */
  readonly name: string;
  /** For messages: `Plain`. */
  readonly label: string;
  /** The settings it takes, each with the environment variable that is its fallback. */
  readonly settings: Partial<Record<SettingKey, string>>;
  /**
   * The escalation client (ticket creation and follow-ups) for an organization's effective
   * settings; IntegrationError (retryable: false) naming a missing setting.
   */
  escalation(settings: IntegrationSettings, context: EscalationContext): EscalationIntegration;
  /** The sync connector for `tickets sync`; absent when the helpdesk has no tickets to read back. */
  sync?(settings: IntegrationSettings, options: ClientOptions): SyncConnector;
  /** The receiver behind `POST /v0/webhooks/{name}/{org}`; absent when it sends none. */
  readonly webhook?: WebhookReceiver;
}
