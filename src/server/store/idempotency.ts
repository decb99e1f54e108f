/**
 * @module `Idempotency-Key` on the POST endpoints: the same key and request replays the stored
 * response. Only a final outcome is stored: a 2xx, or a 4xx that the same request can never
 * change. A 409, 408, 425, 429 or 5xx frees the key, so the client's retry runs again. A key left
 * in progress by a process that died is taken over once its reservation is older than the claim
 * timeout (the same two minutes after which an escalation's claim is taken over).
 */
import { createHash } from 'node:crypto';
import type { Db } from './database.js';

const KEEP_MS = 24 * 60 * 60 * 1000;

/** Seconds a client is told to wait (`Retry-After`) before retrying a request still in progress. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 2;

export type IdempotencyBegin =
  | { kind: 'new' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress'; retryAfterSeconds: number }
  | { kind: 'mismatch' };

/** Whether a response is the request's final outcome, to be replayed for the same key. */
export function isFinalOutcome(status: number): boolean {
  if (status >= 500) return false;
  // Conflicts (still processing, in progress), timeouts, too early and rate limits change with time.
  return status !== 409 && status !== 408 && status !== 425 && status !== 429;
}

export class IdempotencyStore {
  readonly #db: Db;
  readonly #now: () => number;
  readonly #staleMs: number;

  /**
   * @param now the clock
   * @param staleMs a reservation older than this, never finished, belonged to a process that died and is taken over
   */
  constructor(db: Db, now: () => number, staleMs: number) {
    this.#db = db;
    this.#now = now;
    this.#staleMs = staleMs;
  }

  static fingerprint(method: string, path: string, body: string): string {
    return createHash('sha256').update(`${method} ${path}\n${body}`).digest('hex');
  }

  /** Reserves `key` for this request, or says what to do instead. */
  begin(tokenId: string, key: string, fingerprint: string): IdempotencyBegin {
    return this.#db.transaction((): IdempotencyBegin => {
      const now = this.#now();
      this.#db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(now - KEEP_MS);
      const row = this.#db.prepare('SELECT fingerprint, status, body, created_at FROM idempotency_keys WHERE token_id = ? AND key = ?').get(tokenId, key) as
        | { fingerprint: string; status: number | null; body: string | null; created_at: number }
        | undefined;
      if (!row) {
        this.#db.prepare('INSERT INTO idempotency_keys (token_id, key, fingerprint, created_at) VALUES (?, ?, ?, ?)').run(tokenId, key, fingerprint, now);
        return { kind: 'new' };
      }
      const reserve = () => {
        this.#db
          .prepare('UPDATE idempotency_keys SET fingerprint = ?, status = NULL, body = NULL, created_at = ? WHERE token_id = ? AND key = ?')
          .run(fingerprint, now, tokenId, key);
        return { kind: 'new' } as const;
      };
      if (row.status === null || row.body === null) {
        // Still running, unless the process that reserved it died (its reservation went stale).
        if (row.created_at < now - this.#staleMs) return reserve();
        return { kind: 'in_progress', retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
      }
      if (row.fingerprint === fingerprint) return { kind: 'replay', status: row.status, body: row.body };
      // A stored refusal changed nothing, so a corrected request may use the key; a success may not be redone differently.
      if (row.status >= 400) return reserve();
      return { kind: 'mismatch' };
    })();
  }

  /** Stores the final response; an outcome that may change on retry (see isFinalOutcome) frees the key instead. */
  finish(tokenId: string, key: string, status: number, body: string): void {
    if (!isFinalOutcome(status)) {
      this.#db.prepare('DELETE FROM idempotency_keys WHERE token_id = ? AND key = ?').run(tokenId, key);
      return;
    }
    this.#db.prepare('UPDATE idempotency_keys SET status = ?, body = ? WHERE token_id = ? AND key = ?').run(status, body, tokenId, key);
  }
}
