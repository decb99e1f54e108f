/**
 * @module The retention sweep: deletes conversations (with their messages, jobs and feedback) whose
 * last activity is older than their organization's retention period, a small batch per transaction,
 * yielding to the event loop between batches so requests are never held up.
 */
import type { Logger } from '../log.js';
import type { Sql } from '../store/sql.js';
import { startCheckpointer } from './checkpointer.js';
import { DEFAULT_RETENTION_DAYS, RetentionSettingsStore, validRetentionDays } from './settings.js';

export { DEFAULT_RETENTION_DAYS, RetentionInputError, RetentionSettingsStore, validRetentionDays } from './settings.js';

/** What the sweep deletes through: the conversation store, which also drops its in-memory copies. */
export interface ExpiringConversations {
  /** Deletes at most `limit` of the organization's conversations last active before `before` (ISO), with everything derived from them; resolves with how many. */
  deleteExpired(orgId: string, before: string, limit: number): Promise<number>;
}

export interface RetentionSweepOptions {
  sql: Sql;
  /** Deletes expired conversations with everything derived from them (the server's ConversationStore). */
  conversations: ExpiringConversations;
  logger: Logger;
  /** Retention of organizations without their own. @default DEFAULT_RETENTION_DAYS (90) */
  defaultDays?: number;
  /** Most conversations deleted per transaction. @default 500 */
  batchSize?: number;
  /**
   * Time one batch should take, in ms: the batch size adapts to it (halved after a slower batch,
   * doubled after a much faster one, up to `batchSize`), so on any machine and database size the
   * event loop is held about this long at a time. @default 10
   */
  batchMs?: number;
  /** Time between sweeps. @default 3600000 (an hour) */
  intervalMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export interface SweepReport {
  deleted: number;
  batches: number;
}

const DAY_MS = 86_400_000;

/** Every organization that has conversations, read by skipping through the organization index (one probe per organization). */
const ORGANIZATIONS = `
  WITH RECURSIVE orgs (org) AS (
    SELECT MIN(org_id) FROM conversations
    UNION ALL
    SELECT (SELECT MIN(org_id) FROM conversations WHERE org_id > orgs.org) FROM orgs WHERE orgs.org IS NOT NULL
  )
  SELECT org FROM orgs WHERE org IS NOT NULL`;

/** Lets timers and I/O run before the next batch. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class RetentionSweep {
  readonly #sql: Sql;
  readonly #conversations: ExpiringConversations;
  readonly #logger: Logger;
  readonly #defaultDays: number;
  readonly #batchSize: number;
  readonly #batchMs: number;
  /** The size the next batch starts from (what the last sweep learned). */
  #size = 25;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #settings: RetentionSettingsStore;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<SweepReport> | undefined;
  #started = false;
  /** Set by `stop()`: a sweep under way ends after its current batch. */
  #halted = false;

  constructor(options: RetentionSweepOptions) {
    this.#sql = options.sql;
    this.#conversations = options.conversations;
    this.#logger = options.logger;
    this.#defaultDays = validRetentionDays(options.defaultDays ?? DEFAULT_RETENTION_DAYS);
    this.#batchSize = options.batchSize ?? 500;
    this.#batchMs = options.batchMs ?? 10;
    this.#intervalMs = options.intervalMs ?? 3_600_000;
    this.#now = options.now ?? Date.now;
    if (!Number.isInteger(this.#batchSize) || this.#batchSize < 1) throw new RangeError('batchSize must be a positive integer');
    if (!(this.#intervalMs > 0)) throw new RangeError('intervalMs must be positive');
    if (!(this.#batchMs > 0)) throw new RangeError('batchMs must be positive');
    this.#size = Math.min(this.#size, this.#batchSize);
    this.#settings = new RetentionSettingsStore(this.#sql, this.#now);
  }

  /** Sweeps now, then every `intervalMs`, until `stop()`. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#halted = false;
    this.#schedule(0);
  }

  /** Stops sweeping; resolves once a sweep under way has finished its current batch. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#halted = true;
    clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /** One whole sweep (tests and the CLI call this); concurrent calls share one sweep. */
  runOnce(): Promise<SweepReport> {
    this.#running ??= this.#sweep().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #schedule(delay: number): void {
    this.#timer = setTimeout(() => {
      this.runOnce()
        .then(
          (report) => {
            if (report.deleted > 0) this.#logger.info({ msg: 'retention sweep', deleted: report.deleted, batches: report.batches });
          },
          (error: unknown) => this.#logger.error({ msg: 'retention sweep failed', error: error instanceof Error ? error.message : String(error) }),
        )
        .finally(() => {
          if (this.#started) this.#schedule(this.#intervalMs);
        });
    }, delay);
    this.#timer.unref();
  }

  /** Halves the batch after one slower than `batchMs`, doubles it after a full one under half of it. */
  #adapt(ms: number, full: boolean): void {
    if (ms > this.#batchMs) this.#size = Math.max(1, Math.floor(this.#size / 2));
    else if (full && ms < this.#batchMs / 2) this.#size = Math.min(this.#batchSize, this.#size * 2);
  }

  async #sweep(): Promise<SweepReport> {
    const report: SweepReport = { deleted: 0, batches: 0 };
    const own = await this.#settings.all();
    const orgs = (await this.#sql.all<{ org: string }>(ORGANIZATIONS)).map((r) => r.org);
    // Checkpoints move to a thread of their own once there is something to delete.
    let checkpointer: ReturnType<typeof startCheckpointer> | undefined;
    try {
      await this.#sweepOrganizations(orgs, own, report, () => {
        if (checkpointer === undefined) checkpointer = startCheckpointer(this.#sql);
        checkpointer?.request();
      });
    } finally {
      await checkpointer?.close();
    }
    return report;
  }

  async #sweepOrganizations(orgs: string[], own: Map<string, number>, report: SweepReport, afterBatch: () => void): Promise<void> {
    for (const orgId of orgs) {
      const days = own.get(orgId) ?? this.#defaultDays;
      const before = new Date(this.#now() - days * DAY_MS).toISOString();
      for (;;) {
        // A stopping server finishes the batch it is in and no more.
        if (this.#halted) return;
        const size = this.#size;
        const started = performance.now();
        const deleted = await this.#conversations.deleteExpired(orgId, before, size);
        this.#adapt(performance.now() - started, deleted === size);
        report.deleted += deleted;
        if (deleted > 0) {
          report.batches++;
          afterBatch();
        }
        await yieldToEventLoop();
        if (deleted < size) break;
      }
    }
  }
}
