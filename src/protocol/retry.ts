/**
 * @module Retrying, shared by widget, proxy and server: `Retry-After` read in both of its forms,
 * an abortable `sleep`, the one backoff policy (exponential, jitter, cap, `Retry-After` capped) and
 * one loop of attempts using it.
 */

/**
 * Seconds to wait from a `Retry-After` value: delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Undefined when absent or malformed; a date in the past gives 0.
 *
 * @example
 * parseRetryAfter('30'); // 30
 * parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', Date.parse('Wed, 21 Oct 2026 07:27:00 GMT')); // 60
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  // A date always names a day or month; bare numbers such as "1.5" or "-3" are malformed.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (!Number.isFinite(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The one backoff policy of every retry loop (widget, proxy, server): its knobs, each with a default. */
export interface BackoffPolicy {
  /** First delay, ms; doubled per attempt. @default 250 */
  baseMs?: number;
  /** Longest delay, ms, jitter included. @default 30000 */
  maxMs?: number;
  /** Spread around each delay, as a share: 0.5 waits 50 % to 150 % of it. @default 0.5 */
  jitter?: number;
  /** Longest wait a `Retry-After` may ask for, ms (a server cannot park a client for an hour). @default maxMs */
  maxRetryAfterMs?: number;
}

/**
 * The wait before retry `attempt` (0 for the first retry): exponential from `baseMs` with jitter,
 * capped at `maxMs`; or, when the server said `Retry-After` (seconds), exactly that, capped at
 * `maxRetryAfterMs`. `random` is for tests.
 *
 * @example
 * backoffDelay(3, { baseMs: 500, maxMs: 30_000 }); // about 4,000 ms (2,000–6,000)
 * backoffDelay(0, { maxRetryAfterMs: 60_000 }, 3_600); // 60,000 ms
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy = {}, retryAfterSeconds?: number, random: () => number = Math.random): number {
  const maxMs = policy.maxMs ?? 30_000;
  if (retryAfterSeconds !== undefined) return Math.max(0, Math.min(retryAfterSeconds * 1000, policy.maxRetryAfterMs ?? maxMs));
  const jitter = policy.jitter ?? 0.5;
  // The exponent is bounded so that a long-failing job's delay never overflows to Infinity.
  const exponential = (policy.baseMs ?? 250) * 2 ** Math.min(attempt, 40);
  return Math.round(Math.min(maxMs, exponential * (1 - jitter + 2 * jitter * random())));
}

/** What one attempt came to. */
export type AttemptOutcome<T> =
  /** Final: return `value`. */
  | { retry: false; value: T }
  /**
   * Worth another attempt. When none is left, `value` is returned if given, else `error` thrown.
   * `retryAfter` (seconds, from `Retry-After`) replaces the backoff delay.
   */
  | { retry: true; value?: T; error?: unknown; retryAfter?: number };

export interface RetryOptions {
  /** Attempts after the first. */
  retries: number;
  /** First backoff delay, doubled per attempt, with jitter. @default 250 */
  baseDelayMs?: number;
  /** Longest wait between attempts, `Retry-After` included. @default 30000 */
  maxDelayMs?: number;
  /** For tests: the jitter's random source. */
  random?: () => number;
  /** Stops waiting (the sleep rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * Runs `attempt(0)`, `attempt(1)`… until one is final or `retries` run out, waiting between them.
 * An attempt that throws is not retried: it decides what is worth retrying by returning `retry: true`.
 *
 * @example
 * const text = await withRetries(async () => {
 *   const response = await fetch(url);
 *   if (response.status >= 500) return { retry: true, error: new Error('5xx'), retryAfter: parseRetryAfter(response.headers.get('retry-after')) };
 *   return { retry: false, value: await response.text() };
 * }, { retries: 2 });
 */
export async function withRetries<T>(attempt: (n: number) => Promise<AttemptOutcome<T>>, options: RetryOptions): Promise<T> {
  const policy: BackoffPolicy = { baseMs: options.baseDelayMs, maxMs: options.maxDelayMs };
  for (let n = 0; ; n++) {
    const outcome = await attempt(n);
    if (!outcome.retry) return outcome.value;
    if (n >= options.retries) {
      if ('value' in outcome && outcome.value !== undefined) return outcome.value;
      throw outcome.error ?? new Error('every attempt failed');
    }
    await sleep(backoffDelay(n, policy, outcome.retryAfter, options.random), options.signal);
  }
}
