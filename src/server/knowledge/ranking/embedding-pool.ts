/**
 * @module The embedding pool: a thread per core embeds queries and sections for every
 * organization of the process. Fair like the answer job queue: the next batch goes to the
 * organization with the fewest batches running now, organizations with as many taking turns, so one
 * organization's backlog never holds another's next query behind it; and queries go before
 * bulk work (ingest, background embedding), so a search never waits behind an ingest's backlog.
 * Threads start on first use; a thread that fails to start is retried with backoff, and a pool
 * that stays down says so (`status()`), fails calls at once, and tries again later.
 */
import { availableParallelism } from 'node:os';
import { modelThread, type EmbeddingBackend, type EmbeddingBackendFactory } from './model-thread.js';

export type { EmbeddingBackend, EmbeddingBackendFactory } from './model-thread.js';

/** Who asks for an embedding, and for what: the pool's fairness reads it. */
export interface EmbedRequest {
  /** The organization the texts are embedded for; calls without one share one queue. */
  orgId?: string;
  /** `query`: a question or a search, served first; `bulk`: sections being ingested or embedded in the background. @default 'query' */
  priority?: 'query' | 'bulk';
}

/** How the embedding backend is doing: `idle` before first use, `starting`, `ready` (some threads up), `down` (none could start), `off` (no embedder). */
export interface EmbeddingStatus {
  state: 'idle' | 'starting' | 'ready' | 'down' | 'off';
  /** Threads ready to embed now. */
  threads: number;
  /** Threads the pool is sized for. */
  size: number;
  /** Why the last start failed, while that is still the case. */
  error?: string;
}

export interface EmbeddingPoolOptions {
  /** Threads, each with its own copy of the model (about 150 MB). @default env SUPPORT_CHAT_EMBEDDING_THREADS, else `os.availableParallelism()` */
  size?: number;
  /** Starts one thread's backend. @default the Universal Sentence Encoder on a worker thread (see model-thread.ts) */
  backend?: EmbeddingBackendFactory;
  /** Texts per batch sent to a thread: a query waits for one batch per thread at most. @default 8 */
  batch?: number;
  /** Batches one organization may have waiting; a call over it is refused (`EmbeddingQueueFullError`). @default 512 */
  maxQueuedPerOrg?: number;
  /** Attempts to start a thread before it is given up. @default 3 */
  startAttempts?: number;
  /** Wait before the second attempt, doubled before each next. @default 500 */
  retryDelayMs?: number;
  /** How long a pool that could not start fails calls at once before the next call tries again. @default 60000 */
  retryAfterMs?: number;
  /** Environment read for the size. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** A call refused because its organization already has `maxQueuedPerOrg` batches waiting: the caller ranks by words for it. */
export class EmbeddingQueueFullError extends Error {
  override name = 'EmbeddingQueueFullError';
}

/** A call refused because no thread could start (`status().error` says why). */
export class EmbeddingUnavailableError extends Error {
  override name = 'EmbeddingUnavailableError';
}

/** The environment variable that sizes the default pool. */
export const EMBEDDING_THREADS_ENV = 'SUPPORT_CHAT_EMBEDDING_THREADS';

/** Whether `value` can be a pool's size: a whole number from 1 to 256. */
const isPoolSize = (value: number) => Number.isInteger(value) && value >= 1 && value <= 256;

/** The pool's size: the option, else the environment's, else one thread per core. */
export function resolvePoolSize(size: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (size !== undefined) {
    if (!isPoolSize(size)) throw new RangeError(`the embedding pool's size must be a whole number from 1 to 256, got ${String(size)}`);
    return size;
  }
  const fromEnv = env[EMBEDDING_THREADS_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    const value = Number(fromEnv);
    if (!isPoolSize(value)) throw new RangeError(`${EMBEDDING_THREADS_ENV} must be a whole number from 1 to 256, got "${fromEnv}"`);
    return value;
  }
  return availableParallelism();
}

interface Job {
  texts: string[];
  org: OrgQueue;
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

interface OrgQueue {
  id: string;
  query: Job[];
  bulk: Job[];
  /** Batches of this organization on a thread now. */
  running: number;
  /** When it was last served (the pool's turn counter): of organizations as busy, the one served longest ago goes next. */
  served: number;
}

interface Slot {
  backend?: EmbeddingBackend;
  starting: boolean;
  busy: boolean;
}

/**
 * A fair pool of embedding threads, each started when a batch waits for it.
 *
 * @example
 * const pool = new EmbeddingPool({ size: 2 });
 * const [vector] = await pool.embed(['how do I get a refund?'], { orgId: 'acme', priority: 'query' });
 */
export class EmbeddingPool {
  readonly size: number;
  readonly #backend: EmbeddingBackendFactory;
  readonly #batch: number;
  readonly #maxQueued: number;
  readonly #attempts: number;
  readonly #retryDelayMs: number;
  readonly #retryAfterMs: number;
  readonly #slots: Slot[] = [];
  readonly #orgs = new Map<string, OrgQueue>();
  #turn = 0;
  #error: string | undefined;
  #downUntil = 0;
  #closed = false;

