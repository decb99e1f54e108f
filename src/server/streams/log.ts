/**
 * @module Where a turn's events are kept while it is written and for a while after: in memory when
 * one process runs alone, in a Redis Stream per turn when several share `SUPPORT_CHAT_REDIS_URL`
 * (the worker that writes the answer and the API process that streams it are then different
 * processes). Each event has the turn's next sequence number (1, 2, …); a reader asks for the
 * events after the last one it has, so a resumed stream repeats and skips nothing.
 *
 * Bounded: a turn keeps at most `MAX_TURN_EVENTS` events (the writer folds the rest of the text
 * into one delta, see writer.ts), and its log is dropped `retentionMs` after its last event.
 */
import { connectedWithin, createRedisClient, loadRedis, throttledReport, type RedisClient } from '../bus/redis.js';

/** The kinds of event a turn's log holds: `end` marks the turn settled (the stream then sends its terminal event). */
export type TurnEventType = 'status' | 'delta' | 'end';

export interface TurnEvent {
  /** 1 for a turn's first event, then one more for each. */
  seq: number;
  type: TurnEventType;
  /** The event's data as JSON text. */
  data: string;
}

/** Most events one turn's log keeps (the writer folds the text past it into one delta). */
export const MAX_TURN_EVENTS = 2_000;
/** How long a turn's log is kept after its last event: a client back within it resumes where it was. @default 10 minutes */
export const DEFAULT_TURN_RETENTION_MS = 10 * 60_000;

export interface TurnLog {
  /** The sequence number of the turn's last event; 0 when it has none (or its log expired). */
  last(key: string): Promise<number>;
  /** Appends event `seq` (the last one's plus one); false when the log already holds it (another writer). */
  append(key: string, event: TurnEvent): Promise<boolean>;
  /** The turn's events after `after`, oldest first, at most `limit`. */
  read(key: string, after: number, limit: number): Promise<TurnEvent[]>;
  /** Deletes these turns' events now. */
  forget(keys: string[]): Promise<void>;
  /** Resolves once the log can be read and written (connected); rejects when it cannot. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** A turn's events in this process's memory, each log dropped `retentionMs` after its last event. */
export class MemoryTurnLog implements TurnLog {
  readonly #logs = new Map<string, { events: TurnEvent[]; timer: NodeJS.Timeout }>();
  readonly #retentionMs: number;

  constructor(options: { retentionMs?: number } = {}) {
    this.#retentionMs = options.retentionMs ?? DEFAULT_TURN_RETENTION_MS;
  }

  /** Turns whose events are held now. */
  get size(): number {
    return this.#logs.size;
  }

  async last(key: string): Promise<number> {
    return this.#logs.get(key)?.events.at(-1)?.seq ?? 0;
  }

  async append(key: string, event: TurnEvent): Promise<boolean> {
    let log = this.#logs.get(key);
    if ((log?.events.at(-1)?.seq ?? 0) !== event.seq - 1 || event.seq > MAX_TURN_EVENTS) return false;
    if (log) clearTimeout(log.timer);
    else this.#logs.set(key, (log = { events: [], timer: undefined as unknown as NodeJS.Timeout }));
    log.events.push(event);
    log.timer = setTimeout(() => this.#logs.delete(key), this.#retentionMs);
    log.timer.unref();
    return true;
  }

  async read(key: string, after: number, limit: number): Promise<TurnEvent[]> {
    const events = this.#logs.get(key)?.events;
    if (!events) return [];
    // Sequence numbers are positions: event n is at index n - 1.
    return events.slice(Math.max(0, after), Math.max(0, after) + limit);
  }

  async forget(keys: string[]): Promise<void> {
    for (const key of keys) {
      clearTimeout(this.#logs.get(key)?.timer);
      this.#logs.delete(key);
    }
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    for (const log of this.#logs.values()) clearTimeout(log.timer);
    this.#logs.clear();
  }
}

/**
 * A Redis Stream per turn, its entry IDs `0-<seq>` (so XADD refuses a sequence number already
 * written, and XRANGE reads after one directly), trimmed to `MAX_TURN_EVENTS` and expiring
 * `retentionMs` after its last event.
 */
export class RedisTurnLog implements TurnLog {
  readonly #url: string;
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #client: Promise<RedisClient>;
  readonly #report: (error: unknown) => void;
  #made: RedisClient | undefined;

  constructor(options: { url: string; prefix?: string; retentionMs?: number; onError?: (error: unknown) => void }) {
    this.#url = options.url;
    this.#prefix = options.prefix ?? 'support-chat';
    this.#retentionMs = options.retentionMs ?? DEFAULT_TURN_RETENTION_MS;
    this.#report = throttledReport(options.onError ?? (() => undefined));
    this.#client = this.#connect();
    this.#client.catch(() => undefined);
  }

  async last(key: string): Promise<number> {
    const client = await this.#client;
    const entry = (await client.xRevRange(this.#key(key), '+', '-', { COUNT: 1 }))?.[0];
    return entry ? seqOf(entry.id) : 0;
  }

  async append(key: string, event: TurnEvent): Promise<boolean> {
    if (event.seq > MAX_TURN_EVENTS) return false;
    const client = await this.#client;
    const redisKey = this.#key(key);
    // Sent together (node-redis pipelines commands issued at once).
    const [added] = await Promise.allSettled([
      client.xAdd(redisKey, `0-${event.seq}`, { t: event.type, d: event.data }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '=', threshold: MAX_TURN_EVENTS } }),
      client.pExpire(redisKey, this.#retentionMs),
    ]);
    if (added.status === 'fulfilled') return true;
    // "The ID specified in XADD is equal or smaller than the target stream top item": another writer got there first.
    if (added.reason instanceof Error && added.reason.message.includes('equal or smaller')) return false;
    throw added.reason;
  }

  async read(key: string, after: number, limit: number): Promise<TurnEvent[]> {
    const client = await this.#client;
    const entries = await client.xRange(this.#key(key), `0-${after + 1}`, '+', { COUNT: limit });
    const events: TurnEvent[] = [];
    for (const entry of entries ?? []) {
      const type = entry.message.t;
      if (type !== 'status' && type !== 'delta' && type !== 'end') continue;
      events.push({ seq: seqOf(entry.id), type, data: String(entry.message.d ?? 'null') });
    }
    return events;
  }

  async forget(keys: string[]): Promise<void> {
    const client = await this.#client;
    await client.del(keys.map((key) => this.#key(key)));
  }

  ready(timeoutMs = 5_000): Promise<void> {
    return connectedWithin(this.#client, this.#url, timeoutMs);
  }

  async close(): Promise<void> {
    const client = this.#made;
    if (!client) return;
    if (client.isReady) await client.close().catch(() => client.destroy());
    else if (client.isOpen) client.destroy();
  }

  async #connect(): Promise<RedisClient> {
    const redis = await loadRedis(this.#url);
    const client = createRedisClient(redis, this.#url, this.#report);
    this.#made = client;
    await client.connect();
    return client;
  }

  #key(key: string): string {
    return `${this.#prefix}:turn:${key}`;
  }
}

/** The sequence number of a stream entry ID `0-<seq>`. */
function seqOf(id: string): number {
  return Number(id.slice(id.indexOf('-') + 1));
}
