/**
 * @module The fixed one-minute window rate limiter, shared by the proxy (per visitor and per
 * address) and the server (per token, organization, endpoint and address), and the
 * `X-RateLimit-*` headers both answer with.
 */

/** One counter: its key and how many requests it allows per minute. */
export interface Bucket {
  key: string;
  limit: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The bucket with the fewest requests remaining (the one that refused, when refused). */
  limit: number;
  remaining: number;
  /** Unix seconds when that bucket's window resets. */
  reset: number;
  /** Seconds until the window resets (sent as `Retry-After` when refused); at least 1. */
  retryAfter: number;
  /** When refused, the key of the bucket that refused (so a caller can name the limit). */
  refusedBy?: string;
}

export const RATE_WINDOW_MS = 60_000;

/**
 * Counts requests in fixed one-minute windows, in memory. `consume` checks every bucket and counts
 * one request in each only when all allow it; a refusal counts nothing. Synchronous, so
 * concurrent requests are counted exactly. Counters of past windows are dropped once a minute.
 *
 * @example
 * const limiter = new FixedWindowLimiter();
 * const decision = limiter.consume([{ key: `visitor:${id}`, limit: 20 }]);
 * if (!decision.allowed) return tooMany(rateLimitHeaders(decision));
 */
export class FixedWindowLimiter {
  readonly #now: () => number;
  readonly #counts = new Map<string, { window: number; count: number }>();
  #sweptWindow = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** How many counters are held (for tests of boundedness). */
  get size(): number {
    return this.#counts.size;
  }

  consume(buckets: readonly Bucket[]): RateDecision {
    const now = this.#now();
    const window = Math.floor(now / RATE_WINDOW_MS);
    if (window !== this.#sweptWindow) {
      for (const [key, entry] of this.#counts) if (entry.window !== window) this.#counts.delete(key);
      this.#sweptWindow = window;
    }
    const reset = Math.ceil(((window + 1) * RATE_WINDOW_MS) / 1000);
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * RATE_WINDOW_MS - now) / 1000));
    // Plain loops and counters updated in place: the server runs this on every request.
    for (const bucket of buckets) {
      const entry = this.#counts.get(bucket.key);
      const used = entry !== undefined && entry.window === window ? entry.count : 0;
      if (used >= bucket.limit) return { allowed: false, limit: bucket.limit, remaining: 0, reset, retryAfter, refusedBy: bucket.key };
    }
    let limit = 0;
    let remaining = Number.POSITIVE_INFINITY;
    for (const bucket of buckets) {
      let entry = this.#counts.get(bucket.key);
      if (entry === undefined) {
        entry = { window, count: 0 };
        this.#counts.set(bucket.key, entry);
      } else if (entry.window !== window) {
        entry.window = window;
        entry.count = 0;
      }
      entry.count++;
      const left = Math.max(0, bucket.limit - entry.count);
      if (left < remaining) {
        remaining = left;
        limit = bucket.limit;
      }
    }
    return { allowed: true, limit, remaining, reset, retryAfter };
  }
}

/** Sets the `X-RateLimit-*` headers (and `Retry-After` on a refusal) of `decision` on `headers`. */
export function setRateLimitHeaders(headers: Record<string, string>, decision: RateDecision): Record<string, string> {
  headers['X-RateLimit-Limit'] = String(decision.limit);
  headers['X-RateLimit-Remaining'] = String(decision.remaining);
  headers['X-RateLimit-Reset'] = String(decision.reset);
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfter);
  return headers;
}
