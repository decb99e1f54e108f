/** @module Which integration handles an escalation, per organization and name, from its settings. */
import type { Integration } from '../../protocol/index.js';
import type { Db } from '../store/database.js';
import { createLinearIntegration } from './linear.js';
import { createPlainIntegration } from './plain.js';
import { createPylonIntegration } from './pylon.js';
import { effectiveSettings, IntegrationSettingsStore, missingSettingHint, type IntegrationSettings, type SettingKey } from './settings.js';
import { IntegrationError, type EscalationIntegration, type IntegrationResolver } from './types.js';
import { createWebhookIntegration } from './webhook.js';

export { IntegrationError } from './types.js';
export type { EscalationIntegration, IntegrationResolver, TicketDraft, CreatedTicket } from './types.js';
export { createWebhookIntegration, verifyWebhookSignature, signWebhook, webhookTicketId } from './webhook.js';
export { createPlainIntegration, PlainClient } from './plain.js';
export { createPylonIntegration, PylonClient } from './pylon.js';
export { createLinearIntegration, LinearClient, linearIssueId } from './linear.js';
export { IntegrationSettingsStore, integrationMigrations, effectiveSettings, HELPDESKS, type Helpdesk, type IntegrationSettings } from './settings.js';

export interface IntegrationResolverOptions {
  /** Environment with the fallback settings (PLAIN_API_KEY, SUPPORT_CHAT_WEBHOOK_URL, …). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per-organization settings and escalation attempts (migrations: integrationMigrations). */
  db?: Db;
  /** Per helpdesk call. @default SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS, else 10000 */
  timeoutMs?: number;
  now?: () => number;
}

const LABELS: Record<Integration, string> = { plain: 'Plain', pylon: 'Pylon', linear: 'Linear', webhook: 'Webhook' };

/** The organization's settings for `name`, or an IntegrationError (retryable: false) naming what is missing. */
export function requireSettings(settings: IntegrationSettings, name: Integration, keys: SettingKey[]): Required<Pick<IntegrationSettings, SettingKey>> {
  const missing = keys.filter((k) => !settings[k]);
  if (missing.length > 0) {
    throw new IntegrationError(`${LABELS[name]} integration is not configured: ${missingSettingHint(name, missing)}`, { retryable: false });
  }
  return settings as Required<IntegrationSettings>;
}

/** Builds the resolver the server uses; each call builds a client from the current settings. */
export function createIntegrationResolver(options: IntegrationResolverOptions = {}): IntegrationResolver {
  const env = options.env ?? process.env;
  const store = options.db ? new IntegrationSettingsStore(options.db) : undefined;
  const now = options.now ?? Date.now;
  const fromEnv = Number(env.SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS);
  const timeoutMs = options.timeoutMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : undefined);
  const common = { fetch: options.fetch, timeoutMs };
  return (orgId: string, name: Integration): EscalationIntegration => {
    const settings = effectiveSettings(store?.stored(orgId, name) ?? {}, env, name);
    switch (name) {
      case 'webhook': {
        const s = requireSettings(settings, name, ['url', 'secret']);
        return createWebhookIntegration({ url: s.url, secret: s.secret, ...common });
      }
      case 'plain': {
        const s = requireSettings(settings, name, ['apiKey']);
        return createPlainIntegration({ apiKey: s.apiKey, apiUrl: settings.apiUrl, workspaceId: settings.workspaceId, ...common });
      }
      case 'pylon': {
        const s = requireSettings(settings, name, ['apiKey']);
        return createPylonIntegration({
          apiKey: s.apiKey,
          apiUrl: settings.apiUrl,
          ...common,
          firstAttempt: store ? (conversationId) => store.firstAttempt(orgId, 'pylon', conversationId, new Date(now())) : undefined,
        });
      }
      case 'linear': {
        const s = requireSettings(settings, name, ['apiKey', 'teamId']);
        return createLinearIntegration({ apiKey: s.apiKey, teamId: s.teamId, apiUrl: settings.apiUrl, ...common });
      }
    }
  };
}
