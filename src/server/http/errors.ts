/** @module `HttpError`, thrown anywhere in the server and turned into the spec's error JSON in one place. */
import { errorBody, MESSAGES, type ErrorCode } from '../../protocol/index.js';
import type { ApiResponse } from './exchange.js';

export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly retryable: boolean | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, message: string, options: { retryable?: boolean; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.retryable = options.retryable;
    this.headers = options.headers ?? {};
  }

  toResponse(): ApiResponse {
    return { status: this.status, headers: { 'content-type': 'application/json', ...this.headers }, body: JSON.stringify(errorBody(this.code, this.message, this.retryable)) };
  }
}

export const badRequest = (message: string) => new HttpError(400, 'bad_request', message);
export const notFound = () => new HttpError(404, 'not_found', MESSAGES.notFound);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);
export const unauthorized = () => new HttpError(401, 'unauthorized', MESSAGES.unauthorized);
export const forbidden = () => new HttpError(403, 'forbidden', MESSAGES.forbidden);
export const internal = (retryable = true) => new HttpError(500, 'internal_error', MESSAGES.internal, { retryable });
