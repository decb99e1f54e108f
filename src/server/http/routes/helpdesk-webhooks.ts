/**
 * @module Receivers for helpdesk webhooks: `POST /v0/webhooks/{source}/{org_id}`. The source is
 * looked up in the helpdesk registry; each registered helpdesk with a `webhook` receiver
 * (`helpdesks/<name>/webhook.ts`) authenticates the delivery by its signature over the raw body,
 * with the organization's webhook secret, and says which synced ticket to upsert or remove.
 *
 * An organization without a webhook secret for the source has no receiver (404), answered before
 * the body is read. A body is read only for a receiver that exists, up to WEBHOOK_MAX_BODY_BYTES
 * and within the body timeout. Events that are not about tickets are acknowledged and ignored,
 * so the helpdesk does not retry them.
 */
import type { Integration } from '../../../protocol/index.js';
import { helpdesks as registry, type HelpdeskRegistry, type Helpdesk, type IntegrationSettings, type WebhookEffect } from '../../helpdesks/index.js';
import { CLOSE, readBodyWithin } from '../body.js';
import { HttpError } from '../errors.js';
import { MESSAGES } from '../../../protocol/index.js';
import { json, type ApiResponse } from '../exchange.js';
import type { Route, RouteContext } from '../router.js';

/** The largest webhook body read: helpdesk events about one ticket are a few KiB. */
export const WEBHOOK_MAX_BODY_BYTES = 64 * 1024;
/** How long a webhook body may take to arrive once its headers have. */
export const DEFAULT_WEBHOOK_BODY_TIMEOUT_MS = 10_000;

export interface WebhookRouteOptions {
  /** @default DEFAULT_WEBHOOK_BODY_TIMEOUT_MS */
  bodyTimeoutMs?: number;
}

/** A delivery whose signature (and timestamp) checked out, with its parsed body. */
interface Verified {
  helpdesk: Helpdesk & Required<Pick<Helpdesk, 'webhook'>>;
  orgId: string;
  settings: IntegrationSettings;
  body: Record<string, unknown>;
}

/**
 * Authenticates a delivery: its source is a registered helpdesk with a receiver and the
 * organization has a webhook secret for it (else 404), the helpdesk's signature over the raw
 * body matches (else 401), and its timestamp is recent (else 401: a replayed old delivery is
 * refused even with a valid signature).
 */
async function authenticate(ctx: RouteContext, helpdesks: HelpdeskRegistry): Promise<Verified> {
  const { orgId, helpdesk, settings, secret } = await receiver(ctx, helpdesks);
  const body = helpdesk.webhook.verify({ raw: ctx.rawBody(), header: (name) => ctx.request.header(name), secret, now: ctx.services.now() });
  return { helpdesk, orgId, settings, body };
}

/** The receiver a delivery is for: 404 (closing the connection) for an unknown source or an organization without a secret. */
async function receiver(ctx: RouteContext, helpdesks: HelpdeskRegistry): Promise<Omit<Verified, 'body'> & { secret: string }> {
  const orgId = ctx.params.org!;
  const helpdesk = helpdesks.get(ctx.params.source!);
  if (!helpdesk?.webhook) throw noReceiver();
  const settings = await ctx.services.integrationSettings(orgId, helpdesk.name as Integration);
  const secret = settings.webhookSecret;
  if (!secret) throw noReceiver();
  return { orgId, helpdesk: helpdesk as Verified['helpdesk'], settings, secret };
}

const noReceiver = () => new HttpError(404, 'not_found', MESSAGES.notFound, { headers: CLOSE });

/**
 * Whether a delivery is genuine (signed by the helpdesk, recent). Only genuine deliveries count
 * against the organization's webhook bucket; forged ones count against their sender's address,
 * so they can never use up the quota the real helpdesk needs.
 */
export async function isGenuineDelivery(ctx: RouteContext, helpdesks: HelpdeskRegistry = registry): Promise<boolean> {
  try {
    await authenticate(ctx, helpdesks);
    return true;
  } catch (error) {
    // A signed delivery with a body we cannot use is still the helpdesk's.
    return error instanceof HttpError && error.status === 400;
  }
}

async function receive(ctx: RouteContext, helpdesks: HelpdeskRegistry): Promise<ApiResponse> {
  const { helpdesk, orgId, settings, body } = await authenticate(ctx, helpdesks);
  const source = helpdesk.name;
  const effect: WebhookEffect = helpdesk.webhook.parse(body, settings);

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
export function helpdeskWebhookRoutesFor(helpdesks: HelpdeskRegistry, options: WebhookRouteOptions = {}): Route[] {
  const timeoutMs = options.bodyTimeoutMs ?? DEFAULT_WEBHOOK_BODY_TIMEOUT_MS;
  return [
    {
      method: 'POST',
      pattern: '/v0/webhooks/:source/:org',
      scope: 'public',
      publicBucket: (params) => `webhook:${params.source}:${params.org}`,
      async readBody(ctx) {
        await receiver(ctx, helpdesks);
        return readBodyWithin(ctx.request, { limit: WEBHOOK_MAX_BODY_BYTES, timeoutMs });
      },
      genuine: (ctx) => isGenuineDelivery(ctx, helpdesks),
      handler: (ctx) => receive(ctx, helpdesks),
    },
  ];
}

/** The receivers of the server's helpdesk registry. */
export const helpdeskWebhookRoutes: Route[] = helpdeskWebhookRoutesFor(registry);
