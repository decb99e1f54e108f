/** @module The proxy's upstream errors, with type guards, and the spec's error responses it answers with. */
import { errorBody, type ErrorCode } from '../protocol/index.js';

/** The upstream answered with an error status. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }
}

/** The upstream could not be reached. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The upstream did not answer in time. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
export const isNetworkError = (e: unknown): e is NetworkError => e instanceof NetworkError;
export const isTimeoutError = (e: unknown): e is TimeoutError => e instanceof TimeoutError;

/** A JSON error response in the spec's shape. */
export function errorResponse(status: number, code: ErrorCode, message: string, options: { retryable?: boolean; headers?: Record<string, string> } = {}): Response {
  return Response.json(errorBody(code, message, options.retryable), { status, headers: options.headers });
}
