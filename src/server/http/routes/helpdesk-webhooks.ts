/**
 * @module Receivers for helpdesk webhooks: `POST /v0/webhooks/{plain|pylon|linear}/{org_id}`.
 * Each delivery is authenticated by the helpdesk's signature over the raw body, with the
 * organization's webhook secret, then upserts or removes the synced ticket it is about.
 *
 * - Plain: `Plain-Request-Signature`, hex HMAC-SHA256 of the body; its `timestamp` within 5 minutes.
 * - Linear: `Linear-Signature`, hex HMAC-SHA256 of the body; `webhookTimestamp` within 60 s.
 * - Pylon: `Pylon-Webhook-Signature`, `hs256=` + hex HMAC-SHA256 of `<timestamp>.<body>`;
 *   `Pylon-Webhook-Timestamp` within 5 minutes.
 *
 * An organization without a webhook secret for the source has no receiver (404). Events that are
 * not about tickets are acknowledged and ignored, so the helpdesk does not retry them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { HELPDESKS, type Helpdesk } from '../../escalation/settings.js';
import { plainThreadUrl, type PlainThread } from '../../escalation/plain.js';
import type { LinearIssue } from '../../escalation/linear.js';
import type { PylonIssue } from '../../escalation/pylon.js';
import { linearTicket, plainThreadTicket, pylonTicket } from '../../tickets/sync.js';
import type { TicketInput } from '../../tickets/types.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

const LINEAR_TOLERANCE_MS = 60_000;
/** Plain's own SDK refuses deliveries older than 300 seconds. */
const PLAIN_TOLERANCE_MS = 5 * 60_000;
const PYLON_TOLERANCE_MS = 5 * 60_000;

const invalidSignature = () => new HttpError(401, 'unauthorized', 'Invalid webhook signature');

function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

function sameText(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given.trim());
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a delivery asks for, once verified and read. */
type Effect = { kind: 'upsert'; ticket: TicketInput } | { kind: 'remove'; externalId: string } | { kind: 'ignore' };

function object(value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`Webhook payload is missing ${what}`);
  return value as Record<string, unknown>;
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw badRequest(`Webhook payload is missing ${what}`);
  return value;
}

function plainEffect(body: Record<string, unknown>): Effect {
  const payload = object(body.payload, 'payload');
  const eventType = text(payload.eventType ?? body.type, 'payload.eventType');
  if (!eventType.startsWith('thread.') || payload.thread === undefined) return { kind: 'ignore' };
  const thread = object(payload.thread, 'payload.thread');
  const id = text(thread.id, 'payload.thread.id');
  if (eventType.endsWith('_deleted')) return { kind: 'remove', externalId: id };
  const workspaceId = text(body.workspaceId, 'workspaceId');
  const customer = object(thread.customer, 'payload.thread.customer');
  const email = customer.email as { email?: unknown } | null | undefined;
  const checked: PlainThread = {
    id,
    externalId: typeof thread.externalId === 'string' ? thread.externalId : null,
    title: text(thread.title, 'payload.thread.title'),
    previewText: typeof thread.previewText === 'string' ? thread.previewText : null,
    status: text(thread.status, 'payload.thread.status'),
    priority: typeof thread.priority === 'number' ? thread.priority : 2,
    customer: {
      id: typeof customer.id === 'string' ? customer.id : '',
      fullName: typeof customer.fullName === 'string' ? customer.fullName : '',
      email: typeof email?.email === 'string' ? { email: email.email } : null,
    },
    createdAt: { iso8601: text(object(thread.createdAt, 'payload.thread.createdAt').iso8601, 'payload.thread.createdAt.iso8601') },
    updatedAt: { iso8601: text(object(thread.updatedAt, 'payload.thread.updatedAt').iso8601, 'payload.thread.updatedAt.iso8601') },
  };
  return { kind: 'upsert', ticket: plainThreadTicket(checked, plainThreadUrl(workspaceId, id)) };
}

function linearEffect(body: Record<string, unknown>, teamId: string | undefined): Effect {
  if (body.type !== 'Issue') return { kind: 'ignore' };
  const action = text(body.action, 'action');
  const data = object(body.data, 'data');
  const id = text(data.id, 'data.id');
  // Sync reads the configured team only; deliveries about other teams' issues are not ours.
  const issueTeam = typeof data.teamId === 'string' ? data.teamId : (data.team as { id?: unknown } | undefined)?.id;
  if (teamId && issueTeam !== undefined && issueTeam !== teamId) return { kind: 'ignore' };
  if (action === 'remove') return { kind: 'remove', externalId: id };
  if (action !== 'create' && action !== 'update') return { kind: 'ignore' };
  const state = object(data.state, 'data.state');
  const issue: LinearIssue = {
    id,
    identifier: typeof data.identifier === 'string' ? data.identifier : id,
    title: text(data.title, 'data.title'),
    description: typeof data.description === 'string' ? data.description : null,
    url: text(data.url ?? body.url, 'data.url'),
    priority: typeof data.priority === 'number' ? data.priority : 0,
    createdAt: text(data.createdAt, 'data.createdAt'),
    updatedAt: text(data.updatedAt, 'data.updatedAt'),
    state: { name: text(state.name, 'data.state.name') },
    team: { id: typeof issueTeam === 'string' ? issueTeam : '' },
  };
  return { kind: 'upsert', ticket: linearTicket(issue) };
}

