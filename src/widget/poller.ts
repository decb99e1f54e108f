/**
 * @module Polling a conversation until its answer is complete: fast first poll, backoff with
 * jitter, long polls when offered, `Retry-After` honoured, paused while hidden or offline.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Conversation } from '../protocol/index.js';
import { ApiError, NetworkError, TimeoutError, type ProxyClient } from './client.js';
import { backoffDelay, sleep, type BackoffPolicy } from '../protocol/retry.js';

export interface PollerCallbacks {
  onUpdate(conversation: Conversation): void;
  /** A final error: polling stopped (the UI offers a retry). */
  onError(error: ApiError | NetworkError | TimeoutError): void;
  /** A passing problem while polling goes on (e.g. a network blip). */
  onTransient?(error: ApiError | NetworkError): void;
}

export interface PollerOptions {
  /** First backoff delay when the proxy does not long-poll, ms (the first poll itself goes out at once, as a long poll). @default 300 */
  firstDelayMs?: number;
  /** Longest delay between polls, ms. @default 5000 */
  maxDelayMs?: number;
  /** Give up after this long without a finished answer, ms. @default 120000 */
  timeoutMs?: number;
  /** Long-poll wait asked of the proxy, seconds. @default 15 */
  waitSeconds?: number;
  /** Longest wait a 429's `Retry-After` may ask for, ms. @default 60000 */
  maxRetryAfterMs?: number;
}

/** `Retry-After` of a 429 that names none, seconds. */
const DEFAULT_RETRY_AFTER = 2;

/** The shared abortable sleep, ending quietly when aborted: the loop looks at the signal itself. */
export const pause = (ms: number, signal: AbortSignal) => sleep(ms, signal).catch(() => undefined);

export class ConversationPoller implements ReactiveController {
  private _controller: AbortController | undefined;
  private _resume: (() => void) | undefined;
  private readonly _onVisibility = () => {
    if (!document.hidden) this._resume?.();
  };
  private readonly _onOnline = () => this._resume?.();

  constructor(
    host: ReactiveControllerHost,
    private readonly _client: () => ProxyClient,
    private readonly _callbacks: PollerCallbacks,
    private readonly _options: () => PollerOptions,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    document.addEventListener('visibilitychange', this._onVisibility);
    window.addEventListener('online', this._onOnline);
  }

  hostDisconnected(): void {
    this.stop();
    document.removeEventListener('visibilitychange', this._onVisibility);
    window.removeEventListener('online', this._onOnline);
  }

  stop(): void {
    this._controller?.abort();
    this._controller = undefined;
    this._resume?.();
  }

  /** Polls `id` until it is no longer processing; replaces any poll in progress. */
  start(id: string): void {
    this.stop();
    const controller = new AbortController();
    this._controller = controller;
    void this._run(id, controller.signal).finally(() => {
      if (this._controller === controller) this._controller = undefined;
    });
  }

  /** Resolves when the tab is visible and the browser online (or polling stops). */
  private async _ready(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && (document.hidden || !navigator.onLine)) {
      await new Promise<void>((resolve) => {
        this._resume = resolve;
        // A fallback re-check, for browsers that miss an event.
        setTimeout(resolve, 5_000);
      });
      this._resume = undefined;
    }
  }

  private async _run(id: string, signal: AbortSignal): Promise<void> {
    const { firstDelayMs = 300, maxDelayMs = 5_000, timeoutMs = 120_000, waitSeconds = 15, maxRetryAfterMs = 60_000 } = this._options();
    const deadline = Date.now() + timeoutMs;
    // The protocol's one backoff policy: ±20 % jitter, so tabs polling together drift apart.
    const policy: BackoffPolicy = { baseMs: firstDelayMs, maxMs: maxDelayMs, jitter: 0.2, maxRetryAfterMs };
    let attempt = 0;
    let useLongPoll = true;
    while (!signal.aborted) {
      await this._ready(signal);
      if (signal.aborted) return;
      if (Date.now() > deadline) {
        this._callbacks.onError(new TimeoutError('The answer is taking longer than expected'));
        return;
      }
      try {
        const { conversation, longPoll } = await this._client().get(id, { waitSeconds: useLongPoll ? waitSeconds : 0, signal });
        if (signal.aborted) return;
        this._callbacks.onUpdate(conversation);
        if (conversation.status !== 'processing') return;
        useLongPoll = longPoll;
        if (longPoll) continue;
        await pause(backoffDelay(attempt++, policy), signal);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && error.status === 429) {
          this._callbacks.onTransient?.(error);
          await pause(backoffDelay(attempt, policy, Math.max(1, error.retryAfter ?? DEFAULT_RETRY_AFTER)), signal);
          continue;
        }
        if ((error instanceof ApiError && error.retryable) || error instanceof NetworkError) {
          this._callbacks.onTransient?.(error);
          await pause(backoffDelay(attempt++, policy), signal);
          continue;
        }
        if (error instanceof ApiError) this._callbacks.onError(error);
        else this._callbacks.onError(new NetworkError('Polling failed', { cause: error }));
        return;
      }
    }
  }
}
