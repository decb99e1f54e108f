/**
 * @module The one owner of a conversation's lifecycle: a user turn is sent (`processing`), its
 * answer job is claimed and completed or failed (`completed` / `failed`), and waiters learn when
 * it settles. Routes and the worker call this module; nothing else changes a conversation's status.
 */
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { ConversationVisitor, Source } from '../../protocol/index.js';
import { backoffDelay } from '../../protocol/retry.js';
import type { Job, JobQueue } from './jobs/queue.js';
import type { ConversationRecord, ConversationStore, QuestionContext, SendOutcome } from '../store/conversations.js';
import type { Sql } from '../store/sql.js';
import { LocalBus, type Bus } from '../bus/index.js';

/** How long a claimed answer job is its worker's without renewal; a worker that dies loses it after this. */
export const DEFAULT_JOB_LEASE_MS = 30_000;
/** Attempts at answering one user turn before the conversation is `failed`. */
export const DEFAULT_MAX_ATTEMPTS = 3;

export interface LifecyclePolicy {
  /** Lease of an answer job, in milliseconds; renewed every third of it while the answer is worked on. */
  leaseMs: number;
  /** Attempts before the conversation is `failed`. */
  maxAttempts: number;
  /** User messages one conversation may hold; the next one is refused (start a new conversation). */
  maxTurns: number;
}

/** The delay before attempt `attempts + 1` of a failed answer: the shared backoff from 500 ms, capped at 30 s. */
export function retryDelayMs(attempts: number): number {
  return backoffDelay(attempts, { baseMs: 500, maxMs: 30_000 });
}

/** Names this process among earlier ones that had the same pid (a restarted container often does). */
const PROCESS_TOKEN = randomUUID();

/**
 * A lease owner names its host and process, so a restarted process on the same host can tell that
 * the owner of a `running` job died (its pid is gone, or now belongs to this new process) and take
 * the job over at once instead of waiting for the lease to run out. Owners on other hosts, or
 * still alive, keep their lease until it ends.
 */
export function leaseOwner(): string {
  return `${hostname()}:${process.pid}:${PROCESS_TOKEN}:${randomUUID()}`;
}

