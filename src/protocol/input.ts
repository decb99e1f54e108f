/**
 * @module Request input shared by proxy and server: the capped body reader, the JSON object parser,
 * counting characters (Unicode code points, not UTF-16 units) and the conversation id's shape. The
 * fields of each body are defined once in ./schemas (zod, kept out of this barrel for the widget).
 */
import { badRequest, HttpError, MESSAGES } from './errors.js';
import { CONVERSATION_ID_PATTERN, EMAIL_MAX_LENGTH, EMAIL_PATTERN, MAX_BODY_BYTES, PAGE_URL_MAX_LENGTH } from './limits.js';

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

const ID = new RegExp(CONVERSATION_ID_PATTERN);

/** Whether `value` has the shape of a conversation id (1 to 128 of `A-Z a-z 0-9 _ -`). */
export function isConversationId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}

/** Whether a value is an absolute http(s) URL (a `page_url`: where the visitor is), of at most `PAGE_URL_MAX_LENGTH` characters. */
export function isPageUrl(value: string): boolean {
  if (characterCount(value) > PAGE_URL_MAX_LENGTH) return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

const EMAIL = new RegExp(EMAIL_PATTERN);

/**
 * A plausible email: one `@`, something before it, a dot in the domain, no spaces; at most
 * `EMAIL_MAX_LENGTH` characters, counted as the API counts them (the pattern runs on bounded text only).
 */
export function isPlausibleEmail(value: string): boolean {
  return characterCount(value) <= EMAIL_MAX_LENGTH && EMAIL.test(value);
}

/** `value` cut to its first `max` characters (code points: a surrogate pair is never split). */
export function clipCharacters(value: string, max: number): string {
  if (value.length <= max) return value;
  let units = 0;
  for (let count = 0; count < max && units < value.length; count++) {
    const unit = value.charCodeAt(units);
    const next = value.charCodeAt(units + 1);
    units += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return value.slice(0, units);
}
