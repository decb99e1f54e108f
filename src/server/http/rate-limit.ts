/** @module Fixed one-minute window rate limits: per token, per organization, per endpoint, per client address. */

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
  /** Seconds until the refusing window resets (when refused). */
  retryAfter: number;
}

/**
 * Checks every bucket and consumes one request from each only when all allow it, atomically.
 * The in-memory limiter answers synchronously; a shared one (Redis) with a Promise.
 */
export interface RateLimiter {
  consume(buckets: Bucket[]): RateDecision | Promise<RateDecision>;
  /** Resolves when the limiter can count (connected), for limiters that connect. */
  ready?(): Promise<void>;
  /** Releases connections, for limiters that hold any. */
  close?(): Promise<void>;
}

export interface RateLimits {
  /** Per API token per minute. @default 120 */
  perToken: number;
  /** Per organization per minute, across its tokens. @default 600 */
  perOrganization: number;
  /** Per client address per minute, for requests without a valid token. @default 60 */
  perAddress: number;
  /** Lower per-organization limits of some endpoints. @default {send: 300, escalate: 30, deleteTicket: 60} */
  endpoints: { send: number; escalate: number; deleteTicket: number };
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  perToken: 120,
  perOrganization: 600,
  perAddress: 60,
  endpoints: { send: 300, escalate: 30, deleteTicket: 60 },
};

const WINDOW_MS = 60_000;

/**
 * In-memory limiter for one process. Consuming is synchronous, so concurrent requests are
 * counted exactly. A 429 consumes nothing.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #now: () => number;
  readonly #counts = new Map<string, { window: number; count: number }>();
  #sweptWindow = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  consume(buckets: Bucket[]): RateDecision {
    const now = this.#now();
    const window = Math.floor(now / WINDOW_MS);
    if (window !== this.#sweptWindow) {
      for (const [key, entry] of this.#counts) if (entry.window !== window) this.#counts.delete(key);
      this.#sweptWindow = window;
    }
    const reset = Math.ceil(((window + 1) * WINDOW_MS) / 1000);
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    // Plain loops and counters updated in place: this runs on every request.
    for (const bucket of buckets) {
      const entry = this.#counts.get(bucket.key);
      if (entry !== undefined && entry.window === window && entry.count >= bucket.limit) {
        return { allowed: false, limit: bucket.limit, remaining: 0, reset, retryAfter };
      }
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

/** Adds the `X-RateLimit-*` headers (and `Retry-After` on a refusal) to `headers`. */
export function setRateLimitHeaders(headers: Record<string, string>, decision: RateDecision): void {
  headers['X-RateLimit-Limit'] = String(decision.limit);
  headers['X-RateLimit-Remaining'] = String(decision.remaining);
  headers['X-RateLimit-Reset'] = String(decision.reset);
  if (!decision.allowed) headers['Retry-After'] = String(decision.retryAfter);
}

