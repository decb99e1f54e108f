/** @module Reading a JSON request body with a byte limit, and small field validators naming the field. */
import { MAX_BODY_BYTES, MESSAGES } from '../../protocol/index.js';
import { badRequest, HttpError } from './errors.js';

/** Reads the raw body as UTF-8 text, refusing bodies over `limit` bytes with 413. */
export async function readBodyText(request: Request, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch {
        throw badRequest('Request body could not be read');
      }
      if (result.done) break;
      size += result.value.byteLength;
      if (size > limit) {
        void reader.cancel().catch(() => undefined);
        throw tooLarge(limit);
      }
      chunks.push(result.value);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a body that must be a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(MESSAGES.invalidJson);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('Request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'bad_request', `Request body is larger than ${limit} bytes`);
}

/** A string field within bounds; `undefined` when optional and absent. */
export function stringField(body: Record<string, unknown>, name: string, options: { required: true; min?: number; max: number }): string;
export function stringField(body: Record<string, unknown>, name: string, options: { required: false; min?: number; max: number }): string | undefined;
export function stringField(body: Record<string, unknown>, name: string, options: { required: boolean; min?: number; max: number }): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) {
    if (options.required) throw badRequest(`"${name}" is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw badRequest(`"${name}" must be a string`);
  const min = options.min ?? 0;
  if (value.length < min || (min > 0 && value.trim().length === 0)) {
    throw badRequest(min === 1 ? `"${name}" must not be empty` : `"${name}" must be at least ${min} characters`);
  }
  if (value.length > options.max) throw badRequest(`"${name}" must be at most ${options.max} characters`);
  return value;
}
