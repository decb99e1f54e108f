/**
 * @module The rate limiter shared by several server processes: the same fixed one-minute windows
 * as the in-memory limiter, counted in Redis by one Lua script per request, so the check of every
 * bucket and the consumption of all of them is atomic across processes.
 */
import type { Bucket, RateDecision, RateLimiter } from './rate-limit.js';

const WINDOW_MS = 60_000;

/**
 * KEYS: the buckets' keys for this window; ARGV: their limits, then the keys' lifetime in ms.
 * Refuses (and consumes nothing) when any bucket is used up; otherwise counts one in each.
 * Returns {1, count…} or {0, index of the refusing bucket}.
 */
const CONSUME = `
local n = #KEYS
for i = 1, n do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  if used >= tonumber(ARGV[i]) then return {0, i} end
end
local out = {1}
for i = 1, n do
  local count = redis.call('INCR', KEYS[i])
  if count == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + 1]) end
  out[i + 1] = count
end
return out
`;

export interface RedisRateLimiterOptions {
  /** e.g. `redis://127.0.0.1:6379` */
  url: string;
  /** Prefix of every key. @default 'support-chat' */
  prefix?: string;
  /** @default Date.now */
  now?: () => number;
  /**
   * Called when Redis cannot be reached. The request is then let through (availability over
   * limits while Redis is down), with headers reporting the bucket's full limit.
   */
  onError?: (error: unknown) => void;
}

/**
 * A client that fails commands at once while disconnected (no offline queue), so a request never
 * waits on Redis; it keeps reconnecting in the background.
 */
function newClient(redis: typeof import('redis'), url: string) {
  const client = redis.createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000) },
  });
  client.on('error', () => undefined);
  return client;
}

type Client = ReturnType<typeof newClient>;

/**
 * `redis` is an optional peer dependency: only a deployment that shares limits installs it, so it
 * is loaded when the first shared limiter is made, with a clear error when it is missing.
 */
async function loadRedis(url: string): Promise<typeof import('redis')> {
  try {
    return await import('redis');
  } catch {
    throw new Error(`Redis at ${url} needs the optional package \`redis\`: run \`npm install redis\``);
  }
}

export class RedisRateLimiter implements RateLimiter {
  #client: Client | undefined;
  readonly #url: string;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  readonly #created: Promise<Client>;
  readonly #ready: Promise<unknown>;
  #reportedAt = Number.NEGATIVE_INFINITY;

  constructor(options: RedisRateLimiterOptions) {
    this.#url = options.url;
    this.#prefix = options.prefix ?? 'support-chat';
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
    this.#created = loadRedis(options.url).then((redis) => (this.#client = newClient(redis, options.url)));
    this.#ready = this.#created.then((client) => client.connect());
    this.#ready.catch(() => undefined);
  }

  /** Resolves once connected; rejects when Redis does not answer within `timeoutMs`. */
  ready(timeoutMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis at ${this.#url} did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([this.#ready.then(() => undefined), timeout]).finally(() => clearTimeout(timer));
  }

  async consume(buckets: Bucket[]): Promise<RateDecision> {
    const now = this.#now();
    const window = Math.floor(now / WINDOW_MS);
    const reset = Math.ceil(((window + 1) * WINDOW_MS) / 1000);
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    // One hash tag, so every key of a request is in one slot (Redis Cluster runs the script too).
    const keys = buckets.map((b) => `${this.#prefix}:{rl}:${b.key}:${window}`);
    const ttl = (window + 1) * WINDOW_MS - now + 5_000;
    let result: number[];
    try {
      const client = this.#client;
      if (!client?.isReady) throw new Error(`Redis at ${this.#url} is not connected`);
      result = (await client.eval(CONSUME, { keys, arguments: [...buckets.map((b) => String(b.limit)), String(ttl)] })) as number[];
    } catch (error) {
      // Reported at most once every 10 s: an outage must not flood the logs.
      if (now - this.#reportedAt >= 10_000) {
        this.#reportedAt = now;
        this.#onError(error);
      }
      const first = buckets[0];
      return { allowed: true, limit: first?.limit ?? 0, remaining: first?.limit ?? 0, reset, retryAfter };
    }
    if (result[0] === 0) {
      const bucket = buckets[result[1]! - 1]!;
      return { allowed: false, limit: bucket.limit, remaining: 0, reset, retryAfter };
    }
    let limit = 0;
    let remaining = Number.POSITIVE_INFINITY;
    buckets.forEach((bucket, i) => {
      const left = Math.max(0, bucket.limit - result[i + 1]!);
      if (left < remaining) {
        remaining = left;
        limit = bucket.limit;
      }
    });
    return { allowed: true, limit, remaining, reset, retryAfter };
  }

  async close(): Promise<void> {
    await this.#created.catch(() => undefined);
    if (this.#client?.isReady) await this.#client.close();
    else this.#client?.destroy();
  }
}
