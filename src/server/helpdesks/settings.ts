/** @module What a helpdesk's settings are called on the command line, and the check that the required ones are set. */
import { IntegrationError, type Helpdesk, type IntegrationSettings, type SettingKey } from './types.js';

/** The CLI flag for each setting, for messages that tell an operator what to set. */
export const SETTING_FLAGS: Record<SettingKey, string> = {
  apiKey: '--api-key',
  apiUrl: '--api-url',
  workspaceId: '--workspace-id',
  teamId: '--team-id',
  webhookSecret: '--webhook-secret',
  url: '--url',
  secret: '--secret',
};

/** Settings that are secrets: never printed back. */
export const SECRET_SETTINGS: ReadonlySet<SettingKey> = new Set(['apiKey', 'webhookSecret', 'secret']);

/** Settings that are capability URLs (a Slack, Zapier or n8n hook's path and query are its secret): printed as their origin only. */
export const CAPABILITY_URL_SETTINGS: ReadonlySet<SettingKey> = new Set(['url']);

/**
 * A setting as it may be printed: a secret as its last four characters, a capability URL as its
 * origin and the last four characters of the rest, anything else as it is.
 *
 * @example
 * printableSetting('url', 'https://hooks.slack.com/services/T0/B0/XyZ123') // 'https://hooks.slack.com/…Z123'
 */
export function printableSetting(key: SettingKey, value: string): string {
  if (SECRET_SETTINGS.has(key)) return `…${value.slice(-4)}`;
  if (!CAPABILITY_URL_SETTINGS.has(key)) return value;
  if (!URL.canParse(value)) return `…${value.slice(-4)}`;
  const url = new URL(value);
  const rest = value.slice(url.origin.length);
  return rest.length > 1 ? `${url.origin}/…${rest.slice(-4)}` : url.origin;
}

/** "set PLAIN_API_KEY (or run support-chat-kit integrations set plain --org ORG --api-key …)". */
export function missingSettingHint(helpdesk: Pick<Helpdesk, 'name' | 'settings'>, keys: SettingKey[]): string {
  const variables = keys.map((k) => helpdesk.settings[k]).join(' and ');
  const flags = keys.map((k) => `${SETTING_FLAGS[k]} …`).join(' ');
  return `set ${variables} (or run support-chat-kit integrations set ${helpdesk.name} --org ORG ${flags})`;
}

/** The settings with `keys` present, or an IntegrationError (retryable: false) naming what is missing. */
export function requireSettings<K extends SettingKey>(settings: IntegrationSettings, helpdesk: Pick<Helpdesk, 'name' | 'label' | 'settings'>, keys: K[]): IntegrationSettings & Required<Pick<IntegrationSettings, K>> {
  const missing = keys.filter((k) => !settings[k]);
  if (missing.length > 0) {
    throw new IntegrationError(`${helpdesk.label} integration is not configured: ${missingSettingHint(helpdesk, missing)}`, { retryable: false });
  }
  return settings as IntegrationSettings & Required<Pick<IntegrationSettings, K>>;
}
