/**
 * @module Background embedding: the sentence embeddings `kb ingest` leaves to the server (code
 * pieces, see `SectionEmbeddings.embedPending`) are made by the processes that answer, after they
 * start, whenever the bus's 'kb' topic says an organization's knowledge base changed, and every
 * `pollMs` (an ingest by a process that shares no bus with this one). Answers work by words
 * meanwhile; each organization's index is rebuilt once its run ends.
 *
 * One run at a time per process. Several processes may run at once: a vector is written only
 * where the section has none of the embedder's yet, so runs are idempotent and the worst case is
 * a batch embedded twice.
 */
import type { Bus } from '../../bus/index.js';
import type { Logger } from '../../log.js';
import type { PendingEmbeddings } from './embeddings.js';

export interface BackgroundEmbeddingOptions {
  knowledge: PendingEmbeddings;
  bus: Bus;
  logger: Logger;
  /** How often the database is checked for sections to embed that no message announced. @default 60000 */
  pollMs?: number;
}

export class BackgroundEmbedding {
  readonly #knowledge: BackgroundEmbeddingOptions['knowledge'];
  readonly #bus: Bus;
  readonly #logger: Logger;
  readonly #pollMs: number;
  /** Organizations to run for next; `null`: every organization with sections waiting. */
  readonly #queued = new Set<string | null>();
  #controller = new AbortController();
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #started = false;

  constructor(options: BackgroundEmbeddingOptions) {
    this.#knowledge = options.knowledge;
    this.#bus = options.bus;
    this.#logger = options.logger;
    this.#pollMs = options.pollMs ?? 60_000;
  }

  /** Runs for every organization now, for each one the 'kb' topic names, and every `pollMs`, until `stop()`. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#controller = new AbortController();
    this.#unsubscribe = this.#bus.subscribe('kb', (orgId) => this.#queue(orgId || null));
    this.#queue(null);
  }

  /** Stops; resolves once a run under way has written its current batch. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#unsubscribe?.();
    clearTimeout(this.#timer);
    this.#controller.abort();
    await this.#running;
  }

  /** Resolves when no run is under way or queued (tests wait on it). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #queue(orgId: string | null): void {
    if (!this.#started) return;
    this.#queued.add(orgId);
    this.#run();
  }

  #run(): void {
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
      if (!this.#started) return;
      // Queued as the last run ended: run again now; else look again in `pollMs`.
      if (this.#queued.size > 0) return this.#run();
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#queue(null), this.#pollMs);
      this.#timer.unref();
    });
  }

  async #drain(): Promise<void> {
    const signal = this.#controller.signal;
    while (this.#queued.size > 0 && !signal.aborted) {
      const next = this.#queued.values().next().value as string | null;
      this.#queued.delete(next);
      try {
        const orgs = next === null ? (await this.#knowledge.pending()).map((p) => p.orgId) : [next];
        for (const orgId of orgs) {
          if (signal.aborted) break;
          const started = Date.now();
          const embedded = await this.#knowledge.embedPending(orgId, { signal });
          // Only a run that embedded something says so: the run it starts here embeds nothing and stops.
          if (embedded > 0) {
            this.#logger.info({ msg: 'sections embedded in the background', org: orgId, sections: embedded, ms: Date.now() - started });
            this.#bus.publish('kb', orgId);
          }
        }
      } catch (error) {
        this.#logger.warn({ msg: 'background embedding failed', error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
