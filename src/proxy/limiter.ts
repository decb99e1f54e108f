/** @module Per-visitor fixed one-minute windows, answered with the same headers as the API. */

export interface LimitResult {
  allowed: boolean;
  headers: Record<string, string>;
}

export class WindowLimiter {
  readonly #counts = new Map<string, { window: number; count: number }>();
  #swept = 0;

  /** Counts one request for `key` against `limit` per minute; a refused request counts nothing. */
  take(key: string, limit: number, now = Date.now()): LimitResult {
    const window = Math.floor(now / 60_000);
    if (window !== this.#swept) {
      for (const [k, v] of this.#counts) if (v.window !== window) this.#counts.delete(k);
      this.#swept = window;
    }
    const entry = this.#counts.get(key);
    const used = entry && entry.window === window ? entry.count : 0;
    const reset = (window + 1) * 60;
    const allowed = used < limit;
    if (allowed) this.#counts.set(key, { window, count: used + 1 });
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - used - (allowed ? 1 : 0))),
      'X-RateLimit-Reset': String(reset),
    };
    if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil(reset - now / 1000)));
    return { allowed, headers };
  }
}
