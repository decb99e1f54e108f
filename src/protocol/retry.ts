/**
 * @module Retrying, shared by widget, proxy and server: `Retry-After` read in both of its forms,
 * an abortable `sleep`, and one loop of attempts with exponential backoff and jitter.
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

/** Exponential backoff with ±50 % jitter: about `baseMs`, `2 × baseMs`, `4 × baseMs`… */
export function backoffMs(attempt: number, baseMs: number): number {
  return Math.round(baseMs * 2 ** attempt * (0.5 + Math.random()));
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
  const baseDelayMs = options.baseDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  for (let n = 0; ; n++) {
    const outcome = await attempt(n);
    if (!outcome.retry) return outcome.value;
    if (n >= options.retries) {
      if ('value' in outcome && outcome.value !== undefined) return outcome.value;
      throw outcome.error ?? new Error('every attempt failed');
    }
    const delay = outcome.retryAfter !== undefined ? outcome.retryAfter * 1000 : backoffMs(n, baseDelayMs);
    await sleep(Math.min(delay, maxDelayMs), options.signal);
  }
}
