/**
 * @module Streamed answers: the worker writes a turn's events (status, the reply's deltas, its
 * end) to the turn's log (log.ts), and tells every process through the bus that the turn grew;
 * `GET /v0/chat/{id}/events` (routes/events.ts, over event-stream.ts) reads the log from where its
 * client is and sends what follows. The log is the truth and the bus only a hint: a stream that
 * misses a hint finds the events at its next re-read.
 */
import { CONVERSATION_MAX_TURNS } from '../../protocol/limits.js';
import type { Bus } from '../bus/index.js';
import type { Logger } from '../log.js';
import { MAX_TURN_EVENTS, type TurnEvent, type TurnEventType, type TurnLog } from './log.js';

/** Splits a reply into sentences (Unicode's rules), so the local engine's answer arrives as deltas too. */
const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });

export { MemoryTurnLog, RedisTurnLog, MAX_TURN_EVENTS, DEFAULT_TURN_RETENTION_MS, type TurnLog, type TurnEvent } from './log.js';

/** What the worker is doing on a turn, sent as `event: status`. */
export type TurnStatus = 'retrieving' | 'writing';

/** Streams one organization may hold open at once, by default (one API process). */
export const DEFAULT_MAX_STREAMS_PER_ORG = 2_000;

/** The log key of a conversation's turn (its n-th user message). */
export function turnKey(conversationId: string, turn: number): string {
  return `${conversationId}:${turn}`;
}

/** How often a stream sends a comment while nothing else is. */
export const DEFAULT_KEEPALIVE_MS = 15_000;
/** How often a waiting stream re-reads the log and the conversation, in case a hint was lost. @default 5000 */
export const DEFAULT_RECHECK_MS = 5_000;

export interface TurnStreamsOptions {
  log: TurnLog;
  /** Carries the hints that a turn's log grew (`turn` topic). */
  bus: Bus;
  logger: Logger;
  /** Streams one organization may hold open in this process; more are answered 429. @default 2000 */
  maxStreamsPerOrg?: number;
  /** @default 15000 */
  keepaliveMs?: number;
  /** @default 5000 */
  recheckMs?: number;
}

export class TurnStreams {
  readonly log: TurnLog;
  readonly #bus: Bus;
  readonly #logger: Logger;
  readonly #watchers = new Map<string, Set<() => void>>();
  readonly #open = new Map<string, number>();
  readonly maxPerOrg: number;
  /** How often a stream sends a comment while nothing else is sent. */
  readonly keepaliveMs: number;
  /** How often a waiting stream re-reads its log and conversation (in case a hint was lost). */
  readonly recheckMs: number;
  readonly #unsubscribe: () => void;

  constructor(options: TurnStreamsOptions) {
    this.log = options.log;
    this.#bus = options.bus;
    this.#logger = options.logger;
    this.maxPerOrg = options.maxStreamsPerOrg ?? DEFAULT_MAX_STREAMS_PER_ORG;
    this.keepaliveMs = options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS;
    this.recheckMs = options.recheckMs ?? DEFAULT_RECHECK_MS;
    // One subscription for every stream of this process, each turn's watchers found by key.
    this.#unsubscribe = this.#bus.subscribe('turn', (key) => {
      for (const listener of this.#watchers.get(key) ?? []) listener();
    });
  }

  /** A writer of the turn's events, continuing its log (an earlier attempt may have written some). */
  async writer(conversationId: string, turn: number): Promise<TurnWriter> {
    const key = turnKey(conversationId, turn);
    let last = 0;
    try {
      last = await this.log.last(key);
    } catch (error) {
      this.#report(key, error);
    }
    return new TurnWriter(this, key, last);
  }

  /** Deletes every turn's events of a deleted conversation (a conversation has at most `CONVERSATION_MAX_TURNS` turns). */
  async forget(conversationId: string): Promise<void> {
    const keys = Array.from({ length: CONVERSATION_MAX_TURNS }, (_, i) => turnKey(conversationId, i + 1));
    try {
      await this.log.forget(keys);
    } catch (error) {
      // Redis unreachable: the events expire with their retention (10 minutes by default).
      this.#report(conversationId, error);
    }
  }

  /** Calls `listener` whenever the turn's log grows (a hint: it may also be called for nothing). Returns the unwatch function. */
  watch(key: string, listener: () => void): () => void {
    let set = this.#watchers.get(key);
    if (!set) this.#watchers.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#watchers.delete(key);
    };
  }

  /** Counts a stream of `orgId` opened; false (and nothing counted) when the organization holds its limit. */
  acquire(orgId: string): boolean {
    const open = this.#open.get(orgId) ?? 0;
    if (open >= this.maxPerOrg) return false;
    this.#open.set(orgId, open + 1);
    return true;
  }

  /** Counts a stream of `orgId` closed. */
  release(orgId: string): void {
    const open = (this.#open.get(orgId) ?? 1) - 1;
    if (open <= 0) this.#open.delete(orgId);
    else this.#open.set(orgId, open);
  }

  /** Streams open in this process. */
  get open(): number {
    let total = 0;
    for (const n of this.#open.values()) total += n;
    return total;
  }

  /** @internal Appends one event and tells the processes. */
  async append(key: string, event: TurnEvent): Promise<boolean> {
    const added = await this.log.append(key, event);
    if (added) this.#bus.publish('turn', key);
    return added;
  }

  /** @internal */
  report(key: string, error: unknown): void {
    this.#report(key, error);
  }

  #report(key: string, error: unknown): void {
    this.#logger.warn({ msg: 'turn events unavailable', turn: key, error: error instanceof Error ? error.message : String(error) });
  }

  close(): Promise<void> {
    this.#unsubscribe();
    this.#watchers.clear();
    return this.log.close();
  }
}

