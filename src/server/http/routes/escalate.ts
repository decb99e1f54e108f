/** @module POST /v0/chat/{id}/escalate: exactly one helpdesk ticket per conversation. */
import {
  INTEGRATIONS,
  MESSAGES,
  readEscalationContact,
  SUMMARY_MAX_LENGTH,
  TITLE_MAX_LENGTH,
  type EscalationResult,
  type Integration,
} from '../../../protocol/index.js';
import { IntegrationError } from '../../helpdesks/types.js';
import { IN_PROGRESS_RETRY_AFTER_SECONDS } from '../../store/idempotency.js';
import { badRequest, conflict, HttpError, notFound } from '../errors.js';
import { stringField } from '../body.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

interface EscalationInput {
  integration: Integration;
  email: string;
  name: string;
  title: string | undefined;
  summary: string | undefined;
  /** The visitor's own words for the helpdesk ("anything to add?"). */
  note: string | undefined;
  labelTypeIds: string[];
  priority: number | undefined;
}

const KNOWN_FIELDS = new Set(['integration', 'email', 'name', 'title', 'summary', 'note', 'additional_fields']);

function validate(body: Record<string, unknown>): EscalationInput {
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) throw badRequest(`Unknown field "${key}"`);
  const integration = body.integration;
  if (integration === undefined || integration === null) throw badRequest('"integration" is required');
  if (typeof integration !== 'string' || !(INTEGRATIONS as readonly string[]).includes(integration)) {
    throw badRequest(`"integration" must be one of ${INTEGRATIONS.join(', ')}`);
  }
  // Name, email and note are checked as the proxy checks them (the protocol's one reader).
  const { name, email, note } = readEscalationContact(body);
  const title = stringField(body, 'title', { required: false, min: 1, max: TITLE_MAX_LENGTH });
  const summary = stringField(body, 'summary', { required: false, min: 1, max: SUMMARY_MAX_LENGTH });
  let labelTypeIds: string[] = [];
  let priority: number | undefined;
  const extra = body.additional_fields;
  if (extra !== undefined && extra !== null) {
    if (typeof extra !== 'object' || Array.isArray(extra)) throw badRequest('"additional_fields" must be an object');
    const fields = extra as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (key !== 'label_type_ids' && key !== 'priority') throw badRequest(`Unknown field "additional_fields.${key}"`);
    }
    if (fields.label_type_ids !== undefined) {
      const ids = fields.label_type_ids;
      if (!Array.isArray(ids) || ids.length > 50 || !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 200)) {
        throw badRequest('"additional_fields.label_type_ids" must be an array of up to 50 non-empty strings');
      }
      labelTypeIds = [...new Set(ids as string[])];
    }
    if (fields.priority !== undefined) {
      const p = fields.priority;
      if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > 3) {
        throw badRequest('"additional_fields.priority" must be an integer from 0 (urgent) to 3 (low)');
      }
      priority = p;
    }
  }
  return { integration: integration as Integration, email, name, title, summary, note, labelTypeIds, priority };
}

async function escalate(ctx: RouteContext): Promise<ApiResponse> {
  const id = ctx.params.id!;
  const orgId = ctx.auth!.orgId;
  const { conversations, engine, integrations, logger } = ctx.services;
  const record = await conversations.get(orgId, id);
  if (!record) throw notFound();
  const input = validate(ctx.body());
  // The email is verified when it is the one the site gave for the conversation's signed-in visitor.
  const verified = record.visitor?.verified === true && record.visitor.email?.toLowerCase() === input.email.toLowerCase();

  const claim = await conversations.claimEscalation(orgId, id, ctx.services.escalationClaimStaleMs);
  if (!claim.claimed) {
    const record = claim.record;
    if (!record) throw notFound();
    if (record.status === 'processing') throw conflict(MESSAGES.stillProcessing);
    if (record.escalation.state === 'done') throw conflict('Conversation has already been escalated');
    // Another request is creating the ticket: its outcome is known shortly, so the client may retry.
    throw new HttpError(409, 'conflict', 'Conversation escalation is already in progress', {
      retryable: true,
      headers: { 'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
    });
  }
  try {
    const transcript = await conversations.messages(id);
    const integration = await integrations(orgId, input.integration);
    const [title, summary] = await Promise.all([
      input.title ?? engine.title({ orgId, messages: transcript }),
      input.summary ?? engine.summarize({ orgId, messages: transcript }),
    ]);
    const ticket = await integration.createTicket({
      orgId,
      conversationId: id,
      title,
      summary,
      transcript,
      customer: verified ? { email: input.email, name: input.name, verified } : { email: input.email, name: input.name },
      note: input.note,
      labelTypeIds: input.labelTypeIds,
      priority: input.priority,
    });
    await conversations.completeEscalation(id, { integration: input.integration, ...ticket });
    const result: EscalationResult = {
      success: true,
      integration: input.integration,
      ticket_id: ticket.ticketId,
      ticket_url: ticket.ticketUrl,
    };
    logger.info({ msg: 'escalated', conversation: id, integration: input.integration });
    return json(result);
  } catch (error) {
    await conversations.releaseEscalation(id).catch(() => undefined);
    const retryable = error instanceof IntegrationError ? error.retryable : true;
    logger.warn({ msg: 'escalation failed', conversation: id, integration: input.integration, retryable, error: error instanceof Error ? error.message : String(error) });
    const message = error instanceof IntegrationError && !error.retryable ? error.message : MESSAGES.internal;
    throw new HttpError(500, 'internal_error', message, { retryable });
  }
}

export const escalateRoutes: Route[] = [
  { method: 'POST', pattern: '/v0/chat/:id/escalate', scope: 'chat:escalate', bucket: 'escalate', idempotent: true, handler: escalate },
];
