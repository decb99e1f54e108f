/** @module Which integration handles an escalation, per organization and name. */
import type { Integration } from '../../protocol/index.js';
import type { Db } from '../store/database.js';
import { IntegrationError, type EscalationIntegration, type IntegrationResolver } from './types.js';
import { createWebhookIntegration } from './webhook.js';

export { IntegrationError } from './types.js';
export type { EscalationIntegration, IntegrationResolver, TicketDraft, CreatedTicket } from './types.js';
export { createWebhookIntegration, verifyWebhookSignature, signWebhook, webhookTicketId } from './webhook.js';

export interface IntegrationResolverOptions {
  /** Environment with SUPPORT_CHAT_WEBHOOK_URL and the helpdesk keys. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per-organization settings, when stored. */
  db?: Db;
}

/** Builds the resolver the server uses; each call builds a client from the current configuration. */
export function createIntegrationResolver(options: IntegrationResolverOptions = {}): IntegrationResolver {
  const env = options.env ?? process.env;
  return (orgId: string, name: Integration): EscalationIntegration => {
    if (name === 'webhook') {
      const url = env.SUPPORT_CHAT_WEBHOOK_URL;
      const secret = env.SUPPORT_CHAT_WEBHOOK_SECRET;
      if (!url || !secret) {
        throw new IntegrationError('Webhook integration is not configured: set SUPPORT_CHAT_WEBHOOK_URL and SUPPORT_CHAT_WEBHOOK_SECRET', { retryable: false });
      }
      return createWebhookIntegration({ url, secret, fetch: options.fetch });
    }
    return helpdeskIntegration(orgId, name, env, options);
  };
}

/** Plain, Pylon and Linear clients plug in here. */
function helpdeskIntegration(_orgId: string, name: Exclude<Integration, 'webhook'>, _env: NodeJS.ProcessEnv, _options: IntegrationResolverOptions): EscalationIntegration {
  const variable = `${name.toUpperCase()}_API_KEY`;
  const label = name[0]!.toUpperCase() + name.slice(1);
  throw new IntegrationError(`${label} integration is not configured: set ${variable}`, { retryable: false });
}
