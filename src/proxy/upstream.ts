/** @module Calls to the v0 API: a token from the pool, timeouts, and retries only where they are safe. */
import { NetworkError, TimeoutError } from './errors.js';
import type { ResolvedOptions } from './options.js';

export interface UpstreamResult {
  status: number;
  headers: Headers;
  body: string;
}

interface TokenState {
  token: string;
  remaining: number;
  reset: number;
  inFlight: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
   * errors, timeouts, 408, 5xx and short 429s, with exponential backoff and jitter.
   */
  async request(method: 'GET' | 'POST', path: string, init: { body?: string; idempotencyKey?: string; waitSeconds?: number; signal?: AbortSignal } = {}): Promise<UpstreamResult> {
    const { apiBaseUrl, timeoutMs, retries } = this.#options;
    const safe = method === 'GET' || init.idempotencyKey !== undefined;
    const attempts = safe ? retries + 1 : 1;
    let lastError: Error = new NetworkError('no attempt made');
    for (let attempt = 0; attempt < attempts; attempt++) {
      const state = this.#pick();
      const headers: Record<string, string> = { authorization: `Bearer ${state.token}`, accept: 'application/json' };
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      if (init.idempotencyKey) headers['idempotency-key'] = init.idempotencyKey;
      if (init.waitSeconds) headers.prefer = `wait=${init.waitSeconds}`;
      const timeout = AbortSignal.timeout(timeoutMs + (init.waitSeconds ?? 0) * 1000);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      state.inFlight++;
      let retryDelay = 0;
      try {
        const response = await this.#options.fetch(`${apiBaseUrl}${path}`, { method, headers, body: init.body, signal, redirect: 'error' });
        const body = await response.text();
        this.#record(state, response.headers);
        const result = { status: response.status, headers: response.headers, body };
        const retryAfter = Number(response.headers.get('retry-after') ?? 'NaN');
        const retryable = response.status === 408 || response.status >= 500 || (response.status === 429 && retryAfter <= 2);
        if (!retryable || attempt === attempts - 1) return result;
        retryDelay = response.status === 429 && Number.isFinite(retryAfter) ? retryAfter * 1000 : 0;
      } catch (error) {
        if (init.signal?.aborted) throw new NetworkError('request aborted by the client', { cause: error });
        lastError = timeout.aborted ? new TimeoutError(`upstream did not answer within ${timeoutMs} ms`) : new NetworkError('upstream unreachable', { cause: error });
        if (attempt === attempts - 1) throw lastError;
      } finally {
        state.inFlight--;
      }
      await sleep(retryDelay || Math.round(150 * 2 ** attempt * (0.5 + Math.random())));
    }
    throw lastError;
  }

  #record(state: TokenState, headers: Headers): void {
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const reset = Number(headers.get('x-ratelimit-reset'));
    if (Number.isFinite(remaining) && headers.has('x-ratelimit-remaining')) state.remaining = remaining;
    if (Number.isFinite(reset) && headers.has('x-ratelimit-reset')) state.reset = reset;
  }
}
