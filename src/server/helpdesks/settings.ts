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
