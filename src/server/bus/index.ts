/**
 * @module What one server process tells the others: a conversation settled (long polls wake), an
 * answer job was queued (workers look now), tokens changed (token caches are dropped), an
 * organization's knowledge base changed (workers rebuild its index), a turn's streamed events grew
 * (its streams read them). One process needs no more
 * than an in-memory bus; several share Redis pub/sub (`SUPPORT_CHAT_REDIS_URL`).
 *
 * Messages are hints that make things happen sooner: every receiver also re-reads the database on
 * its own schedule (long polls every 500 ms, workers every poll interval), so a lost message delays
 * and never loses anything.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { connectedWithin, createRedisClient, loadRedis, throttledReport, type RedisClient } from './redis.js';

export type Topic = 'settled' | 'queued' | 'tokens' | 'kb' | 'turn';
const TOPICS: readonly Topic[] = ['settled', 'queued', 'tokens', 'kb', 'turn'];

export interface Bus {
  /** Tells every process, this one included (this one at once). */
  publish(topic: Topic, message: string): void;
  /** Calls `listener` with each message on `topic`. Returns the unsubscribe function. */
  subscribe(topic: Topic, listener: (message: string) => void): () => void;
  /** Resolves once messages flow (connected); rejects when they cannot. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** The bus of a process that runs alone. */
export class LocalBus implements Bus {
  readonly #events = new EventEmitter().setMaxListeners(0);

  publish(topic: Topic, message: string): void {
    this.#events.emit(topic, message);
  }

  subscribe(topic: Topic, listener: (message: string) => void): () => void {
    this.#events.on(topic, listener);
    return () => this.#events.off(topic, listener);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.#events.removeAllListeners();
  }
}

export interface RedisBusOptions {
  url: string;
  /** Prefix of the channels. @default 'support-chat' */
  prefix?: string;
  /** Called when Redis cannot be reached (messages are then dropped; receivers' re-reads cover them). */
  onError?: (error: unknown) => void;
}

/**
 * Redis pub/sub: one connection publishes, one subscribes to the five channels. A process hears its
 * own messages at once through the local bus, and skips their echo from Redis.
 */
export class RedisBus implements Bus {
  readonly #local = new LocalBus();
  readonly #origin = randomUUID();
  readonly #prefix: string;
  readonly #url: string;
  /** Called with Redis's errors, at most once every 10 s. */
  readonly #report: (error: unknown) => void;
  readonly #clients: Promise<{ pub: RedisClient; sub: RedisClient }>;
  readonly #pending = new Set<Promise<void>>();
  /** The clients as soon as they exist, so closing can stop one that never connected. */
  readonly #made: RedisClient[] = [];

  constructor(options: RedisBusOptions) {
    this.#url = options.url;
    this.#prefix = options.prefix ?? 'support-chat';
    this.#report = throttledReport(options.onError ?? (() => undefined));
    this.#clients = this.#connect();
    this.#clients.catch(() => undefined);
  }

  publish(topic: Topic, message: string): void {
    this.#local.publish(topic, message);
    const sent = this.#clients
      .then(({ pub }) => (pub.isReady ? pub.publish(this.#channel(topic), `${this.#origin} ${message}`) : Promise.reject(new Error(`Redis at ${this.#url} is not connected`))))
      .then(
        () => undefined,
        this.#report,
      );
    this.#pending.add(sent);
    void sent.finally(() => this.#pending.delete(sent));
  }

  /** Resolves once every message published so far has reached Redis (or failed to). */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  subscribe(topic: Topic, listener: (message: string) => void): () => void {
    return this.#local.subscribe(topic, listener);
  }

  ready(timeoutMs = 5_000): Promise<void> {
    return connectedWithin(this.#clients, this.#url, timeoutMs);
  }

  async close(): Promise<void> {
    // A client still trying to connect (Redis never answered) is stopped first: connecting would
    // otherwise retry forever, and the messages waiting for it with it.
    for (const client of this.#made) if (!client.isReady && client.isOpen) client.destroy();
    await this.flush();
    await this.#clients.catch(() => null);
    for (const client of this.#made) {
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    }
    await this.#local.close();
  }

  async #connect(): Promise<{ pub: RedisClient; sub: RedisClient }> {
    const redis = await loadRedis(this.#url);
    const pub = createRedisClient(redis, this.#url, this.#report);
    const sub = createRedisClient(redis, this.#url, this.#report);
    this.#made.push(pub, sub);
    await Promise.all([pub.connect(), sub.connect()]);
    await Promise.all(
      TOPICS.map((topic) =>
        sub.subscribe(this.#channel(topic), (raw: string) => {
          const space = raw.indexOf(' ');
          if (space < 0 || raw.slice(0, space) === this.#origin) return;
          this.#local.publish(topic, raw.slice(space + 1));
        }),
      ),
    );
    return { pub, sub };
  }

  #channel(topic: Topic): string {
    return `${this.#prefix}:bus:${topic}`;
  }

}
