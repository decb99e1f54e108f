/** @module Each organization's retention period: its own when set through the CLI, else the server's default. */
import type { Sql } from '../store/sql.js';

/** How long conversations are kept when nothing else is configured. */
export const DEFAULT_RETENTION_DAYS = 90;
/** Longest retention accepted (about 100 years): beyond it dates stop being meaningful. */
export const MAX_RETENTION_DAYS = 36_500;

/** Thrown for an invalid retention period; the CLI prints its message. */
export class RetentionInputError extends Error {
  override name = 'RetentionInputError';
}

/** Checks a retention period in whole days. */
export function validRetentionDays(days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS) {
    throw new RetentionInputError(`retention must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, got ${days}`);
  }
  return days;
}

export class RetentionSettingsStore {
  readonly #sql: Sql;
  readonly #now: () => number;

  constructor(sql: Sql, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
  }

  /** Sets the organization's own retention period. */
  async set(orgId: string, days: number): Promise<void> {
    validRetentionDays(days);
    await this.#sql.run(
      'INSERT INTO retention_settings (org_id, days, updated_at) VALUES (?, ?, ?) ON CONFLICT (org_id) DO UPDATE SET days = excluded.days, updated_at = excluded.updated_at',
      [orgId, days, new Date(this.#now()).toISOString()],
    );
  }

  /** Removes the organization's own period: the server's default applies again. Resolves with whether one was set. */
  async clear(orgId: string): Promise<boolean> {
    return (await this.#sql.run('DELETE FROM retention_settings WHERE org_id = ?', [orgId])) > 0;
  }

  /** The organization's own period in days, or null when it uses the server's default. */
  async stored(orgId: string): Promise<number | null> {
    return (await this.#sql.get<{ days: number }>('SELECT days FROM retention_settings WHERE org_id = ?', [orgId]))?.days ?? null;
  }

  /** Every organization's own period. */
  async all(): Promise<Map<string, number>> {
    const rows = await this.#sql.all<{ org_id: string; days: number }>('SELECT org_id, days FROM retention_settings');
    return new Map(rows.map((r) => [r.org_id, r.days]));
  }
}
