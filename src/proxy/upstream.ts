/** @module Calls to the v0 API: a token from the pool, timeouts, and retries only where they are safe. */
import { parseRetryAfter, withRetries, type AttemptOutcome } from '../protocol/index.js';
import { NetworkError, TimeoutError } from './errors.js';
import type { ResolvedOptions } from './options.js';

export interface UpstreamResult {
  status: number;
  headers: Headers;
  body: string;
}

/** An upstream event stream that started: its headers and its body, read as it arrives. */
export interface UpstreamStream {
  status: 200;
  headers: Headers;
  stream: ReadableStream<Uint8Array>;
}

/** A stream is closed when the upstream sends nothing, not even its keepalive (every 15 s), for this long, ms. */
export const STREAM_IDLE_MS = 45_000;

/**
 * What an upstream answer means for the retry loop: 408, 5xx and a short 429 are tried again (a
 * long 429 is the widget's to wait out, not the proxy's); anything else is the answer.
 */
function answered(result: UpstreamResult): AttemptOutcome<UpstreamResult> {
  const retryAfter = parseRetryAfter(result.headers.get('retry-after'));
  const retryable = result.status === 408 || result.status >= 500 || (result.status === 429 && retryAfter !== undefined && retryAfter <= 2);
  if (!retryable) return { retry: false, value: result };
  return { retry: true, value: result, retryAfter: result.status === 429 ? retryAfter : undefined };
}

interface TokenState {
  token: string;
  remaining: number;
  reset: number;
  inFlight: number;
}


export class Upstream {
  readonly #options: ResolvedOptions;
  readonly #tokens: TokenState[];
  #next = 0;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.#tokens = options.tokens.map((token) => ({ token, remaining: Number.POSITIVE_INFINITY, reset: 0, inFlight: 0 }));
  }

  /** The token with the most requests left in its window (unknown counts as full); round-robin among equals. */
  #pick(): TokenState {
    const now = Date.now() / 1000;
    let best: TokenState | undefined;
    let bestRemaining = -1;
    for (let i = 0; i < this.#tokens.length; i++) {
      const state = this.#tokens[(this.#next + i) % this.#tokens.length]!;
      const remaining = (state.reset && state.reset <= now ? Number.POSITIVE_INFINITY : state.remaining) - state.inFlight;
      if (remaining > bestRemaining) {
        best = state;
        bestRemaining = remaining;
      }
    }
    this.#next = (this.#next + 1) % this.#tokens.length;
    return best!;
  }

  /**
   * Sends one request upstream. GETs, and POSTs with an idempotency key, are retried on network
   * errors, timeouts, 408, 5xx and short 429s, with exponential backoff and jitter (the protocol's
   * `withRetries`). `timeoutMs` replaces the proxy's timeout for this request.
   */
  request(
    method: 'GET' | 'POST',
    path: string,
    init: { body?: string; idempotencyKey?: string; waitSeconds?: number; signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<UpstreamResult> {
    const { apiBaseUrl, retries } = this.#options;
    const timeoutMs = init.timeoutMs ?? this.#options.timeoutMs;
    const safe = method === 'GET' || init.idempotencyKey !== undefined;
    const attempt = async (): Promise<AttemptOutcome<UpstreamResult>> => {
      const state = this.#pick();
      const headers: Record<string, string> = { authorization: `Bearer ${state.token}`, accept: 'application/json' };
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
      if (init.waitSeconds) headers.prefer = `wait=${init.waitSeconds}`;
      const timeout = AbortSignal.timeout(timeoutMs + (init.waitSeconds ?? 0) * 1000);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      state.inFlight++;
      try {
        const response = await this.#options.fetch(`${apiBaseUrl}${path}`, { method, headers, body: init.body, signal, redirect: 'error' });
        const body = await response.text();
        this.#record(state, response.headers);
        return answered({ status: response.status, headers: response.headers, body });
      } catch (error) {
        if (init.signal?.aborted) throw new NetworkError('request aborted by the client', { cause: error });
        const failure = timeout.aborted ? new TimeoutError(`upstream did not answer within ${timeoutMs} ms`) : new NetworkError('upstream unreachable', { cause: error });
        return { retry: true, error: failure };
      } finally {
        state.inFlight--;
      }
    };
    return withRetries(attempt, { retries: safe ? retries : 0, baseDelayMs: 150, signal: init.signal }).catch((error: unknown) => {
      // The client went away while the proxy waited to retry.
      if (init.signal?.aborted && !(error instanceof NetworkError)) throw new NetworkError('request aborted by the client', { cause: error });
      throw error;
    });
  }

  /**
   * Opens an upstream event stream (`Accept: text/event-stream`). It must start (headers) within the
   * proxy's timeout; until then network errors, 5xx and short 429s are retried like any GET. Any
   * other answer (an error, JSON) comes back read, as `request` gives it. Once started, the body is
   * relayed chunk by chunk as it arrives; aborting `signal` (the visitor left) or `STREAM_IDLE_MS`
   * of silence closes the upstream request.
   */
  stream(path: string, init: { lastEventId?: string; signal: AbortSignal }): Promise<UpstreamStream | UpstreamResult> {
    const { apiBaseUrl, retries, timeoutMs } = this.#options;
    const idleMs = Math.max(STREAM_IDLE_MS, timeoutMs);
    const attempt = async (): Promise<AttemptOutcome<UpstreamStream | UpstreamResult>> => {
      const state = this.#pick();
      const headers: Record<string, string> = { authorization: `Bearer ${state.token}`, accept: 'text/event-stream' };
      if (init.lastEventId !== undefined) headers['last-event-id'] = init.lastEventId;
      const controller = new AbortController();
      const signal = AbortSignal.any([init.signal, controller.signal]);
      let timedOut = false;
      let timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      state.inFlight++;
      try {
        const response = await this.#options.fetch(`${apiBaseUrl}${path}`, { method: 'GET', headers, signal, redirect: 'error' });
        this.#record(state, response.headers);
        if (response.status === 200 && response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
          clearTimeout(timer);
          const reader = response.body.getReader();
          const stream = new ReadableStream<Uint8Array>({
            async pull(out) {
              timer = setTimeout(() => controller.abort(), idleMs);
              try {
                const { done, value } = await reader.read();
                if (done) out.close();
                else out.enqueue(value);
              } catch (error) {
                out.error(error);
              } finally {
                clearTimeout(timer);
              }
            },
            cancel() {
              clearTimeout(timer);
              controller.abort();
            },
          });
          return { retry: false, value: { status: 200, headers: response.headers, stream } };
        }
        const result: UpstreamResult = { status: response.status, headers: response.headers, body: await response.text() };
        clearTimeout(timer);
        return answered(result);
      } catch (error) {
        clearTimeout(timer);
        if (init.signal.aborted) throw new NetworkError('request aborted by the client', { cause: error });
        return { retry: true, error: timedOut ? new TimeoutError(`upstream did not start the stream within ${timeoutMs} ms`) : new NetworkError('upstream unreachable', { cause: error }) };
      } finally {
        state.inFlight--;
      }
    };
    return withRetries(attempt, { retries, baseDelayMs: 150, signal: init.signal }).catch((error: unknown) => {
      if (init.signal.aborted && !(error instanceof NetworkError)) throw new NetworkError('request aborted by the client', { cause: error });
      throw error;
    });
  }

  #record(state: TokenState, headers: Headers): void {
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (Number.isFinite(remaining) && headers.has('x-ratelimit-remaining')) state.remaining = remaining;
    if (Number.isFinite(reset) && headers.has('x-ratelimit-reset')) state.reset = reset;
  }
}
