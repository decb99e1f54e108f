/** @module Each organization's retention period: its own when set through the CLI, else the server's default. */
import type { Db } from '../store/database.js';

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
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  /** Sets the organization's own retention period. */
  set(orgId: string, days: number): void {
    validRetentionDays(days);
    this.#db
      .prepare('INSERT INTO retention_settings (org_id, days, updated_at) VALUES (?, ?, ?) ON CONFLICT (org_id) DO UPDATE SET days = excluded.days, updated_at = excluded.updated_at')
      .run(orgId, days, new Date(this.#now()).toISOString());
  }

  /** Removes the organization's own period: the server's default applies again. Returns whether one was set. */
  clear(orgId: string): boolean {
    return this.#db.prepare('DELETE FROM retention_settings WHERE org_id = ?').run(orgId).changes > 0;
  }

  /** The organization's own period in days, or null when it uses the server's default. */
  stored(orgId: string): number | null {
    return (this.#db.prepare('SELECT days FROM retention_settings WHERE org_id = ?').pluck().get(orgId) as number | undefined) ?? null;
  }

  /** Every organization's own period. */
  all(): Map<string, number> {
    const rows = this.#db.prepare('SELECT org_id, days FROM retention_settings').all() as { org_id: string; days: number }[];
    return new Map(rows.map((r) => [r.org_id, r.days]));
  }
}
