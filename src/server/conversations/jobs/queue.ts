/**
 * @module Durable answer jobs: claimed with a lease on the database's clock, renewed while
 * working, reclaimed when a process dies. On PostgreSQL many workers on many machines claim
 * with `FOR UPDATE SKIP LOCKED`, so they never wait on each other's rows; organizations take turns.
 */
import type { Source } from '../../../protocol/index.js';
import type { Sql } from '../../store/sql.js';

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

// SQL fragments take their values by name (`:name`): a statement built from several of them is
// given one object of values, whatever order the fragments come in.

/** A job is its owner's while this holds: the job `:id`, its owner `:owner`, still running, the lease not run out. */
const HELD = "id = :id AND lease_owner = :owner AND state = 'running' AND lease_until >= clock_ms()";

/** Whether the job `alias` names can be claimed: queued and due, or running with its lease run out and attempts left (fewer than `:maxAttempts`). */
const ready = (alias: string) =>
  `((${alias}.state = 'queued' AND ${alias}.run_after <= clock_ms()) OR (${alias}.state = 'running' AND ${alias}.lease_until < clock_ms() AND ${alias}.attempts < :maxAttempts))`;

/**
 * Answer jobs, taken fairly across organizations: a claim takes the oldest ready job of the
 * organization with the fewest jobs running now (ties: the oldest job), so one organization's
 * backlog never holds another's next answer behind it, and one alone still uses every worker.
 */
export class JobQueue {
  readonly #sql: Sql;
  readonly #now: () => number;
  readonly #claim: string;
  readonly #claimOldest: string | undefined;

