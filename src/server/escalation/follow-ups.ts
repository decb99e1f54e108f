/**
 * @module Follow-ups: a visitor's messages sent after a conversation was escalated reach its
 * ticket (a Plain thread event, a Linear comment, a Pylon internal note, or a signed
 * `ticket.message` webhook event). The send path records each one in an outbox table
 * (`ticket_follow_ups`) in one INSERT, and a forwarder delivers them in the background, in order
 * per conversation, retrying failures with backoff; rows survive a restart and are leased, so
 * several processes never deliver one twice at the same time.
 *
 * @example
 * const followUps = new FollowUpForwarder({ sql, integrations, logger });
 * followUps.start();
 * // inside the transaction `tx` that stores a message sent to an existing conversation:
 * await followUps.queue(orgId, id, tx);
 */
import type { Integration } from '../../protocol/index.js';
import { backoffDelay } from '../../protocol/retry.js';
import type { Logger } from '../log.js';
import type { Migration } from '../store/migrate.js';
import type { Sql } from '../store/sql.js';
import { IntegrationError, type IntegrationResolver } from '../helpdesks/types.js';

export const followUpMigrations: Migration[] = [
  {
    component: 'follow-ups',
    version: 1,
    description: 'visitor messages sent after escalation, waiting to reach the ticket',
    up: `
      CREATE TABLE ticket_follow_ups (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        org_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('queued', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        run_after INTEGER NOT NULL,
        lease_until INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        UNIQUE (conversation_id, seq)
      );
      CREATE INDEX ticket_follow_ups_ready ON ticket_follow_ups (state, run_after);
    `,
  },
];

/** Attempts at delivering one follow-up before it is given up (about 47 minutes of retries). */
export const FOLLOW_UP_MAX_ATTEMPTS = 12;
/** How long a claimed follow-up is its forwarder's; longer than any helpdesk call. */
const LEASE_MS = 60_000;
/** While the escalation itself is still running, its follow-ups wait this long and look again. */
const PENDING_ESCALATION_DELAY_MS = 2_000;

/** The delay before attempt `attempts + 1`: the shared backoff from about 2 s, capped at 10 minutes. */
export function followUpRetryDelayMs(attempts: number): number {
  return backoffDelay(attempts, { baseMs: 1_000, maxMs: 600_000 });
}

export interface FollowUpForwarderOptions {
  sql: Sql;
  /** Builds the integration a ticket was created in. */
  integrations: IntegrationResolver;
  logger: Logger;
  /** The time recorded as a follow-up's `created_at` (leases and retry times use the database's `clock_ms()`). @default Date.now */
  now?: () => number;
  /** How often idle forwarders look for follow-ups queued by other processes or due for a retry. @default 1000 */
  pollMs?: number;
}

interface ClaimedRow {
  id: number;
  org_id: string;
  conversation_id: string;
  seq: number;
  attempts: number;
}

interface TicketRow {
  escalation_state: 'pending' | 'done' | null;
  ticket_integration: string | null;
  ticket_id: string | null;
  content: string | null;
  created_at: string | null;
}

/** The newest visitor message, when the conversation was escalated (or is being escalated).
 * Sends to a conversation are serialized by its `processing` status, so that message is the one just stored. */
const QUEUE = `
  INSERT INTO ticket_follow_ups (org_id, conversation_id, seq, state, run_after, created_at)
  SELECT c.org_id, c.id, (SELECT MAX(seq) FROM messages WHERE conversation_id = c.id AND role = 'user'), 'queued', clock_ms(), ?
  FROM conversations c
  WHERE c.id = ? AND c.org_id = ? AND c.escalation_state IS NOT NULL
    AND EXISTS (SELECT 1 FROM messages WHERE conversation_id = c.id AND role = 'user')
  ON CONFLICT (conversation_id, seq) DO NOTHING`;

/** A read first: an idle forwarder polls without writing (a write would invalidate this process's read caches). */
const READY = "SELECT 1 AS ready FROM ticket_follow_ups WHERE state = 'queued' AND run_after <= clock_ms() LIMIT 1";

/**
 * Leases the oldest ready follow-up whose conversation has no earlier one still waiting (order is
 * kept per conversation). The outer condition is checked again on the row as it is when updated,
 * so two forwarders racing for one row never both get it; on PostgreSQL the row a concurrent
 * forwarder is taking is skipped instead of waited for.
 */
const claim = (skipLocked: string) => `
  UPDATE ticket_follow_ups SET attempts = attempts + 1, lease_until = clock_ms() + ?
  WHERE id = (
    SELECT f.id FROM ticket_follow_ups f
    WHERE f.state = 'queued' AND f.run_after <= clock_ms() AND (f.lease_until IS NULL OR f.lease_until < clock_ms())
      AND NOT EXISTS (SELECT 1 FROM ticket_follow_ups o WHERE o.conversation_id = f.conversation_id AND o.state = 'queued' AND o.seq < f.seq)
    ORDER BY f.run_after, f.id LIMIT 1${skipLocked}
  ) AND state = 'queued' AND (lease_until IS NULL OR lease_until < clock_ms())
  RETURNING id, org_id, conversation_id, seq, attempts`;
const CLAIM = { sqlite: claim(''), postgres: claim(' FOR UPDATE SKIP LOCKED') };

const TICKET = `
  SELECT c.escalation_state, c.ticket_integration, c.ticket_id, m.content, m.created_at
  FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id AND m.seq = ?
  WHERE c.id = ?`;

