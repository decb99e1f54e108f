/**
 * @module `Idempotency-Key` on the POST endpoints: the same key and request replays the stored
 * response. Only a final outcome is stored: a 2xx, or a 4xx that the same request can never
 * change. A 409, 408, 425, 429 or 5xx frees the key, so the client's retry runs again. A key left
 * in progress by a process that died is taken over once its reservation is older than the claim
 * timeout (the same two minutes after which an escalation's claim is taken over).
 */
import { createHash } from 'node:crypto';
import type { Sql } from './sql.js';

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
  readonly #sql: Sql;
  readonly #staleMs: number;

  /**
   * Times are the database's (`clock_ms()`): the processes sharing keys may run on different machines.
   * @param staleMs a reservation older than this, never finished, belonged to a process that died and is taken over
   */
  constructor(sql: Sql, staleMs: number) {
    this.#sql = sql;
    this.#staleMs = staleMs;
  }

  static fingerprint(method: string, path: string, body: string): string {
    return createHash('sha256').update(`${method} ${path}\n${body}`).digest('hex');
  }

  /**
   * Reserves `key` for this request, or says what to do instead. The key's row is inserted or
   * locked first, so of racing requests with one key (on any process) exactly one proceeds.
   */
  async begin(tokenId: string, key: string, fingerprint: string): Promise<IdempotencyBegin> {
    await this.#sql.run('DELETE FROM idempotency_keys WHERE created_at < clock_ms() - ?', [KEEP_MS]);
    return this.#sql.transaction(async (tx): Promise<IdempotencyBegin> => {
      const inserted = await tx.run('INSERT INTO idempotency_keys (token_id, key, fingerprint, created_at) VALUES (?, ?, ?, clock_ms()) ON CONFLICT (token_id, key) DO NOTHING', [tokenId, key, fingerprint]);
      if (inserted === 1) return { kind: 'new' };
      const row = await tx.get<{ fingerprint: string; status: number | null; body: string | null; stale: number }>(
        `SELECT fingerprint, status, body, CASE WHEN created_at < clock_ms() - ? THEN 1 ELSE 0 END AS stale
         FROM idempotency_keys WHERE token_id = ? AND key = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`,
        [this.#staleMs, tokenId, key],
      );
      if (!row) return { kind: 'in_progress', retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
      const reserve = async () => {
        await tx.run('UPDATE idempotency_keys SET fingerprint = ?, status = NULL, body = NULL, created_at = clock_ms() WHERE token_id = ? AND key = ?', [fingerprint, tokenId, key]);
        return { kind: 'new' } as const;
      };
      if (row.status === null || row.body === null) {
        // Still running, unless the process that reserved it died (its reservation went stale).
        if (row.stale === 1) return reserve();
        return { kind: 'in_progress', retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
      }
      if (row.fingerprint === fingerprint) return { kind: 'replay', status: row.status, body: row.body };
      // A stored refusal changed nothing, so a corrected request may use the key; a success may not be redone differently.
      if (row.status >= 400) return reserve();
      return { kind: 'mismatch' };
    });
  }

  /**
   * Stores the final response with the conversation it is about (the request path's, else the
   * response's `conversation_id`), so that deleting the conversation deletes it too; an outcome
   * that may change on retry (see isFinalOutcome) frees the key instead.
   */
  async finish(tokenId: string, key: string, status: number, body: string, conversationId?: string): Promise<void> {
    if (!isFinalOutcome(status)) {
      await this.#sql.run('DELETE FROM idempotency_keys WHERE token_id = ? AND key = ?', [tokenId, key]);
      return;
    }
    await this.#sql.run('UPDATE idempotency_keys SET status = ?, body = ?, conversation_id = ? WHERE token_id = ? AND key = ?', [
      status,
      body,
      conversationId ?? conversationOf(body),
      tokenId,
      key,
    ]);
  }
}

/** The `conversation_id` of a JSON response body, or null. */
function conversationOf(body: string): string | null {
  try {
    const id = (JSON.parse(body) as { conversation_id?: unknown } | null)?.conversation_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
