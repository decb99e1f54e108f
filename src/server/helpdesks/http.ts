/**
 * @module How the helpdesk clients (Plain, Pylon, Linear) call their APIs: one timeout per call,
 * and every failure turned into an IntegrationError that says whether a retry can help.
 *
 * Retryable: network errors, timeouts, 408/425/429 (with the vendor's reset time in the message),
 * 5xx, and GraphQL errors inside an HTTP 200. Not retryable: 401/403 and GraphQL authentication
 * errors (the API key is wrong; a retry cannot fix it) and other 4xx (the request itself is wrong).
 */
import { IntegrationError } from './types.js';
import { parseRetryAfter } from '../../protocol/retry.js';

export interface HttpClientOptions {
  /** Helpdesk name for messages: `Plain`, `Pylon`, `Linear`. */
  label: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per call. @default 10000 */
  timeoutMs?: number;
}

export interface CallOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** Seconds until the vendor's rate limit resets, from `Retry-After` or the common reset headers. */
export function resetSeconds(headers: Headers, now = Date.now()): number | undefined {
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  if (retryAfter !== undefined) return retryAfter;
  // Linear sends epoch milliseconds; others send epoch seconds or seconds to wait.
  for (const name of ['x-ratelimit-requests-reset', 'x-ratelimit-reset', 'ratelimit-reset']) {
    const raw = headers.get(name);
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isFinite(value)) continue;
    if (value > 1e12) return Math.max(0, Math.ceil((value - now) / 1000));
    if (value > 1e9) return Math.max(0, Math.ceil(value - now / 1000));
    return Math.max(0, Math.ceil(value));
  }
  return undefined;
}

/** Calls a JSON API and returns the parsed body of a 2xx answer; anything else throws IntegrationError. */
export async function callJson(url: string, call: CallOptions, options: HttpClientOptions): Promise<{ status: number; headers: Headers; body: unknown }> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await doFetch(url, {
      method: call.method,
      headers: { accept: 'application/json', 'user-agent': 'support-chat/1', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }), ...call.headers },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
      redirect: 'error',
    });
  } catch (error) {
    // A refused target (see targets.ts) stays refused: a retry cannot help.
    if (error instanceof IntegrationError) throw error;
    const timedOut = timeout.aborted;
    throw new IntegrationError(timedOut ? `${options.label} did not answer within ${options.timeoutMs ?? 10_000} ms` : `${options.label} could not be reached: ${describe(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new IntegrationError(`${options.label} answer could not be read: ${describe(error)}`, { retryable: true, status: response.status, cause: error });
  }
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Left undefined: a non-JSON error page, or a broken 2xx handled below.
  }
  if (!response.ok) throw statusError(options.label, response, body);
  if (body === undefined) throw new IntegrationError(`${options.label} answered ${response.status} without JSON`, { retryable: true, status: response.status });
  return { status: response.status, headers: response.headers, body };
}

function statusError(label: string, response: Response, body: unknown): IntegrationError {
  const status = response.status;
  const detail = vendorMessage(body);
  if (status === 429 || status === 408 || status === 425) {
    const reset = resetSeconds(response.headers);
    return new IntegrationError(`${label} rate limit reached (${status})${reset === undefined ? '' : `; resets in ${reset} s`}`, { retryable: true, status });
  }
  if (status >= 500) return new IntegrationError(`${label} answered ${status}${detail ? `: ${detail}` : ''}`, { retryable: true, status });
  if (status === 401 || status === 403) return new IntegrationError(`${label} rejected the API key (${status})${detail ? `: ${detail}` : ''}`, { retryable: false, status });
  // Linear reports rate limiting as a GraphQL error inside a 400.
  if (graphqlCodes(body).includes('RATELIMITED')) {
    const reset = resetSeconds(response.headers);
    return new IntegrationError(`${label} rate limit reached${reset === undefined ? '' : `; resets in ${reset} s`}`, { retryable: true, status });
  }
  return new IntegrationError(`${label} refused the request (${status})${detail ? `: ${detail}` : ''}`, { retryable: false, status });
}

function vendorMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as { errors?: unknown; error?: unknown; message?: unknown };
  if (Array.isArray(b.errors) && b.errors.length > 0) {
    const first = b.errors[0] as { message?: unknown };
    if (typeof first?.message === 'string') return first.message.slice(0, 200);
  }
  if (typeof b.error === 'string') return b.error.slice(0, 200);
  if (typeof b.message === 'string') return b.message.slice(0, 200);
  return undefined;
}

function graphqlCodes(body: unknown): string[] {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { errors?: unknown }).errors)) return [];
  return ((body as { errors: unknown[] }).errors)
    .map((e) => (e as { extensions?: { code?: unknown } })?.extensions?.code)
    .filter((c): c is string => typeof c === 'string');
}

const AUTH_CODES = new Set(['UNAUTHENTICATED', 'AUTHENTICATION_ERROR', 'FORBIDDEN']);

/** Runs a GraphQL operation; `errors` in the answer (even inside a 200) become an IntegrationError. */
export async function graphql<T>(
  url: string,
  request: { query: string; variables: Record<string, unknown>; operationName: string },
  headers: Record<string, string>,
  options: HttpClientOptions & { signal?: AbortSignal },
): Promise<T> {
  const { body, headers: responseHeaders } = await callJson(url, { method: 'POST', headers, body: request, signal: options.signal }, options);
  const codes = graphqlCodes(body);
  const errors = (body as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const message = vendorMessage(body) ?? 'unknown error';
    if (codes.some((c) => AUTH_CODES.has(c))) {
      throw new IntegrationError(`${options.label} rejected the API key: ${message}`, { retryable: false, status: 200 });
    }
    if (codes.includes('RATELIMITED')) {
      const reset = resetSeconds(responseHeaders);
      throw new IntegrationError(`${options.label} rate limit reached${reset === undefined ? '' : `; resets in ${reset} s`}`, { retryable: true, status: 200 });
    }
    throw new IntegrationError(`${options.label} ${request.operationName} failed: ${message}`, { retryable: true, status: 200 });
  }
  const data = (body as { data?: unknown }).data;
  if (!data || typeof data !== 'object') throw new IntegrationError(`${options.label} ${request.operationName} answered without data`, { retryable: true, status: 200 });
  return data as T;
}

/** A value the vendor must have sent; its absence is a broken answer (retryable). */
export function expectString(value: unknown, what: string, label: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new IntegrationError(`${label} answer is missing ${what}`, { retryable: true });
  return value;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
