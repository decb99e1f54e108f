/** @module POST /v0/chat/{id}/escalate: exactly one helpdesk ticket per conversation. */
import { MESSAGES, type EscalationResult } from '../../../protocol/index.js';
import { EscalationRequest, parseBody, trimContact, type EscalationBody } from '../../../protocol/schemas/index.js';
import { helpdesks } from '../../helpdesks/index.js';
import { IntegrationError } from '../../helpdesks/types.js';
import { IN_PROGRESS_RETRY_AFTER_SECONDS } from '../../store/idempotency.js';
import { badRequest, conflict, HttpError, notFound } from '../errors.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

/** A checked escalation body as the handler uses it: contact trimmed, label ids once each. */
function readEscalation(body: EscalationBody) {
  const extra = body.additional_fields ?? {};
  return {
    integration: body.integration,
    ...trimContact(body),
    title: body.title ?? undefined,
    summary: body.summary ?? undefined,
    labelTypeIds: [...new Set(extra.label_type_ids ?? [])],
    priority: extra.priority,
  };
}

async function escalate(ctx: RouteContext): Promise<ApiResponse> {
  const id = ctx.params.id!;
  const orgId = ctx.auth!.orgId;
  const { conversations, engine, integrations, logger } = ctx.services;
  const record = await conversations.get(orgId, id);
  if (!record) throw notFound();
  const input = readEscalation(parseBody(EscalationRequest, ctx.body()));
  // The helpdesks are the registry's, as it stands now: one registered at run time is escalated to too.
  if (!helpdesks.get(input.integration)) throw badRequest(`"integration" must be one of ${helpdesks.all().map((h) => h.name).join(', ')}`);
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
    // The detail (which setting is missing, what the helpdesk said) is for the operator's log; the
    // response reaches visitors through the proxy, so it only says whether retrying can help.
    const fields = { msg: 'escalation failed', conversation: id, integration: input.integration, retryable, error: error instanceof Error ? error.message : String(error) };
    if (retryable) logger.warn(fields);
    else logger.error(fields);
    throw new HttpError(500, 'internal_error', retryable ? MESSAGES.internal : ESCALATION_NOT_CONFIGURED, { retryable });
  }
}

/** What a client is told when retrying cannot help (a missing setting, a refused API key): never the setting's name or the helpdesk's words. */
export const ESCALATION_NOT_CONFIGURED = 'Escalation is not available: the helpdesk integration is not set up correctly (the server log says why)';

export const escalateRoutes: Route[] = [
  { method: 'POST', pattern: '/v0/chat/:id/escalate', scope: 'chat:escalate', bucket: 'escalate', idempotent: true, handler: escalate },
];
