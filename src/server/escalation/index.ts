/** @module Which helpdesk client handles an escalation, per organization and name: looked up in the helpdesk registry, built from the organization's settings. */
import { guardTargets } from '../helpdesks/targets.js';
import { localTargetsAllowed } from '../local-targets.js';
import type { Integration } from '../../protocol/index.js';
import { helpdesks as registry, type HelpdeskRegistry } from '../helpdesks/index.js';
import type { Sql } from '../store/sql.js';
import { effectiveSettings, IntegrationSettingsStore } from './settings.js';
import { IntegrationError, type EscalationIntegration, type IntegrationResolver } from '../helpdesks/types.js';

export { IntegrationError } from '../helpdesks/types.js';
export type { EscalationIntegration, IntegrationResolver, TicketDraft, CreatedTicket } from '../helpdesks/types.js';
export { requireSettings } from '../helpdesks/settings.js';
export { createWebhookIntegration, verifyWebhookSignature, signWebhook, webhookTicketId } from '../helpdesks/webhook/index.js';
export { createPlainIntegration, PlainClient } from '../helpdesks/plain/index.js';
export { createPylonIntegration, PylonClient } from '../helpdesks/pylon/index.js';
export { createLinearIntegration, LinearClient, linearIssueId } from '../helpdesks/linear/index.js';
export { IntegrationSettingsStore, integrationMigrations, effectiveSettings, type IntegrationSettings } from './settings.js';

export interface IntegrationResolverOptions {
  /** Environment with the fallback settings (PLAIN_API_KEY, SUPPORT_CHAT_WEBHOOK_URL, …). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per-organization settings and escalation attempts (migrations: integrationMigrations). */
  sql?: Sql;
  /** Per helpdesk call. @default SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS, else 10000 */
  timeoutMs?: number;
  now?: () => number;
  /** Where helpdesks are looked up. @default the server's registry */
  helpdesks?: HelpdeskRegistry;
  /** Allow targets on loopback or link-local addresses (see local-targets.ts). @default env SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true, else false */
  allowLocalTargets?: boolean;
}

/** Builds the resolver the server uses; each call builds a client from the current settings. */
export function createIntegrationResolver(options: IntegrationResolverOptions = {}): IntegrationResolver {
  const env = options.env ?? process.env;
  const store = options.sql ? new IntegrationSettingsStore(options.sql) : undefined;
  const now = options.now ?? Date.now;
  const helpdesks = options.helpdesks ?? registry;
  const fromEnv = Number(env.SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS);
  const timeoutMs = options.timeoutMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : undefined);
  const guarded = guardTargets(options.fetch, options.allowLocalTargets ?? localTargetsAllowed(env));
  return async (orgId: string, name: Integration | string): Promise<EscalationIntegration> => {
    const helpdesk = helpdesks.get(name);
    if (!helpdesk) throw new IntegrationError(`No helpdesk named "${name}" is registered`, { retryable: false });
    const settings = effectiveSettings((await store?.stored(orgId, name)) ?? {}, env, name, helpdesk.settings);
    return helpdesk.escalation(settings, {
      fetch: guarded,
      timeoutMs,
      now,
      firstAttempt: store ? (conversationId) => store.firstAttempt(orgId, name, conversationId, new Date(now())) : undefined,
    });
  };
}
