/**
 * @module Integration settings per organization (API key, endpoint URL, Linear team, webhook
 * secrets), stored in the database by `support-chat-kit integrations set`, with the environment as the
 * fallback for every setting an organization has not set itself.
 */
import { helpdesks } from '../helpdesks/index.js';
import { SETTING_FLAGS } from '../helpdesks/settings.js';
import type { IntegrationSettings, SettingKey } from '../helpdesks/types.js';
import type { Migration } from '../store/migrate.js';
import type { Sql } from '../store/sql.js';

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
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** What the organization set itself (no environment). */
  async stored(orgId: string, integration: string): Promise<IntegrationSettings> {
    return readSettings(this.#sql, orgId, integration, '');
  }

  /** Merges `patch` into the organization's settings; an empty string removes a setting. */
  async set(orgId: string, integration: string, patch: IntegrationSettings): Promise<IntegrationSettings> {
    const allowed = settingsOf(integration);
    for (const key of Object.keys(patch) as SettingKey[]) {
      if (!(key in allowed)) throw new Error(`${integration} has no setting ${SETTING_FLAGS[key] ?? key}`);
    }
    return this.#sql.transaction(async (tx) => {
      // Two updates at once must both count: the row exists first, then is read under its lock
      // (PostgreSQL; SQLite has one writer), so the second merges into what the first wrote.
      await tx.run(
        `INSERT INTO integration_settings (org_id, integration, settings, updated_at) VALUES (?, ?, '{}', ?)
         ON CONFLICT (org_id, integration) DO NOTHING`,
        [orgId, integration, new Date().toISOString()],
      );
      const next: IntegrationSettings = { ...(await readSettings(tx, orgId, integration, tx.dialect === 'postgres' ? ' FOR UPDATE' : '')) };
      for (const [key, value] of Object.entries(patch) as [SettingKey, string | undefined][]) {
        if (value === undefined) continue;
        if (value === '') delete next[key];
        else next[key] = value;
      }
      await tx.run('UPDATE integration_settings SET settings = ?, updated_at = ? WHERE org_id = ? AND integration = ?', [
        JSON.stringify(next),
        new Date().toISOString(),
        orgId,
        integration,
      ]);
      return next;
    });
  }

  async remove(orgId: string, integration: string): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM integration_settings WHERE org_id = ? AND integration = ?', [orgId, integration])) > 0;
  }

  /** Organizations and integrations with stored settings. */
  async list(orgId?: string): Promise<{ orgId: string; integration: string; settings: IntegrationSettings; updatedAt: string }[]> {
    const columns = 'SELECT org_id, integration, settings, updated_at FROM integration_settings';
    const rows = await this.#sql.all<{ org_id: string; integration: string; settings: string; updated_at: string }>(
      orgId === undefined ? `${columns} ORDER BY org_id, integration` : `${columns} WHERE org_id = ? ORDER BY org_id, integration`,
      orgId === undefined ? [] : [orgId],
    );
    return rows.map((r) => ({ orgId: r.org_id, integration: r.integration, settings: JSON.parse(r.settings) as IntegrationSettings, updatedAt: r.updated_at }));
  }

  /** The time of the first attempt to escalate this conversation here, recording now when there was none. */
  async firstAttempt(orgId: string, integration: string, conversationId: string, now: Date): Promise<{ at: Date; previous: boolean }> {
    const inserted = await this.#sql.run(
      `INSERT INTO escalation_attempts (org_id, integration, conversation_id, first_attempt_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (org_id, integration, conversation_id) DO NOTHING`,
      [orgId, integration, conversationId, now.toISOString()],
    );
    if (inserted > 0) return { at: now, previous: false };
    const row = await this.#sql.get<{ first_attempt_at: string }>('SELECT first_attempt_at FROM escalation_attempts WHERE org_id = ? AND integration = ? AND conversation_id = ?', [
      orgId,
      integration,
      conversationId,
    ]);
    return { at: new Date(row!.first_attempt_at), previous: true };
  }
}

/** The settings row of one organization and integration (`lock` appended to the query), parsed; {} when none. */
async function readSettings(sql: Sql, orgId: string, integration: string, lock: string): Promise<IntegrationSettings> {
  const row = await sql.get<{ settings: string }>(`SELECT settings FROM integration_settings WHERE org_id = ? AND integration = ?${lock}`, [orgId, integration]);
  return row ? (JSON.parse(row.settings) as IntegrationSettings) : {};
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