function pylonEffect(body: Record<string, unknown>): Effect {
  const eventType = text(body.event_type, 'event_type');
  if (!eventType.startsWith('issue.')) return { kind: 'ignore' };
  const data = object(body.data, 'data');
  const id = text(data.id, 'data.id');
  if (eventType === 'issue.deleted') return { kind: 'remove', externalId: id };
  const issue: PylonIssue = {
    id,
    title: text(data.title, 'data.title'),
    body_html: typeof data.body_html === 'string' ? data.body_html : null,
    state: text(data.state, 'data.state'),
    link: text(data.link, 'data.link'),
    created_at: text(data.created_at, 'data.created_at'),
    latest_message_time: typeof data.latest_message_time === 'string' ? data.latest_message_time : null,
    requester: data.requester && typeof data.requester === 'object' ? (data.requester as PylonIssue['requester']) : null,
  };
  return { kind: 'upsert', ticket: pylonTicket(issue) };
}

function parse(raw: string): Record<string, unknown> {
  try {
    return object(JSON.parse(raw), 'a JSON object');
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw badRequest('Webhook payload is not valid JSON');
  }
}

/** A delivery whose signature (and timestamp) checked out, with its parsed body. */
interface Verified {
  source: Helpdesk;
  orgId: string;
  settings: ReturnType<RouteContext['services']['integrationSettings']>;
  body: Record<string, unknown>;
}

/**
 * Authenticates a delivery: its source has a receiver for the organization (else 404), the
 * helpdesk's signature over the raw body matches (else 401), and its timestamp is recent (else
 * 401: a replayed old delivery is refused even with a valid signature).
 */
function authenticate(ctx: RouteContext): Verified {
  const source = ctx.params.source as Helpdesk;
  const orgId = ctx.params.org!;
  if (!(HELPDESKS as readonly string[]).includes(source)) throw notFound();
  const settings = ctx.services.integrationSettings(orgId, source);
  const secret = settings.webhookSecret;
  if (!secret) throw notFound();
  const raw = ctx.rawBody();
  const now = ctx.services.now();
  if (source === 'plain') {
    if (!sameText(hmacHex(secret, raw), ctx.request.header('plain-request-signature'))) throw invalidSignature();
    const body = parse(raw);
    // Plain signs the body only; its top-level `timestamp` (ISO 8601) says when the event was sent.
    const sent = typeof body.timestamp === 'string' ? Date.parse(body.timestamp) : Number.NaN;
    if (!Number.isFinite(sent) || Math.abs(now - sent) > PLAIN_TOLERANCE_MS) throw invalidSignature();
    return { source, orgId, settings, body };
  }
  if (source === 'linear') {
    if (!sameText(hmacHex(secret, raw), ctx.request.header('linear-signature'))) throw invalidSignature();
    const body = parse(raw);
    const sent = body.webhookTimestamp;
    if (typeof sent !== 'number' || Math.abs(now - sent) > LINEAR_TOLERANCE_MS) throw invalidSignature();
    return { source, orgId, settings, body };
  }
  const timestamp = ctx.request.header('pylon-webhook-timestamp');
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || Math.abs(now - Number(timestamp) * 1000) > PYLON_TOLERANCE_MS) throw invalidSignature();
  if (!sameText(`hs256=${hmacHex(secret, `${timestamp}.${raw}`)}`, ctx.request.header('pylon-webhook-signature'))) throw invalidSignature();
  return { source, orgId, settings, body: parse(raw) };
}

/**
 * Whether a delivery is genuine (signed by the helpdesk, recent). Only genuine deliveries count
 * against the organization's webhook bucket; forged ones count against their sender's address,
 * so they can never use up the quota the real helpdesk needs.
 */
export function isGenuineDelivery(ctx: RouteContext): boolean {
  try {
    authenticate(ctx);
    return true;
  } catch (error) {
    // A signed delivery with a body we cannot use is still the helpdesk's.
    return error instanceof HttpError && error.status === 400;
  }
}

async function receive(ctx: RouteContext): Promise<ApiResponse> {
  const { source, orgId, settings, body } = authenticate(ctx);
  let effect: Effect;
  if (source === 'plain') effect = plainEffect(body);
  else if (source === 'linear') effect = linearEffect(body, settings.teamId);
  else effect = pylonEffect(body);

  const { tickets, logger } = ctx.services;
  if (effect.kind === 'upsert') {
    // Deliveries can arrive out of order: an older state never overwrites a newer one.
    const current = await tickets.get(orgId, source, effect.ticket.externalId);
    if (current && current.updated_at > effect.ticket.updatedAt) {
      logger.info({ msg: 'helpdesk webhook', source, org: orgId, effect: 'stale' });
      return json({ received: true, ignored: 'stale' });
    }
    await tickets.upsert(orgId, effect.ticket);
  } else if (effect.kind === 'remove') {
    await tickets.remove(orgId, source, effect.externalId);
  }
  logger.info({ msg: 'helpdesk webhook', source, org: orgId, effect: effect.kind });
  return json(effect.kind === 'ignore' ? { received: true, ignored: 'event' } : { received: true });
}

/**
 * Routes authenticated by the helpdesk's signature instead of a bearer token (scope `public`).
 * Genuine deliveries count per source and organization, at the organization's limit, not against
 * the sending address's 60 a minute; forged ones count against the sending address only.
 */
export const helpdeskWebhookRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/v0/webhooks/:source/:org',
    scope: 'public',
    publicBucket: (params) => `webhook:${params.source}:${params.org}`,
    genuine: isGenuineDelivery,
    handler: receive,
  },
];