export function isDeadLocalOwner(owner: string): boolean {
  const [host, pidText, token] = owner.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return token !== PROCESS_TOKEN;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the pid exists (another user's process); only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Work recorded in the transaction that stores a user message (see `onSent`). */
export type SentListener = (tx: Sql, orgId: string, conversationId: string, continued: boolean) => Promise<void>;

export class ConversationLifecycle {
  readonly policy: Readonly<LifecyclePolicy>;
  readonly #store: ConversationStore;
  readonly #queue: JobQueue;
  /** Waiters of this process, by `settled:<conversation id>`. */
  readonly #settled = new EventEmitter();
  readonly #bus: Bus;
  readonly #sent = new Set<SentListener>();
  readonly #deleted = new Set<(conversationId: string) => Promise<void>>();
  #waiting = 0;

  /**
   * @param bus how processes tell each other that a conversation settled or a job was queued
   *   (in memory when one process runs alone)
   */
  constructor(store: ConversationStore, queue: JobQueue, policy: LifecyclePolicy, bus: Bus = new LocalBus()) {
    if (!Number.isFinite(policy.leaseMs) || policy.leaseMs < 100) throw new RangeError(`leaseMs must be a number of milliseconds ≥ 100, got ${policy.leaseMs}`);
    if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) throw new RangeError(`maxAttempts must be an integer ≥ 1, got ${policy.maxAttempts}`);
    if (!Number.isInteger(policy.maxTurns) || policy.maxTurns < 1) throw new RangeError(`maxTurns must be an integer ≥ 1, got ${policy.maxTurns}`);
    this.policy = Object.freeze({ ...policy });
    this.#store = store;
    this.#queue = queue;
    this.#settled.setMaxListeners(0);
    this.#bus = bus;
    // Whichever process settled it, this one's long polls on the conversation wake.
    bus.subscribe('settled', (id) => this.#settled.emit(`settled:${id}`));
  }

  /** Long polls waiting for a conversation to settle, in this process. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Appends a user message and queues its answer job in one transaction (a new conversation when
   * `conversationId` is undefined), then wakes the workers of this process. A conversation that
   * already holds `maxTurns` user messages is `full`.
   */
  async send(orgId: string, message: string, conversationId: string | undefined, visitor?: ConversationVisitor, context?: QuestionContext): Promise<SendOutcome> {
    const continued = conversationId !== undefined;
    const record =
      this.#sent.size === 0
        ? undefined
        : async (tx: Sql, id: string) => {
            for (const listener of this.#sent) await listener(tx, orgId, id, continued);
          };
    const outcome = await this.#store.send(orgId, message, conversationId, this.policy.maxTurns, record, visitor, context);
    if (outcome.ok) this.#bus.publish('queued', outcome.conversationId);
    return outcome;
  }

  /**
   * Calls `listener` inside the transaction that stores each user message (`continued` when it was
   * sent to an existing conversation), so what it writes is committed with the message or not at
   * all. It writes through `tx` (the transaction's handle) and awaits nothing else. Returns the
   * unsubscribe function.
   */
  onSent(listener: SentListener): () => void {
    this.#sent.add(listener);
    return () => this.#sent.delete(listener);
  }

  /**
   * Deletes a conversation and everything derived from it, now (a data-subject request); a long
   * poll waiting on it is answered at once, and a worker still answering it stores nothing (its
   * job is gone with it). Returns false when the organization has no such conversation.
   */
  async delete(orgId: string, id: string): Promise<boolean> {
    const deleted = await this.#store.delete(orgId, id);
    if (deleted) await this.#forget(id);
    return deleted;
  }

  /** Deletes every conversation of one visitor (a data-subject request), as `delete` does one. Returns how many. */
  async deleteVisitor(orgId: string, visitorId: string): Promise<number> {
    const ids = await this.#store.deleteByVisitor(orgId, visitorId);
    for (const id of ids) await this.#forget(id);
    return ids.length;
  }

  /**
   * Calls `listener` after a conversation is deleted on request, to delete what is derived from
   * it outside the database (its streamed events). Returns the unsubscribe function.
   */
  onDeleted(listener: (conversationId: string) => Promise<void>): () => void {
    this.#deleted.add(listener);
    return () => this.#deleted.delete(listener);
  }

  async #forget(id: string): Promise<void> {
    for (const listener of this.#deleted) await listener(id);
    this.#emitSettled(id);
  }

  /** Calls `listener` whenever a job is queued, by any process sharing the bus. Returns the unsubscribe function. */
  onQueued(listener: () => void): () => void {
    return this.#bus.subscribe('queued', listener);
  }

  /**
   * Leases the next ready answer job to `owner`. When none is ready, jobs left `running` by a dead
   * process on this host are given up (and one of them claimed), and jobs that used every attempt
   * are failed: a worker's round of claims ends with a claim that finds nothing, so this runs
   * once per round rather than twice per job sent.
   */
  async claim(owner: string): Promise<Job | null> {
    const job = await this.#queue.claim(owner, this.policy.leaseMs, this.policy.maxAttempts);
    if (job) return job;
    const expired = await this.#queue.expireLeases(isDeadLocalOwner);
    for (const id of await this.#queue.failExhausted(this.policy.maxAttempts)) this.#emitSettled(id);
    return expired > 0 ? this.#queue.claim(owner, this.policy.leaseMs, this.policy.maxAttempts) : null;
  }

  /** Extends the lease; false when it was lost (the job was taken over). */
  renew(job: Job, owner: string): Promise<boolean> {
    return this.#queue.renew(job, owner, this.policy.leaseMs);
  }

  /** Stores the answer and completes the conversation while `owner` holds the lease. */
  async complete(job: Job, owner: string, answer: { content: string; sources: Source[]; isUncertain?: boolean }): Promise<boolean> {
    const done = await this.#queue.complete(job, owner, answer);
    if (done) this.#emitSettled(job.conversationId);
    return done;
  }

  /**
   * Records a failed attempt: queued again after a backoff, or, after the last attempt (or with
   * `final`: an answer already partly streamed cannot be taken back), the conversation becomes
   * `failed` (no assistant message; sending again retries). Returns which.
   */
  async fail(job: Job, owner: string, error: string, options: { final?: boolean } = {}): Promise<'retry' | 'failed'> {
    const final = options.final === true || job.attempts >= this.policy.maxAttempts;
    const held = await this.#queue.fail(job, owner, error, final, retryDelayMs(job.attempts));
    if (held && final) this.#emitSettled(job.conversationId);
    return final ? 'failed' : 'retry';
  }

  /** Gives a job back without counting the attempt (this process is shutting down). */
  release(job: Job, owner: string): Promise<void> {
    return this.#queue.release(job, owner);
  }

  /**
   * Resolves with the conversation once it is no longer `processing`, or as it is when `ms` pass
   * or `signal` aborts. Another process may settle it: a slow re-read covers that case.
   */
  async waitUntilSettled(orgId: string, id: string, ms: number, signal: AbortSignal): Promise<ConversationRecord | null> {
    const current = await this.#store.get(orgId, id);
    if (!current || current.status !== 'processing' || signal.aborted) return current;
    this.#waiting++;
    await new Promise<void>((resolve) => {
      const event = `settled:${id}`;
      const reread = setInterval(() => {
        void Promise.resolve(this.#store.get(orgId, id)).then(
          (record) => record?.status !== 'processing' && done(),
          () => undefined,
        );
      }, 500);
      const timer = setTimeout(done, ms);
      const settled = this.#settled;
      function done() {
        clearInterval(reread);
        clearTimeout(timer);
        settled.off(event, done);
        signal.removeEventListener('abort', done);
        resolve();
      }
      settled.on(event, done);
      signal.addEventListener('abort', done);
    });
    this.#waiting--;
    return this.#store.get(orgId, id);
  }

  /**
   * Calls `listener` when the conversation settles or is deleted, in any process sharing the bus
   * (a hint: re-read it). Returns the unsubscribe function.
   */
  onSettled(conversationId: string, listener: () => void): () => void {
    const event = `settled:${conversationId}`;
    this.#settled.on(event, listener);
    return () => this.#settled.off(event, listener);
  }

  #emitSettled(conversationId: string): void {
    this.#bus.publish('settled', conversationId);
  }
}