/**
 * Updates of a claimed row name the claim (`id` and `attempts`, which each claim raises): a
 * forwarder whose lease ran out and was taken over changes nothing.
 */
const CLAIMED = 'WHERE id = ? AND attempts = ?';

export class FollowUpForwarder {
  readonly #sql: Sql;
  readonly #integrations: IntegrationResolver;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #pollMs: number;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #running: Promise<void> | undefined;
  /** A follow-up was committed while a run was under way: the next run starts as soon as this one ends. */
  #woken = false;
  #abort = new AbortController();

  constructor(options: FollowUpForwarderOptions) {
    this.#sql = options.sql;
    this.#integrations = options.integrations;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#pollMs = options.pollMs ?? 1_000;
  }

  /**
   * Records the conversation's newest visitor message for its ticket when the conversation has
   * been escalated; does nothing otherwise. One INSERT, run in the transaction `tx` that stores
   * the message (`ConversationLifecycle.onSent`), so it is committed with the message or not at
   * all; delivery happens in the background once `wake()` is called after the commit (the server
   * wakes the forwarder whenever a message is queued, in any process). Resolves with whether a
   * follow-up was queued.
   */
  async queue(orgId: string, conversationId: string, tx: Sql = this.#sql): Promise<boolean> {
    return (await tx.run(QUEUE, [this.#now(), conversationId, orgId])) === 1;
  }

  /**
   * Looks for ready follow-ups now (a message was stored and committed); when a run is under way,
   * as soon as it ends (the run may have looked before the commit).
   */
  wake(): void {
    if (!this.#started) return;
    if (this.#running) this.#woken = true;
    else this.#schedule(0);
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#schedule(0);
  }

  /** Stops looking for work and aborts deliveries in flight (they are retried after their lease). */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#abort.abort(new Error('forwarder stopping'));
    await this.#running;
    this.#abort = new AbortController();
  }

  /** Delivers every follow-up that is ready now (tests call this instead of start()). Returns how many were attempted. */
  async runOnce(): Promise<number> {
    let attempted = 0;
    for (;;) {
      if (this.#abort.signal.aborted) return attempted;
      if ((await this.#sql.get(READY)) === undefined) return attempted;
      const row = await this.#sql.get<ClaimedRow>(CLAIM[this.#sql.dialect], [LEASE_MS]);
      if (!row) return attempted;
      attempted++;
      await this.#deliver(row);
    }
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delay);
    this.#timer.unref();
  }

  #tick(): void {
    if (!this.#started || this.#running) return;
    this.#running = this.runOnce()
      .then(
        () => undefined,
        (error: unknown) => this.#logger.error({ msg: 'follow-up forwarder failed', error: String(error) }),
      )
      .finally(() => {
        this.#running = undefined;
        const woken = this.#woken;
        this.#woken = false;
        if (this.#started) this.#schedule(woken ? 0 : this.#pollMs);
      });
  }

  async #deliver(row: ClaimedRow): Promise<void> {
    const claimed = [row.id, row.attempts];
    const ticket = await this.#sql.get<TicketRow>(TICKET, [row.seq, row.conversation_id]);
    if (!ticket || ticket.content === null || ticket.escalation_state === null) {
      // Deleted, or the escalation failed and was released: the next escalation's transcript holds the message.
      await this.#sql.run(`DELETE FROM ticket_follow_ups ${CLAIMED}`, claimed);
      return;
    }
    if (ticket.escalation_state === 'pending' || !ticket.ticket_integration || !ticket.ticket_id) {
      await this.#sql.run(`UPDATE ticket_follow_ups SET attempts = attempts - 1, lease_until = NULL, run_after = clock_ms() + ? ${CLAIMED}`, [PENDING_ESCALATION_DELAY_MS, ...claimed]);
      return;
    }
    const integrationName = ticket.ticket_integration as Integration;
    try {
      const integration = await this.#integrations(row.org_id, integrationName);
      if (!integration.addFollowUp) throw new IntegrationError(`The ${integrationName} integration cannot add messages to a ticket`, { retryable: false });
      await integration.addFollowUp(
        { orgId: row.org_id, conversationId: row.conversation_id, ticketId: ticket.ticket_id, seq: row.seq, content: ticket.content, sentAt: ticket.created_at ?? new Date(this.#now()).toISOString(), attempt: row.attempts },
        this.#abort.signal,
      );
      await this.#sql.run(`UPDATE ticket_follow_ups SET state = 'done', lease_until = NULL, last_error = NULL ${CLAIMED}`, claimed);
      this.#logger.info({ msg: 'follow-up forwarded', conversation: row.conversation_id, integration: integrationName, attempt: row.attempts });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.#abort.signal.aborted) {
        // Shutting down: give it back uncounted.
        await this.#sql.run(`UPDATE ticket_follow_ups SET attempts = attempts - 1, lease_until = NULL ${CLAIMED}`, claimed);
        return;
      }
      const final = row.attempts >= FOLLOW_UP_MAX_ATTEMPTS;
      await this.#sql.run(`UPDATE ticket_follow_ups SET state = ?, lease_until = NULL, run_after = clock_ms() + ?, last_error = ? ${CLAIMED}`, [
        final ? 'failed' : 'queued',
        followUpRetryDelayMs(row.attempts),
        message.slice(0, 500),
        ...claimed,
      ]);
      const log = { msg: final ? 'follow-up given up' : 'follow-up failed; retrying', conversation: row.conversation_id, integration: integrationName, attempt: row.attempts, error: message };
      if (final) this.#logger.error(log);
      else this.#logger.warn(log);
    }
  }
}
