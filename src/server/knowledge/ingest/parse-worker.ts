/**
 * @module Pages parsed off the event loop: a pool of worker threads, one per core, decodes and
 * reads crawled HTML (see `readHtml`) within a budget of elements, nesting depth, time and memory.
 * A page over it is refused with `PageBudgetError` (the crawl reports it and goes on), and a thread
 * that ran out of time or memory is replaced: whatever a page holds, requests of the process are
 * served meanwhile. This file is both the pool (imported) and the thread (started by the pool).
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { decodeHtml } from './html-charset.js';
import { PageBudgetError, readHtml, type HtmlOptions, type HtmlPage } from './html.js';

/** Time a page may take to be read, in ms: a long docs page takes tens of milliseconds. */
export const PARSE_TIMEOUT_MS = 10_000;
/** Heap a parsing thread may use, in MB: a 5 MiB page within the element budget needs a few hundred. */
export const PARSE_HEAP_MB = 512;

/** Marks the thread this module starts, so importing the module elsewhere (another worker) starts nothing. */
const ROLE = 'support-chat-parse-worker';

interface Job {
  id: number;
  body: Uint8Array;
  contentType: string;
  options: HtmlOptions;
}

type Reply = { id: number; page: HtmlPage } | { id: number; error: string; budget: boolean } | { ready: true };

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  parentPort!.on('message', ({ id, body, contentType, options }: Job) => {
    let reply: Reply;
    try {
      reply = { id, page: readHtml(decodeHtml(body, contentType), options) };
    } catch (error) {
      reply = { id, error: error instanceof Error ? error.message : String(error), budget: error instanceof PageBudgetError };
    }
    parentPort!.postMessage(reply);
  });
  // Loaded: the pool's clock for a page starts now, not while the thread starts.
  parentPort!.postMessage({ ready: true });
}

/**
 * How the thread is started: this file itself; from the TypeScript sources (tests, `tsx`), a line
 * that registers tsx's loader in the thread, then imports this file.
 */
function thread(): { source: string | URL; eval: boolean; data: Record<string, string> } {
  const self = new URL(import.meta.url);
  if (!self.pathname.endsWith('.ts')) return { source: self, eval: false, data: {} };
  // The ES module build of tsx's API (its CommonJS build misplaces its loader when run this way).
  const api = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const source = 'const { workerData } = require("node:worker_threads"); import(workerData.api).then(({ register }) => { register(); return import(workerData.self); });';
  return { source, eval: true, data: { api, self: self.href } };
}

interface Pending {
  job: Job;
  resolve(page: HtmlPage): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  /** Whether the thread has loaded (a page's time counts from then). */
  ready: boolean;
  busy: Pending | null;
  timer?: NodeJS.Timeout;
}

export interface ParsePoolOptions {
  /** Threads at most. @default the machine's cores */
  size?: number;
  /** @default PARSE_TIMEOUT_MS */
  timeoutMs?: number;
  /** @default PARSE_HEAP_MB */
  heapMb?: number;
}

/** Worker threads reading pages, started as pages come and kept while the process lives (idle ones do not hold it open). */
export class ParsePool {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #heapMb: number;
  readonly #slots: Slot[] = [];
  readonly #waiting: Pending[] = [];
  #next = 0;

  constructor(options: ParsePoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? availableParallelism());
    this.#timeoutMs = options.timeoutMs ?? PARSE_TIMEOUT_MS;
    this.#heapMb = options.heapMb ?? PARSE_HEAP_MB;
  }

  /** Reads a page's bytes (decoded by its Content-Type or `<meta>` charset). Rejects with `PageBudgetError` when over budget. */
  parse(body: Uint8Array, contentType: string, options: HtmlOptions): Promise<HtmlPage> {
    // A copy of its own, handed over to the thread without another copy.
    const own = new Uint8Array(body);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ job: { id: this.#next++, body: own, contentType, options }, resolve, reject });
      this.#dispatch();
    });
  }

  /** Stops every thread; pages being read are refused. */
  async close(): Promise<void> {
    const slots = this.#slots.splice(0);
    for (const pending of this.#waiting.splice(0)) pending.reject(new Error('the parse pool was closed'));
    await Promise.all(slots.map((slot) => this.#stop(slot, new Error('the parse pool was closed'))));
  }

  #dispatch(): void {
    while (this.#waiting.length > 0) {
      const slot = this.#slots.find((s) => !s.busy) ?? (this.#slots.length < this.#size ? this.#start() : undefined);
      if (!slot) return;
      const pending = this.#waiting.shift()!;
      slot.busy = pending;
      slot.worker.ref();
      if (slot.ready) this.#clock(slot);
      slot.worker.postMessage(pending.job, [pending.job.body.buffer as ArrayBuffer]);
    }
  }

  /** Starts the time the slot's page may take. */
  #clock(slot: Slot): void {
    slot.timer = setTimeout(() => void this.#fail(slot, new PageBudgetError(`took over ${this.#timeoutMs / 1000} s to read`)), this.#timeoutMs);
  }

  #start(): Slot {
    const { source, eval: evaluated, data } = thread();
    const worker = new Worker(source, { eval: evaluated, workerData: { role: ROLE, ...data }, resourceLimits: { maxOldGenerationSizeMb: this.#heapMb } });
    worker.unref();
    const slot: Slot = { worker, ready: false, busy: null };
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        slot.ready = true;
        if (slot.busy) this.#clock(slot);
        return;
      }
      const pending = slot.busy;
      if (!pending || pending.job.id !== reply.id) return;
      clearTimeout(slot.timer);
      slot.busy = null;
      worker.unref();
      if ('page' in reply) pending.resolve(reply.page);
      else pending.reject(reply.budget ? new PageBudgetError(reply.error) : new Error(reply.error));
      this.#dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      void this.#fail(slot, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new PageBudgetError(`needed over ${this.#heapMb} MB to read`) : error);
    });
    worker.on('exit', () => void this.#fail(slot, new Error('the parsing thread exited')));
    this.#slots.push(slot);
    return slot;
  }

  /** Refuses the slot's page, stops its thread and frees its place for a new one. */
  async #fail(slot: Slot, error: Error): Promise<void> {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    await this.#stop(slot, error);
    this.#dispatch();
  }

  async #stop(slot: Slot, error: Error): Promise<void> {
    clearTimeout(slot.timer);
    const pending = slot.busy;
    slot.busy = null;
    pending?.reject(error);
    await slot.worker.terminate();
  }
}

let shared: ParsePool | undefined;

/** The process's pool, started on first use. */
export function parsePool(): ParsePool {
  return (shared ??= new ParsePool());
}
