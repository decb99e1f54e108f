/**
 * @module Integration settings per organization (API key, endpoint URL, Linear team, webhook
 * secrets), stored in SQLite by `support-chat integrations set`, with the environment as the
 * fallback for every setting an organization has not set itself.
 */
import type { Integration } from '../../protocol/index.js';
import type { Db, Migration } from '../store/database.js';

export type Helpdesk = Exclude<Integration, 'webhook'>;
export const HELPDESKS: readonly Helpdesk[] = ['plain', 'pylon', 'linear'];

export interface IntegrationSettings {
  /** Helpdesk API key (Plain, Pylon, Linear). */
  apiKey?: string;
  /** Helpdesk API endpoint; defaults to the vendor's public one. */
  apiUrl?: string;
  /** Plain workspace id for ticket links; looked up with the API key when absent. */
  workspaceId?: string;
  /** Linear team that escalations create issues in. */
  teamId?: string;
  /** Secret that signs the helpdesk's webhooks to `/v0/webhooks/{source}/{org}`. */
  webhookSecret?: string;
  /** `webhook` integration: where tickets are POSTed. */
  url?: string;
  /** `webhook` integration: HMAC signing secret. */
  secret?: string;
}

export type SettingKey = keyof IntegrationSettings;

/** The settings each integration takes, and the environment variable behind each. */
export const SETTINGS: Record<Integration, Partial<Record<SettingKey, string>>> = {
  plain: { apiKey: 'PLAIN_API_KEY', apiUrl: 'PLAIN_API_URL', workspaceId: 'PLAIN_WORKSPACE_ID', webhookSecret: 'PLAIN_WEBHOOK_SECRET' },
  pylon: { apiKey: 'PYLON_API_KEY', apiUrl: 'PYLON_API_URL', webhookSecret: 'PYLON_WEBHOOK_SECRET' },
  linear: { apiKey: 'LINEAR_API_KEY', apiUrl: 'LINEAR_API_URL', teamId: 'LINEAR_TEAM_ID', webhookSecret: 'LINEAR_WEBHOOK_SECRET' },
  webhook: { url: 'SUPPORT_CHAT_WEBHOOK_URL', secret: 'SUPPORT_CHAT_WEBHOOK_SECRET' },
};

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

export const integrationMigrations: Migration[] = [
  {
    component: 'integrations',
    version: 1,
    description: 'per-organization integration settings and escalation attempts',
    up: `
      CREATE TABLE integration_settings (
        org_id TEXT NOT NULL,
        integration TEXT NOT NULL,
        settings TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (org_id, integration)
      );
      CREATE TABLE escalation_attempts (
        org_id TEXT NOT NULL,
        integration TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        first_attempt_at TEXT NOT NULL,
        PRIMARY KEY (org_id, integration, conversation_id)
      );
    `,
  },
];

export class IntegrationSettingsStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** What the organization set itself (no environment). */
  stored(orgId: string, integration: Integration): IntegrationSettings {
    const row = this.#db.prepare('SELECT settings FROM integration_settings WHERE org_id = ? AND integration = ?').get(orgId, integration) as { settings: string } | undefined;
    return row ? (JSON.parse(row.settings) as IntegrationSettings) : {};
  }

  /** Merges `patch` into the organization's settings; an empty string removes a setting. */
  set(orgId: string, integration: Integration, patch: IntegrationSettings): IntegrationSettings {
    const allowed = SETTINGS[integration];
    for (const key of Object.keys(patch) as SettingKey[]) {
      if (!(key in allowed)) throw new Error(`${integration} has no setting ${SETTING_FLAGS[key] ?? key}`);
    }
    return this.#db.transaction(() => {
      const next: IntegrationSettings = { ...this.stored(orgId, integration) };
      for (const [key, value] of Object.entries(patch) as [SettingKey, string | undefined][]) {
        if (value === undefined) continue;
        if (value === '') delete next[key];
        else next[key] = value;
      }
      this.#db
        .prepare(
          `INSERT INTO integration_settings (org_id, integration, settings, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (org_id, integration) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
        )
        .run(orgId, integration, JSON.stringify(next), new Date().toISOString());
      return next;
    })();
  }

  remove(orgId: string, integration: Integration): boolean {
    return this.#db.prepare('DELETE FROM integration_settings WHERE org_id = ? AND integration = ?').run(orgId, integration).changes > 0;
  }

  /** Organizations and integrations with stored settings. */
  list(orgId?: string): { orgId: string; integration: Integration; settings: IntegrationSettings; updatedAt: string }[] {
    const rows = this.#db
      .prepare('SELECT org_id, integration, settings, updated_at FROM integration_settings WHERE (? IS NULL OR org_id = ?) ORDER BY org_id, integration')
      .all(orgId ?? null, orgId ?? null) as { org_id: string; integration: Integration; settings: string; updated_at: string }[];
    return rows.map((r) => ({ orgId: r.org_id, integration: r.integration, settings: JSON.parse(r.settings) as IntegrationSettings, updatedAt: r.updated_at }));
  }

  /** The time of the first attempt to escalate this conversation here, recording now when there was none. */
  firstAttempt(orgId: string, integration: Integration, conversationId: string, now: Date): { at: Date; previous: boolean } {
    const inserted = this.#db
      .prepare('INSERT OR IGNORE INTO escalation_attempts (org_id, integration, conversation_id, first_attempt_at) VALUES (?, ?, ?, ?)')
      .run(orgId, integration, conversationId, now.toISOString());
    if (inserted.changes > 0) return { at: now, previous: false };
    const row = this.#db
      .prepare('SELECT first_attempt_at FROM escalation_attempts WHERE org_id = ? AND integration = ? AND conversation_id = ?')
      .get(orgId, integration, conversationId) as { first_attempt_at: string };
    return { at: new Date(row.first_attempt_at), previous: true };
  }
}

/** Each setting from the organization's own settings, else from the environment. */
export function effectiveSettings(stored: IntegrationSettings, env: NodeJS.ProcessEnv, integration: Integration): IntegrationSettings {
  const result: IntegrationSettings = {};
  for (const [key, variable] of Object.entries(SETTINGS[integration]) as [SettingKey, string][]) {
    const value = stored[key] ?? env[variable];
    if (value) result[key] = value;
  }
  return result;
}

/** "set PLAIN_API_KEY (or `support-chat integrations set plain --org ORG --api-key …`)". */
export function missingSettingHint(integration: Integration, keys: SettingKey[]): string {
  const variables = keys.map((k) => SETTINGS[integration][k]).join(' and ');
  const flags = keys.map((k) => `${SETTING_FLAGS[k]} …`).join(' ');
  return `set ${variables} (or run support-chat integrations set ${integration} --org ORG ${flags})`;
}
