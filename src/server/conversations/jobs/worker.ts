/** @module The worker that runs answer jobs: a few at a time, lease renewed while the engine works. */
import type { AnswerEngine } from '../../answers/types.js';
import { leaseOwner, type ConversationLifecycle } from '../lifecycle.js';
import type { ConversationStore } from '../../store/conversations.js';
import type { Logger } from '../../log.js';
import type { Job } from './queue.js';
import type { TurnStreams, TurnWriter } from '../../streams/index.js';

export interface WorkerOptions {
  /** Claims, renews, completes and fails jobs; its policy sets the lease and the attempts. */
  lifecycle: ConversationLifecycle;
  conversations: ConversationStore;
  engine: AnswerEngine;
  logger: Logger;
  /** Jobs run at the same time (the server passes DEFAULT_WORKER_CONCURRENCY or its option). @default 4 */
  concurrency?: number;
  /** Idle poll interval for jobs queued by other processes. @default 250 */
  pollMs?: number;
  /** Where each turn's reply is streamed as it is written; none: answers are not streamed. */
  streams?: TurnStreams;
}

export class Worker {
  readonly owner = leaseOwner();
  readonly #lifecycle: ConversationLifecycle;
  readonly #conversations: ConversationStore;
  readonly #engine: AnswerEngine;
  readonly #logger: Logger;
  readonly #concurrency: number;
  readonly #pollMs: number;
  readonly #streams: TurnStreams | undefined;
  readonly #running = new Map<number, { controller: AbortController; done: Promise<void>; job: Job }>();
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #unsubscribe: (() => void) | undefined;
  #ticking = false;
  #tickAgain = false;

  constructor(options: WorkerOptions) {
    this.#lifecycle = options.lifecycle;
    this.#conversations = options.conversations;
    this.#engine = options.engine;
    this.#logger = options.logger;
    this.#concurrency = options.concurrency ?? 4;
    this.#pollMs = options.pollMs ?? 250;
    this.#streams = options.streams;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    // A job queued by this process is started at once; other processes' jobs are found by polling.
    this.#unsubscribe = this.#lifecycle.onQueued(() => this.#schedule(0));
    this.#schedule(0);
  }

  /** Stops taking jobs; in-flight ones are aborted and given back to the queue uncounted. */
  async stop(): Promise<void> {
    this.#started = false;
    this.#unsubscribe?.();
    clearTimeout(this.#timer);
    for (const { controller } of this.#running.values()) controller.abort(new Error('worker stopping'));
    await Promise.all([...this.#running.values()].map((r) => r.done));
  }

  /** Runs jobs until none is ready (tests call this instead of start()). Returns whether any ran. */
  async runOnce(): Promise<boolean> {
    let ran = false;
    for (;;) {
      const job = await this.#lifecycle.claim(this.owner);
      if (!job) return ran;
      ran = true;
      await this.#run(job);
    }
  }

  #schedule(delay: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), delay);
    this.#timer.unref();
  }

  /** One claim round (never two at once): jobs are claimed until the concurrency is used or none is ready. */
  async #tick(): Promise<void> {
    if (!this.#started) return;
    if (this.#ticking) {
      this.#tickAgain = true;
      return;
    }
    this.#ticking = true;
    try {
      do {
        this.#tickAgain = false;
        while (this.#started && this.#running.size < this.#concurrency) {
          const job = await this.#lifecycle.claim(this.owner);
          if (!job) break;
          const controller = new AbortController();
          const done = this.#run(job, controller).finally(() => {
            this.#running.delete(job.id);
            if (this.#started) this.#schedule(0);
          });
          this.#running.set(job.id, { controller, done, job });
        }
      } while (this.#tickAgain && this.#started);
    } catch (error) {
      this.#logger.error({ msg: 'worker tick failed', error: String(error) });
    } finally {
      this.#ticking = false;
    }
    if (this.#started) this.#schedule(this.#pollMs);
  }

  async #run(job: Job, controller = new AbortController()): Promise<void> {
    const lifecycle = this.#lifecycle;
    const renew = setInterval(() => {
      lifecycle.renew(job, this.owner).then(
        (held) => held || controller.abort(new Error('lease lost')),
        (error: unknown) => this.#logger.warn({ msg: 'lease renewal failed', conversation: job.conversationId, error: String(error) }),
      );
    }, Math.floor(lifecycle.policy.leaseMs / 3));
    renew.unref();
    const started = Date.now();
    let writer: TurnWriter | undefined;
    try {
      const messages = await this.#conversations.messages(job.conversationId);
      // The turn is the conversation's n-th user message: its streamed events are kept under it.
      writer = await this.#streams?.writer(job.conversationId, messages.filter((m) => m.role === 'user').length);
      writer?.status('retrieving');
      const stream = writer && { status: (status: 'writing') => writer!.status(status), delta: (text: string) => writer!.delta(text) };
      const context = await this.#conversations.questionContext(job.conversationId);
      const answer = await this.#engine.answer({ orgId: job.orgId, messages, context, signal: controller.signal, stream });
      if (controller.signal.aborted) throw controller.signal.reason;
      const sources = dedupeSources(answer.sources).slice(0, 5);
      if (writer) {
        if (!writer.finish(answer.content)) this.#logger.warn({ msg: 'streamed text is not the answer', conversation: job.conversationId });
        // Every delta is in the log before the conversation settles: its stream's terminal event comes last.
        await writer.flush();
      }
      if (await lifecycle.complete(job, this.owner, { content: answer.content, sources, isUncertain: answer.isUncertain ?? false })) {
        // Logged as the answer is stored: a client that has it may stop the process before the stream's end is written.
        this.#logger.info({ msg: 'answer completed', conversation: job.conversationId, attempt: job.attempts, ms: Date.now() - started });
        await writer?.end();
      }
    } catch (error) {
      if (!this.#started && controller.signal.aborted) {
        await lifecycle.release(job, this.owner).catch(() => undefined);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      try {
        // Text already streamed cannot be taken back: the turn fails rather than being written again.
        const outcome = await lifecycle.fail(job, this.owner, message, { final: (writer?.text ?? '') !== '' });
        if (outcome === 'failed') await writer?.end();
        this.#logger.warn({ msg: 'answer attempt failed', conversation: job.conversationId, attempt: job.attempts, final: outcome === 'failed', error: message });
      } catch (failError) {
        // The database is unreachable: the lease runs out and another attempt (here or elsewhere) takes the job.
        this.#logger.error({ msg: 'answer attempt could not be recorded', conversation: job.conversationId, error: String(failError) });
      }
    } finally {
      clearInterval(renew);
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