  /** @param now the clock of the conversations' timestamps (leases are on the database's clock) */
  constructor(sql: Sql, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
    const postgres = sql.dialect === 'postgres';
    const lease = `UPDATE jobs SET state = 'running', lease_owner = :owner, lease_until = clock_ms() + :leaseMs, attempts = attempts + 1, updated_at = clock_ms()`;
    const returning = 'RETURNING id, conversation_id, org_id, attempts';
    // One statement picks and leases a job, so two workers (or two processes) never take the same
    // one. The candidates are each organization's oldest ready job; of those, the one whose
    // organization has the fewest leases held now.
    this.#claim = `${lease}
       WHERE id = (
         SELECT j.id FROM jobs j
         LEFT JOIN (SELECT org_id, COUNT(*) AS n FROM jobs WHERE state = 'running' AND lease_until >= clock_ms() GROUP BY org_id) busy ON busy.org_id = j.org_id
         WHERE j.id IN (SELECT MIN(r.id) FROM jobs r WHERE ${ready('r')} GROUP BY r.org_id) AND ${ready('j')}
         ORDER BY COALESCE(busy.n, 0), j.id LIMIT 1${postgres ? ' FOR UPDATE OF j SKIP LOCKED' : ''}
       )
       ${returning}`;
    // On PostgreSQL a claim racing another may find every candidate locked (taken a moment ago):
    // it then takes the oldest ready job not locked, so racing workers never idle while jobs wait.
    // (SQLite runs one write at a time, so there a claim never races.)
    this.#claimOldest = postgres
      ? `${lease} WHERE id = (SELECT j.id FROM jobs j WHERE ${ready('j')} ORDER BY j.id LIMIT 1 FOR UPDATE SKIP LOCKED) ${returning}`
      : undefined;
  }

  /**
   * Leases a ready job (or one whose lease expired with attempts left) to `owner` for `leaseMs`:
   * the oldest of the organization with the fewest jobs running. An expired job with no attempt
   * left is for `failExhausted`.
   */
  async claim(owner: string, leaseMs: number, maxAttempts: number): Promise<Job | null> {
    const values = { owner, leaseMs, maxAttempts };
    let row = await this.#sql.get<JobRow>(this.#claim, values);
    if (!row && this.#claimOldest) row = await this.#sql.get<JobRow>(this.#claimOldest, values);
    return row ? { id: row.id, conversationId: row.conversation_id, orgId: row.org_id, attempts: row.attempts } : null;
  }

  /** Extends the lease; false when it was lost (it ran out, or another worker took the job over). */
  async renew(job: Job, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.#sql.run(`UPDATE jobs SET lease_until = clock_ms() + :leaseMs WHERE ${HELD}`, { leaseMs, id: job.id, owner })) === 1;
  }

  /** Appends the answer and completes the conversation, only while `owner` still holds the lease. */
  complete(job: Job, owner: string, answer: { content: string; sources: Source[]; isUncertain?: boolean }): Promise<boolean> {
    return this.#sql.transaction(async (tx) => {
      // The job's row stays locked until commit: a worker taking it over waits, then finds it done.
      if ((await tx.run(`UPDATE jobs SET state = 'done', lease_owner = NULL, updated_at = clock_ms() WHERE ${HELD}`, { id: job.id, owner })) !== 1) return false;
      const iso = new Date(this.#now()).toISOString();
      await tx.run(
        "INSERT INTO messages (conversation_id, seq, role, content, sources, is_uncertain, created_at) SELECT ?, COALESCE(MAX(seq), 0) + 1, 'assistant', ?, ?, ?, ? FROM messages WHERE conversation_id = ?",
        [job.conversationId, answer.content, JSON.stringify(answer.sources), answer.isUncertain ? 1 : 0, iso, job.conversationId],
      );
      await tx.run("UPDATE conversations SET status = 'completed', updated_at = ? WHERE id = ?", [iso, job.conversationId]);
      return true;
    });
  }

  /**
   * Records a failed attempt: the job is queued again after `retryInMs`, or, when `final`, the
   * conversation becomes `failed` with no assistant message (sending again retries).
   */
  fail(job: Job, owner: string, error: string, final: boolean, retryInMs: number): Promise<boolean> {
    return this.#sql.transaction(async (tx) => {
      const held = await tx.run(
        `UPDATE jobs SET state = :state, lease_owner = NULL, lease_until = NULL, run_after = clock_ms() + :retryInMs, last_error = :error, updated_at = clock_ms() WHERE ${HELD}`,
        { state: final ? 'failed' : 'queued', retryInMs, error: error.slice(0, 500), id: job.id, owner },
      );
      if (held === 1 && final) {
        await tx.run("UPDATE conversations SET status = 'failed', updated_at = ? WHERE id = ?", [new Date(this.#now()).toISOString(), job.conversationId]);
      }
      return held === 1;
    });
  }

  /**
   * Fails, without running them, jobs that already used every attempt but were left `running`
   * by a process that died: the conversation must end `failed`, never stay `processing`.
   * Returns the ids of the conversations failed.
   */
  async failExhausted(maxAttempts: number): Promise<string[]> {
    const exhausted = "state = 'running' AND lease_until < clock_ms() AND attempts >= :maxAttempts";
    // A read first: the transaction is only opened when some job needs failing (most rounds find none).
    if (!(await this.#sql.get(`SELECT id FROM jobs WHERE ${exhausted} LIMIT 1`, { maxAttempts }))) return [];
    return this.#sql.transaction(async (tx) => {
      // One UPDATE … RETURNING: of processes racing here, each job is failed by exactly one.
      const rows = await tx.all<{ conversation_id: string }>(
        `UPDATE jobs SET state = 'failed', lease_owner = NULL, last_error = 'lease expired', updated_at = clock_ms() WHERE ${exhausted} RETURNING conversation_id`,
        { maxAttempts },
      );
      const iso = new Date(this.#now()).toISOString();
      for (const row of rows) await tx.run("UPDATE conversations SET status = 'failed', updated_at = ? WHERE id = ?", [iso, row.conversation_id]);
      return rows.map((row) => row.conversation_id);
    });
  }

  /**
   * Ends now the leases of running jobs whose owner `isDead` says is gone, so the next claim takes
   * them over instead of waiting for the lease to run out. Returns how many leases it ended.
   */
  async expireLeases(isDead: (owner: string) => boolean): Promise<number> {
    const owners = await this.#sql.all<{ lease_owner: string }>("SELECT DISTINCT lease_owner FROM jobs WHERE state = 'running' AND lease_owner IS NOT NULL");
    let expired = 0;
    for (const { lease_owner: owner } of owners) {
      if (isDead(owner)) expired += await this.#sql.run("UPDATE jobs SET lease_until = 0 WHERE state = 'running' AND lease_owner = ?", [owner]);
    }
    return expired;
  }

  /** Gives a job back without counting the attempt (graceful shutdown). */
  async release(job: Job, owner: string): Promise<void> {
    await this.#sql.run(
      "UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL, attempts = attempts - 1, updated_at = clock_ms() WHERE id = ? AND lease_owner = ? AND state = 'running'",
      [job.id, owner],
    );
  }

  /** Jobs waiting to be claimed (ready now or later), for the workers' metrics and the benchmark. */
  async queued(): Promise<number> {
    return (await this.#sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state = 'queued'"))!.n;
  }
}
