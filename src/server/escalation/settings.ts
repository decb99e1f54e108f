/**
 * @module Integration settings per organization (API key, endpoint URL, Linear team, webhook
 * secrets), stored in SQLite by `support-chat integrations set`, with the environment as the
 * fallback for every setting an organization has not set itself.
 */
import { helpdesks } from '../helpdesks/index.js';
import { SETTING_FLAGS } from '../helpdesks/settings.js';
import type { IntegrationSettings, SettingKey } from '../helpdesks/types.js';
import type { Db, Migration } from '../store/database.js';

export type { IntegrationSettings, SettingKey } from '../helpdesks/types.js';

/** The settings a registered helpdesk takes, each with its environment variable; empty for an unknown name. */
export function settingsOf(integration: string): Partial<Record<SettingKey, string>> {
  return helpdesks.get(integration)?.settings ?? {};
}

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
  stored(orgId: string, integration: string): IntegrationSettings {
    const row = this.#db.prepare('SELECT settings FROM integration_settings WHERE org_id = ? AND integration = ?').get(orgId, integration) as { settings: string } | undefined;
    return row ? (JSON.parse(row.settings) as IntegrationSettings) : {};
  }

  /** Merges `patch` into the organization's settings; an empty string removes a setting. */
  set(orgId: string, integration: string, patch: IntegrationSettings): IntegrationSettings {
    const allowed = settingsOf(integration);
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

  remove(orgId: string, integration: string): boolean {
    return this.#db.prepare('DELETE FROM integration_settings WHERE org_id = ? AND integration = ?').run(orgId, integration).changes > 0;
  }

  /** Organizations and integrations with stored settings. */
  list(orgId?: string): { orgId: string; integration: string; settings: IntegrationSettings; updatedAt: string }[] {
    const rows = this.#db
      .prepare('SELECT org_id, integration, settings, updated_at FROM integration_settings WHERE (? IS NULL OR org_id = ?) ORDER BY org_id, integration')
      .all(orgId ?? null, orgId ?? null) as { org_id: string; integration: string; settings: string; updated_at: string }[];
    return rows.map((r) => ({ orgId: r.org_id, integration: r.integration, settings: JSON.parse(r.settings) as IntegrationSettings, updatedAt: r.updated_at }));
  }

  /** The time of the first attempt to escalate this conversation here, recording now when there was none. */
  firstAttempt(orgId: string, integration: string, conversationId: string, now: Date): { at: Date; previous: boolean } {
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
export function effectiveSettings(stored: IntegrationSettings, env: NodeJS.ProcessEnv, integration: string, variables = settingsOf(integration)): IntegrationSettings {
  const result: IntegrationSettings = {};
  for (const [key, variable] of Object.entries(variables) as [SettingKey, string][]) {
    const value = stored[key] ?? env[variable];
    if (value) result[key] = value;
  }
  return result;
}