  constructor(options: EmbeddingPoolOptions = {}) {
    this.size = resolvePoolSize(options.size, options.env);
    this.#backend = options.backend ?? modelThread();
    this.#batch = Math.max(1, Math.floor(options.batch ?? 8));
    this.#maxQueued = Math.max(1, Math.floor(options.maxQueuedPerOrg ?? 512));
    this.#attempts = Math.max(1, Math.floor(options.startAttempts ?? 3));
    this.#retryDelayMs = Math.max(0, options.retryDelayMs ?? 500);
    this.#retryAfterMs = Math.max(0, options.retryAfterMs ?? 60_000);
  }

  /** One vector per text, in order, as the backend returns them; split into batches that take their turn with other organizations'. */
  embed(texts: string[], request: EmbedRequest = {}): Promise<number[][]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.#closed) return Promise.reject(new EmbeddingUnavailableError('the embedding pool is closed'));
    if (this.#isDown()) return Promise.reject(new EmbeddingUnavailableError(`sentence embeddings are unavailable: ${this.#error}`));
    const orgId = request.orgId ?? '';
    let org = this.#orgs.get(orgId);
    const batches = Math.ceil(texts.length / this.#batch);
    if (org && org.query.length + org.bulk.length + batches > this.#maxQueued) {
      return Promise.reject(new EmbeddingQueueFullError(`organization ${orgId || '(none)'} has ${this.#maxQueued} embedding batches waiting already`));
    }
    if (!org) {
      org = { id: orgId, query: [], bulk: [], running: 0, served: 0 };
      this.#orgs.set(orgId, org);
    }
    const queue = request.priority === 'bulk' ? org.bulk : org.query;
    const parts: Promise<number[][]>[] = [];
    for (let start = 0; start < texts.length; start += this.#batch) {
      parts.push(new Promise((resolve, reject) => queue.push({ texts: texts.slice(start, start + this.#batch), org: org, resolve, reject })));
    }
    this.#startForWaiting();
    this.#dispatch();
    return Promise.all(parts).then((results) => results.flat());
  }

  /**
   * Starts `threads` threads (one by default: a server checks the model at start, and each
   * further thread, about 150 MB, starts when batches wait for one) and resolves once one is
   * ready or all gave up.
   */
  async warm(threads = 1): Promise<EmbeddingStatus> {
    if (this.#isDown()) return this.status();
    this.#start(threads);
    while (this.#slots.some((s) => s.starting) && !this.#slots.some((s) => s.backend)) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.status();
  }

  status(): EmbeddingStatus {
    const threads = this.#slots.filter((s) => s.backend).length;
    const starting = this.#slots.some((s) => s.starting);
    const state = threads > 0 ? 'ready' : starting ? 'starting' : this.#error !== undefined ? 'down' : 'idle';
    return { state, threads, size: this.size, ...(this.#error !== undefined && threads === 0 ? { error: this.#error } : {}) };
  }

  /** Stops every thread; waiting calls reject. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#failQueued(new EmbeddingUnavailableError('the embedding pool is closed'));
    const backends = this.#slots.flatMap((s) => (s.backend ? [s.backend] : []));
    this.#slots.length = 0;
    await Promise.all(backends.map((b) => b.close().catch(() => undefined)));
  }

  #isDown(): boolean {
    return this.#error !== undefined && this.#slots.length > 0 && this.#slots.every((s) => !s.backend && !s.starting) && Date.now() < this.#downUntil;
  }

  /** Starts threads until `wanted` (at most the pool's size) are running or starting; a slot that failed is started again. */
  #start(wanted: number): void {
    const target = Math.min(this.size, Math.max(1, wanted));
    let live = this.#slots.filter((s) => s.backend || s.starting).length;
    for (const slot of this.#slots) {
      if (live >= target) return;
      if (!slot.backend && !slot.starting) {
        live++;
        void this.#startSlot(slot);
      }
    }
    while (live++ < target) {
      const slot: Slot = { starting: false, busy: false };
      this.#slots.push(slot);
      void this.#startSlot(slot);
    }
  }

  /** Starts a thread for each waiting batch that no idle or starting thread will take. */
  #startForWaiting(): void {
    let waiting = 0;
    for (const org of this.#orgs.values()) waiting += org.query.length + org.bulk.length;
    const idle = this.#slots.filter((s) => s.backend && !s.busy).length;
    const starting = this.#slots.filter((s) => s.starting).length;
    const live = this.#slots.filter((s) => s.backend || s.starting).length;
    if (waiting > idle + starting) this.#start(live + waiting - idle - starting);
  }

  async #startSlot(slot: Slot): Promise<void> {
    slot.starting = true;
    for (let attempt = 1; attempt <= this.#attempts && !this.#closed; attempt++) {
      try {
        const backend = await this.#backend();
        if (this.#closed) {
          await backend.close().catch(() => undefined);
          break;
        }
        slot.backend = backend;
        slot.starting = false;
        this.#error = undefined;
        this.#dispatch();
        return;
      } catch (error) {
        this.#error = error instanceof Error ? error.message : String(error);
        if (attempt < this.#attempts) await new Promise((resolve) => setTimeout(resolve, this.#retryDelayMs * 2 ** (attempt - 1)));
      }
    }
    slot.starting = false;
    // No thread at all: the calls waiting cannot be served; later ones fail at once until `retryAfterMs`.
    if (this.#slots.every((s) => !s.backend && !s.starting)) {
      this.#downUntil = Date.now() + this.#retryAfterMs;
      this.#failQueued(new EmbeddingUnavailableError(`sentence embeddings are unavailable: ${this.#error}`));
    }
  }

  #failQueued(error: Error): void {
    for (const org of this.#orgs.values()) for (const job of [...org.query.splice(0), ...org.bulk.splice(0)]) job.reject(error);
    for (const [id, org] of this.#orgs) if (org.running === 0) this.#orgs.delete(id);
  }

  /** The next batch: queries first; of the organizations with one waiting, the one with the fewest running, then the one served longest ago. */
  #next(): Job | undefined {
    for (const priority of ['query', 'bulk'] as const) {
      let best: OrgQueue | undefined;
      for (const org of this.#orgs.values()) {
        if (org[priority].length === 0) continue;
        if (!best || org.running < best.running || (org.running === best.running && org.served < best.served)) best = org;
      }
      if (best) {
        best.served = ++this.#turn;
        return best[priority].shift();
      }
    }
    return undefined;
  }

  #dispatch(): void {
    for (const slot of this.#slots) {
      if (!slot.backend || slot.busy) continue;
      const job = this.#next();
      if (!job) return;
      this.#run(slot, slot.backend, job);
    }
  }

  #run(slot: Slot, backend: EmbeddingBackend, job: Job): void {
    slot.busy = true;
    job.org.running++;
    backend.embed(job.texts).then(
      (vectors) => job.resolve(vectors),
      (error: unknown) => {
        job.reject(error instanceof Error ? error : new Error(String(error)));
        // The thread may be gone: it is started again (a model error on one text costs a restart).
        if (slot.backend === backend) {
          slot.backend = undefined;
          void backend.close().catch(() => undefined);
          if (!this.#closed) void this.#startSlot(slot);
        }
      },
    ).finally(() => {
      slot.busy = false;
      job.org.running--;
      const org = job.org;
      if (org.running === 0 && org.query.length === 0 && org.bulk.length === 0 && this.#orgs.get(org.id) === org) this.#orgs.delete(org.id);
      this.#dispatch();
    });
  }
}
