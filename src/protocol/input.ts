/**
 * @module Request input, checked once for proxy and server with the same words: the capped body
 * reader, the JSON object parser, and the message, name, email, note and id validators.
 * Lengths are counted in characters (Unicode code points), not UTF-16 units.
 */
import { HttpError, MESSAGES } from './errors.js';
import { EMAIL_MAX_LENGTH, isPlausibleEmail, MAX_BODY_BYTES, MESSAGE_MAX_LENGTH, NAME_MAX_LENGTH, NOTE_MAX_LENGTH } from './limits.js';

const badRequest = (message: string) => new HttpError(400, 'bad_request', message);

/** The 413 of a body past `limit` bytes. */
export function bodyTooLarge(limit: number): HttpError {
  return new HttpError(413, 'bad_request', `Request body is larger than ${limit} bytes`);
}

/**
 * Reads a request body as UTF-8 text, refusing (413) a declared `Content-Length` or a stream past
 * `limit` bytes without reading further; a stream that breaks is a 400.
 *
 * @example
 * const text = await readCappedText(request.body, { declaredLength: request.headers.get('content-length') });
 */
export async function readCappedText(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null,
  options: { limit?: number; declaredLength?: string | null; cancel?: () => void } = {},
): Promise<string> {
  const limit = options.limit ?? MAX_BODY_BYTES;
  const declared = Number(options.declaredLength ?? '0');
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
  if (body === null) return '';
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let size = 0;
  const reader = 'getReader' in body ? body.getReader() : undefined;
  const cancel = () => {
    if (reader) void reader.cancel().catch(() => undefined);
    options.cancel?.();
  };
  try {
    const chunks: AsyncIterable<Uint8Array> = reader
      ? {
          async *[Symbol.asyncIterator]() {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return;
              yield value;
            }
          },
        }
      : (body as AsyncIterable<Uint8Array>);
    for await (const chunk of chunks) {
      size += chunk.byteLength;
      if (size > limit) {
        cancel();
        throw bodyTooLarge(limit);
      }
      text += decoder.decode(chunk, { stream: true });
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw badRequest('Request body could not be read');
  }
  return text + decoder.decode();
}

/** Parses a body that must be a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(MESSAGES.invalidJson);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('Request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Characters (Unicode code points) in `value`: an emoji counts one, as a person counts it. */
export function characterCount(value: string): number {
  let count = value.length;
  for (let i = 0; i < value.length - 1; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** A string field within bounds (in characters); `undefined` when optional and absent. `min: 1` also refuses whitespace only. */
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
  // Only a string that may be too long is counted in code points (UTF-16 length is an upper bound).
  const length = value.length > options.max || value.length < min ? characterCount(value) : value.length;
  if (length < min || (min > 0 && value.trim().length === 0)) {
    throw badRequest(min === 1 ? `"${name}" must not be empty` : `"${name}" must be at least ${min} characters`);
  }
  if (length > options.max) throw badRequest(`"${name}" must be at most ${options.max} characters`);
  return value;
}

/** The `message` of POST /chat: a non-blank string of at most MESSAGE_MAX_LENGTH characters. */
export function readMessage(body: Record<string, unknown>): string {
  return stringField(body, 'message', { required: true, min: 1, max: MESSAGE_MAX_LENGTH });
}

/** The visitor's part of an escalation: name, email and an optional note to the support team, trimmed. */
export interface EscalationContact {
  name: string;
  email: string;
  note?: string;
}

/** Reads and checks `name`, `email` and the optional `note` of an escalation body. */
export function readEscalationContact(body: Record<string, unknown>): EscalationContact {
  const name = stringField(body, 'name', { required: true, min: 1, max: NAME_MAX_LENGTH }).trim();
  const email = stringField(body, 'email', { required: true, min: 1, max: EMAIL_MAX_LENGTH }).trim();
  if (!isPlausibleEmail(email)) throw badRequest('"email" must be an email address');
  const note = stringField(body, 'note', { required: false, max: NOTE_MAX_LENGTH })?.trim();
  return note ? { name, email, note } : { name, email };
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether `value` has the shape of a conversation id (1 to 128 of `A-Z a-z 0-9 _ -`). */
export function isConversationId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}
