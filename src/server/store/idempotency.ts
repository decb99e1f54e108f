/** @module `Idempotency-Key` on the POST endpoints: the same key and request replays the stored response. */
import { createHash } from 'node:crypto';
import type { Db } from './database.js';

const KEEP_MS = 24 * 60 * 60 * 1000;

export type IdempotencyBegin =
  | { kind: 'new' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };

export class IdempotencyStore {
  readonly #db: Db;
  readonly #now: () => number;

  constructor(db: Db, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  static fingerprint(method: string, path: string, body: string): string {
    return createHash('sha256').update(`${method} ${path}\n${body}`).digest('hex');
  }

  /** Reserves `key` for this request, or says what to do instead. */
  begin(tokenId: string, key: string, fingerprint: string): IdempotencyBegin {
    return this.#db.transaction((): IdempotencyBegin => {
      const now = this.#now();
      this.#db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(now - KEEP_MS);
      const row = this.#db.prepare('SELECT fingerprint, status, body FROM idempotency_keys WHERE token_id = ? AND key = ?').get(tokenId, key) as
        | { fingerprint: string; status: number | null; body: string | null }
        | undefined;
      if (!row) {
        this.#db.prepare('INSERT INTO idempotency_keys (token_id, key, fingerprint, created_at) VALUES (?, ?, ?, ?)').run(tokenId, key, fingerprint, now);
        return { kind: 'new' };
      }
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status === null || row.body === null) return { kind: 'in_progress' };
      return { kind: 'replay', status: row.status, body: row.body };
    })();
  }

  /** Stores the final response; failures that a retry may fix (5xx, 429) free the key instead. */
  finish(tokenId: string, key: string, status: number, body: string): void {
    if (status >= 500 || status === 429) {
      this.#db.prepare('DELETE FROM idempotency_keys WHERE token_id = ? AND key = ?').run(tokenId, key);
      return;
    }
    this.#db.prepare('UPDATE idempotency_keys SET status = ?, body = ? WHERE token_id = ? AND key = ?').run(status, body, tokenId, key);
  }
}
