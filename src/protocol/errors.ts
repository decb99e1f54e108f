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

/** Options of an error shorthand: whether to retry, and headers the answer carries. */
type ErrorOptions = { retryable?: boolean; headers?: Record<string, string> };

/**
 * The shorthands every error is thrown with, in proxy and server alike.
 *
 * @example
 * if (!conversation) throw notFound();
 */
export const badRequest = (message: string, options?: ErrorOptions) => new HttpError(400, 'bad_request', message, options);
/** 401 with the challenge RFC 9110 §11.6.1 asks of it. */
export const unauthorized = (message: string = MESSAGES.unauthorized) =>
  new HttpError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer realm="support-chat"' } });
export const forbidden = (message: string = MESSAGES.forbidden) => new HttpError(403, 'forbidden', message);
/** 404 with the spec's fixed text: an unknown resource and someone else's read alike. */
export const notFound = () => new HttpError(404, 'not_found', MESSAGES.notFound);
/** 405, the spec's `bad_request` code, with the `Allow` header of the methods the path takes. */
export const methodNotAllowed = (method: string, allowed: string) =>
  new HttpError(405, 'bad_request', `Method ${method} is not allowed here; use ${allowed}`, { headers: { Allow: `${allowed}, OPTIONS` } });
export const conflict = (message: string, options?: ErrorOptions) => new HttpError(409, 'conflict', message, options);
/** The 429 of a spent rate limit (the caller adds the rate limit headers and `Retry-After`, unless given here). */
export const rateLimited = (message: string = MESSAGES.rateLimited, headers?: Record<string, string>) =>
  new HttpError(429, 'rate_limited', message, { retryable: true, headers });
/** 500 with the spec's fixed text, or a message for the operator (a misconfiguration, not to retry). */
export const internal = (retryable = true, message: string = MESSAGES.internal) => new HttpError(500, 'internal_error', message, { retryable });
/** 502: the service behind (the proxy's upstream) is not available; retryable unless it refused the proxy itself. */
export const badGateway = (message: string, retryable: boolean) => new HttpError(502, 'internal_error', message, { retryable });
