/** @module The proxy's errors: the shared client errors, and the spec's error responses it answers with. */
import { errorBody, type ErrorCode } from '../protocol/index.js';

export { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError } from '../protocol/client-errors.js';

/** A JSON error response in the spec's shape. */
export function errorResponse(status: number, code: ErrorCode, message: string, options: { retryable?: boolean; headers?: Record<string, string> } = {}): Response {
  return Response.json(errorBody(code, message, options.retryable), { status, headers: options.headers });
}
