/** @module Error codes, exact message texts and the error body of the v0 API. */

export const ERROR_CODES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    /** Present on `rate_limited` and `internal_error`. */
    retryable?: boolean;
  };
}

/** Message texts the spec fixes byte for byte. */
export const MESSAGES = {
  invalidJson: 'Invalid JSON in request body',
  unauthorized: 'Invalid or expired API token',
  forbidden: 'Insufficient permissions',
  notFound: 'Resource not found',
  stillProcessing: 'Conversation is still processing',
  rateLimited: 'Too many requests',
  internal: 'An internal error occurred',
} as const;

/** The status code each error code is answered with. */
export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  internal_error: 500,
};

export function errorBody(code: ErrorCode, message: string, retryable?: boolean): ErrorBody {
  const error: ErrorBody['error'] = { code, message };
  if (retryable !== undefined) error.retryable = retryable;
  else if (code === 'rate_limited' || code === 'internal_error') error.retryable = true;
  return { error };
}

export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

/**
 * An error answer as plain data: status, code, message, and headers to add. Thrown by validation
 * in proxy and server alike; each turns it into a response in one place.
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly retryable: boolean | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, message: string, options: { retryable?: boolean; headers?: Record<string, string> } = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryable = options.retryable;
    this.headers = options.headers ?? {};
  }

  /** The spec's error body of this error. */
  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.retryable);
  }
}

export const isHttpError = (e: unknown): e is HttpError => e instanceof HttpError;

/** The 429 of a spent rate limit (the caller adds the rate limit headers and `Retry-After`). */
export const rateLimited = () => new HttpError(429, 'rate_limited', MESSAGES.rateLimited, { retryable: true });