/**
 * Writes one turn's events in order, one append at a time: deltas that arrive while an append is
 * under way go out together as one. A turn whose log already holds events (an earlier attempt
 * died while writing) streams no more text: its stream ends with the terminal event, which holds
 * the whole answer. Past `MAX_TURN_EVENTS` the text is held and sent as one last delta.
 */
export class TurnWriter {
  readonly #streams: TurnStreams;
  readonly key: string;
  #seq: number;
  /** An earlier attempt wrote to this turn: only its end is written. */
  readonly #quiet: boolean;
  readonly #queue: { type: TurnEventType; data: string; text?: string; own?: boolean }[] = [];
  #writing: Promise<void> | undefined;
  #text = '';

  constructor(streams: TurnStreams, key: string, last: number) {
    this.#streams = streams;
    this.key = key;
    this.#seq = last;
    this.#quiet = last > 0;
  }

  /** The text sent as deltas so far (queued included). */
  get text(): string {
    return this.#text;
  }

  status(status: TurnStatus): void {
    if (this.#quiet) return;
    this.#queue.push({ type: 'status', data: JSON.stringify({ status }) });
    this.#pump();
  }

  /**
   * The next piece of the reply. Pieces that arrive while an append is under way go out as one
   * event, unless `own` (a sentence of an answer streamed once composed keeps its own event).
   */
  delta(text: string, own = false): void {
    if (this.#quiet || text === '') return;
    this.#text += text;
    const tail = this.#queue.at(-1);
    if (tail?.type === 'delta' && !own && !tail.own) tail.text! += text;
    else this.#queue.push({ type: 'delta', data: '', text, own });
    this.#pump();
  }

  /**
   * Sends as deltas the part of `content` not streamed yet (all of it, sentence by sentence, when
   * the engine streamed nothing). False when the streamed text is not the start of `content` (an
   * engine broke its promise): nothing more is sent, and the terminal event holds the answer.
   */
  finish(content: string): boolean {
    if (this.#quiet) return true;
    if (!content.startsWith(this.#text)) return false;
    const rest = content.slice(this.#text.length);
    for (const { segment } of SENTENCES.segment(rest)) this.delta(segment, true);
    return true;
  }

  /** Resolves once everything queued is written (or failed to be). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  /** Writes the turn's end after everything queued; resolves when it is written (or failed to be). */
  async end(): Promise<void> {
    this.#queue.push({ type: 'end', data: '{}' });
    this.#pump();
    await this.#writing;
  }

  #pump(): void {
    if (this.#writing) return;
    this.#writing = this.#drain().finally(() => (this.#writing = undefined));
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const next = this.#queue[0]!;
      if (next.type === 'delta' && this.#seq >= MAX_TURN_EVENTS - 2) {
        // The log has room only for one last delta and the end: the text queued is folded into one
        // delta, held while more text may follow.
        while (this.#queue[1]?.type === 'delta') next.text! += this.#queue.splice(1, 1)[0]!.text!;
        if (this.#queue.length === 1) return;
      }
      this.#queue.shift();
      const data = next.type === 'delta' ? JSON.stringify({ text: next.text }) : next.data;
      try {
        if (await this.#streams.append(this.key, { seq: this.#seq + 1, type: next.type, data })) this.#seq++;
      } catch (error) {
        // The stream's reader settles on the conversation itself: a lost event delays its client, never loses the answer.
        this.#streams.report(this.key, error);
      }
    }
  }
}
