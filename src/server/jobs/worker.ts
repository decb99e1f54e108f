/** @module The worker that runs answer jobs: a few at a time, lease renewed while the engine works. */
import { randomUUID } from 'node:crypto';
import type { AnswerEngine } from '../answers/types.js';
import type { ConversationStore } from '../store/conversations.js';
import type { Logger } from '../http/log.js';
import type { Job, JobQueue } from './queue.js';

export interface WorkerOptions {
  queue: JobQueue;
  conversations: ConversationStore;
  engine: AnswerEngine;
  logger: Logger;
  /** Called after a conversation leaves `processing`, so long polls answer at once. */
  onSettled: (conversationId: string) => void;
  /** How long a claimed job is ours without renewal. @default 30000 */
  leaseMs?: number;
  /** Attempts before the conversation is marked failed. @default 3 */
  maxAttempts?: number;
  /** Jobs run at the same time. @default 4 */
  concurrency?: number;
  /** Idle poll interval for jobs queued by other processes. @default 250 */
  pollMs?: number;
}

export class Worker {
  readonly owner = `worker_${randomUUID()}`;
  readonly #options: Required<WorkerOptions>;
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void>; job: Job }>();
  #timer: NodeJS.Timeout | undefined;
  #started = false;

  constructor(options: WorkerOptions) {
    this.#options = { leaseMs: 30_000, maxAttempts: 3, concurrency: 4, pollMs: 250, ...options };
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#schedule(0);
  }

  /** Wakes the worker now (a job was just queued in this process). */
  poke(): void {
    if (this.#started) this.#schedule(0);
  }

  /** Stops taking jobs; in-flight ones are aborted and given back to the queue uncounted. */
  async stop(): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    for (const { controller } of this.#running.values()) controller.abort(new Error('worker stopping'));
    await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /** Runs jobs until none is ready (tests call this instead of start()). Returns whether any ran. */
  async runOnce(): Promise<boolean> {
    let ran = false;
    this.#options.queue.failExhausted(this.#options.maxAttempts);
    for (;;) {
      const job = this.#options.queue.claim(this.owner, this.#options.leaseMs);
      if (!job) return ran;
      ran = true;
      await this.#run(job);
    }
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), delay);
    this.#timer.unref();
  }

  #tick(): void {
    if (!this.#started) return;
    try {
      this.#options.queue.failExhausted(this.#options.maxAttempts);
      while (this.#running.size < this.#options.concurrency) {
        const job = this.#options.queue.claim(this.owner, this.#options.leaseMs);
        if (!job) break;
        const controller = new AbortController();
        const done = this.#run(job, controller).finally(() => {
          this.#running.delete(job.id);
          if (this.#started) this.#schedule(0);
        });
        this.#running.set(job.id, { controller, done, job });
      }
    } catch (error) {
      this.#options.logger.error({ msg: 'worker tick failed', error: String(error) });
    }
    if (this.#started) this.#schedule(this.#options.pollMs);
  }

  async #run(job: Job, controller = new AbortController()): Promise<void> {
    const { queue, conversations, engine, leaseMs, maxAttempts, logger } = this.#options;
    if (job.attempts > maxAttempts) {
      queue.fail(job, this.owner, 'too many attempts', true, 0);
      this.#options.onSettled(job.conversationId);
      return;
    }
    const renew = setInterval(() => {
      if (!queue.renew(job, this.owner, leaseMs)) controller.abort(new Error('lease lost'));
    }, Math.max(50, Math.floor(leaseMs / 3)));
    renew.unref();
    const started = Date.now();
    try {
      const messages = conversations.messages(job.conversationId);
      const answer = await engine.answer({ orgId: job.orgId, messages, signal: controller.signal });
      if (controller.signal.aborted) throw controller.signal.reason;
      const sources = dedupeSources(answer.sources).slice(0, 5);
      if (queue.complete(job, this.owner, { content: answer.content, sources })) {
        logger.info({ msg: 'answer completed', conversation: job.conversationId, attempt: job.attempts, ms: Date.now() - started });
      }
    } catch (error) {
      if (!this.#started && controller.signal.aborted) {
        queue.release(job, this.owner);
        return;
      }
      const final = job.attempts >= maxAttempts;
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ msg: 'answer attempt failed', conversation: job.conversationId, attempt: job.attempts, final, error: message });
      queue.fail(job, this.owner, message, final, Math.min(30_000, 500 * 2 ** job.attempts));
    } finally {
      clearInterval(renew);
      this.#options.onSettled(job.conversationId);
    }
  }
}

function dedupeSources(sources: { title: string; url: string }[]): { title: string; url: string }[] {
  const seen = new Set<string>();
  return sources.filter((s) => {
    if (typeof s?.url !== 'string' || typeof s.title !== 'string' || seen.has(s.url)) return false;
    seen.add(s.url);
    return true;
  });
}
