/** @module Durable answer jobs in SQLite: claimed with a lease, renewed while working, reclaimed when a process dies. */
import type { Source } from '../../protocol/index.js';
import type { Db } from '../store/database.js';

export interface Job {
  id: number;
  conversationId: string;
  orgId: string;
  attempts: number;
}

interface JobRow {
  id: number;
  conversation_id: string;
  org_id: string;
  attempts: number;
}

export class JobQueue {
  readonly #db: Db;
  readonly #now: () => number;
  readonly #claim;
  readonly #renew;
  /** Statements of `complete`, prepared once (it runs for every answer). */
  readonly #finishJob;
  readonly #nextSeq;
  readonly #insertAnswer;
  readonly #completeConversation;
  readonly #complete;
  readonly #exhausted;
  readonly #runningOwners;

  constructor(db: Db, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
    // One statement picks and leases a job, so two workers (or two processes) never take the same one.
    this.#claim = db.prepare(
      `UPDATE jobs SET state = 'running', lease_owner = @owner, lease_until = @until, attempts = attempts + 1, updated_at = @now
       WHERE id = (
         SELECT id FROM jobs
         WHERE (state = 'queued' AND run_after <= @now) OR (state = 'running' AND lease_until < @now AND attempts < @max)
         ORDER BY id LIMIT 1
       )
       RETURNING id, conversation_id, org_id, attempts`,
    );
    this.#renew = db.prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND state = 'running'");
    this.#finishJob = db.prepare("UPDATE jobs SET state = 'done', lease_owner = NULL, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'");
    this.#nextSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM messages WHERE conversation_id = ?').pluck();
    this.#insertAnswer = db.prepare("INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, ?, 'assistant', ?, ?, ?)");
    this.#completeConversation = db.prepare("UPDATE conversations SET status = 'completed', updated_at = ? WHERE id = ?");
    this.#complete = db.transaction((job: Job, owner: string, answer: { content: string; sources: Source[] }): boolean => {
      const now = this.#now();
      const held = this.#finishJob.run(now, job.id, owner);
      if (held.changes !== 1) return false;
      const iso = new Date(now).toISOString();
      const seq = this.#nextSeq.get(job.conversationId) as number;
      this.#insertAnswer.run(job.conversationId, seq, answer.content, JSON.stringify(answer.sources), iso);
      this.#completeConversation.run(iso, job.conversationId);
      return true;
    });
    // Run before every claim round; most rounds find nothing.
    this.#exhausted = db.prepare("SELECT id, conversation_id FROM jobs WHERE state = 'running' AND lease_until < ? AND attempts >= ?");
    this.#runningOwners = db.prepare("SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL").pluck();
  }

  /**
   * Leases the oldest ready job (or one whose lease expired with attempts left) to `owner` for
   * `leaseMs`. An expired job with no attempt left is for `failExhausted`.
   */
  claim(owner: string, leaseMs: number, maxAttempts: number): Job | null {
    const now = this.#now();
    const row = this.#claim.get({ owner, until: now + leaseMs, now, max: maxAttempts }) as JobRow | undefined;
    return row ? { id: row.id, conversationId: row.conversation_id, orgId: row.org_id, attempts: row.attempts } : null;
  }

  /** Extends the lease; false when it was lost (another worker took the job over). */
  renew(job: Job, owner: string, leaseMs: number): boolean {
    return this.#renew.run(this.#now() + leaseMs, job.id, owner).changes === 1;
  }

  /** Appends the answer and completes the conversation, only while `owner` still holds the lease. */
  complete(job: Job, owner: string, answer: { content: string; sources: Source[] }): boolean {
    return this.#complete(job, owner, answer);
  }

  /**
   * Records a failed attempt: the job is queued again after `retryInMs`, or, when `final`, the
   * conversation becomes `failed` with no assistant message (sending again retries).
   */
  fail(job: Job, owner: string, error: string, final: boolean, retryInMs: number): boolean {
    return this.#db.transaction(() => {
      const now = this.#now();
      const held = this.#db
        .prepare(
          `UPDATE jobs SET state = ?, lease_owner = NULL, lease_until = NULL, run_after = ?, last_error = ?, updated_at = ?
           WHERE id = ? AND lease_owner = ? AND state = 'running'`,
        )
        .run(final ? 'failed' : 'queued', now + retryInMs, error.slice(0, 500), now, job.id, owner);
      if (held.changes === 1 && final) {
        this.#db.prepare("UPDATE conversations SET status = 'failed', updated_at = ? WHERE id = ?").run(new Date(now).toISOString(), job.conversationId);
      }
      return held.changes === 1;
    })();
  }

  /**
   * Fails, without running them, jobs that already used every attempt but were left `running`
   * by a process that died: the conversation must end `failed`, never stay `processing`.
   * Returns the ids of the conversations failed.
   */
  failExhausted(maxAttempts: number): string[] {
    const now = this.#now();
    // A read first: the transaction is only opened when some job needs failing.
    if (this.#exhausted.all(now, maxAttempts).length === 0) return [];
    return this.#db.transaction(() => {
      const rows = this.#exhausted.all(now, maxAttempts) as { id: number; conversation_id: string }[];
      for (const row of rows) {
        this.#db.prepare("UPDATE jobs SET state = 'failed', lease_owner = NULL, last_error = 'lease expired', updated_at = ? WHERE id = ?").run(now, row.id);
        this.#db.prepare("UPDATE conversations SET status = 'failed', updated_at = ? WHERE id = ?").run(new Date(now).toISOString(), row.conversation_id);
      }
      return rows.map((row) => row.conversation_id);
    })();
  }

  /**
   * Ends now the leases of running jobs whose owner `isDead` says is gone, so the next claim takes
   * them over instead of waiting for the lease to run out.
   */
  expireLeases(isDead: (owner: string) => boolean): void {
    const owners = this.#runningOwners.all() as string[];
    const dead = owners.filter(isDead);
    if (dead.length === 0) return;
    const expire = this.#db.prepare("UPDATE jobs SET lease_until = 0 WHERE state = 'running' AND lease_owner = ?");
    this.#db.transaction(() => {
      for (const owner of dead) expire.run(owner);
    })();
  }

  /** Gives a job back without counting the attempt (graceful shutdown). */
  release(job: Job, owner: string): void {
    this.#db
      .prepare("UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL, attempts = attempts - 1, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'")
      .run(this.#now(), job.id, owner);
  }
}
