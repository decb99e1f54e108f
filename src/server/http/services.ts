/** @module What route handlers use: stores, the conversation lifecycle, the engine and integrations. */
import type { Integration } from '../../protocol/index.js';
import type { AnswerEngine } from '../answers/types.js';
import type { ConversationLifecycle } from '../conversations/lifecycle.js';
import type { IntegrationSettings } from '../escalation/settings.js';
import type { IntegrationResolver } from '../helpdesks/types.js';
import type { ConversationStore } from '../store/conversations.js';
import type { IdempotencyStore } from '../store/idempotency.js';
import type { TokenService } from '../store/tokens.js';
import type { TicketStore } from '../tickets/types.js';
import type { Logger } from '../log.js';
import type { TurnStreams } from '../streams/index.js';

export interface Services {
  tokens: TokenService;
  conversations: ConversationStore;
  /** Sends user turns and waits for conversations to settle (the one owner of their status). */
  lifecycle: ConversationLifecycle;
  idempotency: IdempotencyStore;
  tickets: TicketStore;
  engine: AnswerEngine;
  integrations: IntegrationResolver;
  /** An organization's effective settings for an integration (its own, else the environment's). */
  integrationSettings(orgId: string, integration: Integration): Promise<IntegrationSettings>;
  logger: Logger;
  /** The turns' streamed events (written by the worker, read by `GET /v0/chat/{id}/events`). */
  streams: TurnStreams;
  /** Aborted when the server shuts down: long polls answer at once. */
  closing: AbortSignal;
  /** A claim on an escalation older than this is taken over (its process died). @default 120000 */
  escalationClaimStaleMs: number;
  now: () => number;
}
