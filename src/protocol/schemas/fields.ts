/**
 * @module Field builders for the body schemas: each field checks its value and words its error
 * exactly as the spec does (and docs/server.md where the spec is silent), and describes itself to
 * JSON Schema with the same bounds.
 */
import { z } from 'zod';
import { characterCount, isPageUrl } from '../input.js';
import { PAGE_URL_MAX_LENGTH } from '../limits.js';

/** `"name" is required` for an absent or null value, else `message`. */
const absentOr = (name: string, message: string) => (issue: { input?: unknown }) => (issue.input === undefined || issue.input === null ? `"${name}" is required` : message);

export interface TextOptions {
  /** Fewest characters; 1 also refuses whitespace only. @default 0 */
  min?: number;
  /** Most characters (Unicode code points, as JSON Schema's `maxLength` counts them). */
  max: number;
  /** A JSON Schema `pattern` the value is documented to match (checked by the caller's own rule). */
  pattern?: string;
  description?: string;
}

/**
 * A string field bounded in characters (code points: an emoji counts one, as a person and JSON
 * Schema count it, not two as JavaScript's `length` does).
 *
 * @example
 * text('name', { min: 1, max: NAME_MAX_LENGTH }); // `"name" must not be empty`, `"name" must be at most 200 characters`
 */
export function text(name: string, options: TextOptions) {
  const min = options.min ?? 0;
  const meta: Record<string, unknown> = { maxLength: options.max };
  if (min > 0) meta.minLength = min;
  // A non-blank value: JSON Schema's way of saying what the `trim()` below checks.
  if (min === 1) meta.pattern = options.pattern ?? '\\S';
  else if (options.pattern) meta.pattern = options.pattern;
  if (options.description) meta.description = options.description;
  return z
    .string({ error: absentOr(name, `"${name}" must be a string`) })
    .check((ctx) => {
      const value = ctx.value;
      // Only a string that may be out of bounds is counted in code points (UTF-16 length is an upper bound).
      const length = value.length > options.max || value.length < min ? characterCount(value) : value.length;
      if (length < min || (min > 0 && value.trim().length === 0)) {
        ctx.issues.push({ code: 'custom', input: value, message: min === 1 ? `"${name}" must not be empty` : `"${name}" must be at least ${min} characters` });
      } else if (length > options.max) {
        ctx.issues.push({ code: 'custom', input: value, message: `"${name}" must be at most ${options.max} characters` });
      }
    })
    .meta(meta);
}

/** A value that must be one of `values`. */
export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T, message = `"${name}" must be one of ${values.join(', ')}`) {
  return z.enum(values, { error: absentOr(name, message) });
}

/** An integer from `min` to `max` (inclusive), one message for every way of missing it. */
export function integer(message: string, min: number, max?: number) {
  const error = { error: message };
  const base = z.number(error).int(error).min(min, error);
  return max === undefined ? base : base.max(max, error);
}

/**
 * Where the visitor is: an absolute http(s) URL of at most `PAGE_URL_MAX_LENGTH` characters.
 *
 * @example
 * pageUrl('context.page_url'); // `"context.page_url" must be an absolute http(s) URL of at most 2000 characters`
 */
export function pageUrl(name: string) {
  const message = `"${name}" must be an absolute http(s) URL of at most ${PAGE_URL_MAX_LENGTH} characters`;
  return z
    .string({ error: absentOr(name, message) })
    .check((ctx) => {
      if (!isPageUrl(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message });
    })
    .meta({ format: 'uri', maxLength: PAGE_URL_MAX_LENGTH, pattern: '^[Hh][Tt][Tt][Pp][Ss]?:', description: 'The page the visitor is on (absolute http or https URL)' });
}

export { absentOr };
