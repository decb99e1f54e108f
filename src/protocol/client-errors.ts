/** @module The errors of a client of a v0 API (the widget's and the proxy's), with type guards. */
import type { ErrorCode } from './errors.js';

/** The server answered with an error status. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly retryable: boolean,
    /** Seconds to wait, from `Retry-After`. */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }
}

/** The server could not be reached (offline, DNS, CORS, connection reset). */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer in time. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
export const isNetworkError = (e: unknown): e is NetworkError => e instanceof NetworkError;
export const isTimeoutError = (e: unknown): e is TimeoutError => e instanceof TimeoutError;
