/**
 * @module The rate limiter shared by several server processes: the same fixed one-minute windows
 * as the in-memory limiter, counted in Redis by one Lua script per request, so the check of every
 * bucket and the consumption of all of them is atomic across processes. The window is Redis's
 * clock (`TIME`), never a machine's: processes whose clocks disagree still count in one window.
 */
import { createHash } from 'node:crypto';
import { connectedWithin, createRedisClient, loadRedis, throttledReport, type RedisClient } from '../bus/redis.js';
import type { Bucket, RateDecision, RateLimiter } from './rate-limit.js';

const WINDOW_MS = 60_000;

/**
 * KEYS: the buckets' keys; ARGV: their limits, then the window's length in ms. Each key counts one
 * window and expires when it ends, so a window is a key's lifetime on Redis's clock.
 * Refuses (and consumes nothing) when any bucket is used up; otherwise counts one in each.
 * Returns {1, window end ms, now ms, count…} or {0, window end ms, now ms, index of the refusing bucket}.
 */
const CONSUME = `
local n = #KEYS
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local length = tonumber(ARGV[n + 1])
local reset = (math.floor(now / length) + 1) * length
for i = 1, n do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  if used >= tonumber(ARGV[i]) then return {0, reset, now, i} end
end
local out = {1, reset, now}
for i = 1, n do
  local count = redis.call('INCR', KEYS[i])
  if count == 1 then redis.call('PEXPIREAT', KEYS[i], reset) end
  out[i + 3] = count
end
return out
`;
const CONSUME_SHA = createHash('sha1').update(CONSUME).digest('hex');

/**
 * The hash tag of a request's keys, so that all of them are in one Redis Cluster slot (the script
 * runs on one node) while different organizations spread over the cluster: the organization's
 * bucket (`org:ID`, the shortest key starting `org:`) when the request has one, else the single
 * bucket's own key (a client address, a webhook source).
 */
function hashTag(buckets: readonly Bucket[]): string {
  let tag: string | undefined;
  for (const { key } of buckets) {
    if (key.startsWith('org:') && (tag === undefined || key.length < tag.length)) tag = key;
  }
  return tag ?? buckets[0]?.key ?? '';
}

export interface RedisRateLimiterOptions {
  /** e.g. `redis://127.0.0.1:6379` */
  url: string;
  /** Prefix of every key. @default 'support-chat' */
  prefix?: string;
  /** The clock of the headers while Redis is down (the window is Redis's clock otherwise). @default Date.now */
  now?: () => number;
  /**
   * Called when Redis cannot be reached. The request is then let through (availability over
   * limits while Redis is down), with headers reporting the bucket's full limit.
   */
  onError?: (error: unknown) => void;
}

export class RedisRateLimiter implements RateLimiter {
  #client: RedisClient | undefined;
  readonly #url: string;
  readonly #prefix: string;
  readonly #now: () => number;
  /** Called when Redis cannot be reached, at most once every 10 s. */
  readonly #report: (error: unknown) => void;
  readonly #created: Promise<RedisClient>;
  readonly #ready: Promise<unknown>;

  constructor(options: RedisRateLimiterOptions) {
    this.#url = options.url;
    this.#prefix = options.prefix ?? 'support-chat';
    this.#now = options.now ?? Date.now;
    this.#report = throttledReport(options.onError ?? (() => undefined), this.#now);
    // Commands fail at once while disconnected (no offline queue): a request never waits on Redis.
    this.#created = loadRedis(options.url).then((redis) => (this.#client = createRedisClient(redis, options.url, () => undefined, { disableOfflineQueue: true })));
    this.#ready = this.#created.then((client) => client.connect());
    this.#ready.catch(() => undefined);
  }

  /** Resolves once connected; rejects when Redis does not answer within `timeoutMs`. */
  ready(timeoutMs = 5_000): Promise<void> {
    return connectedWithin(this.#ready, this.#url, timeoutMs);
  }

  async consume(buckets: Bucket[]): Promise<RateDecision> {
    const tag = hashTag(buckets);
    const keys = buckets.map((b) => `${this.#prefix}:{${tag}}:${b.key}`);
    let result: number[];
    try {
      const client = this.#client;
      if (!client?.isReady) throw new Error(`Redis at ${this.#url} is not connected`);
      const args = { keys, arguments: [...buckets.map((b) => String(b.limit)), String(WINDOW_MS)] };
      // The script by its digest; sent whole only when Redis does not hold it yet (after a restart).
      result = (await client.evalSha(CONSUME_SHA, args).catch((error: unknown) => {
        if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return client.eval(CONSUME, args);
        throw error;
      })) as number[];
    } catch (error) {
      this.#report(error);
      const now = this.#now();
      // Without Redis the window's end can only come from this machine's clock.
      const end = (Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS;
      const first = buckets[0];
      return { allowed: true, limit: first?.limit ?? 0, remaining: first?.limit ?? 0, ...resetAt(end, now) };
    }
    const [allowed, end, now] = result as [number, number, number];
    if (allowed === 0) {
      const bucket = buckets[result[3]! - 1]!;
      return { allowed: false, limit: bucket.limit, remaining: 0, ...resetAt(end, now), refusedBy: bucket.key };
    }
    let limit = 0;
    let remaining = Number.POSITIVE_INFINITY;
    buckets.forEach((bucket, i) => {
      const left = Math.max(0, bucket.limit - result[i + 3]!);
      if (left < remaining) {
        remaining = left;
        limit = bucket.limit;
      }
    });
    return { allowed: true, limit, remaining, ...resetAt(end, now) };
  }

  async close(): Promise<void> {
    await this.#created.catch(() => undefined);
    if (this.#client?.isReady) await this.#client.close();
    else this.#client?.destroy();
  }
}

/** The headers' reset (epoch seconds) and Retry-After (seconds) of a window ending at `end` ms, at `now` ms. */
function resetAt(end: number, now: number): { reset: number; retryAfter: number } {
  return { reset: Math.ceil(end / 1000), retryAfter: Math.max(1, Math.ceil((end - now) / 1000)) };
}
