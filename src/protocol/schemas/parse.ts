/** @module Parsing a request body with its schema: the first problem becomes the spec's 400 (or 404), worded as the schema words it. */
import type { z } from 'zod';
import { badRequest, notFound } from '../errors.js';

/** Whether `prefix` is a path prefix of `path` (the root `[]` is a prefix of every path). */
function under(prefix: readonly PropertyKey[], path: readonly PropertyKey[]): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => path[i] === key);
}

/**
 * The issue a client is told about: the first, unless an object it lies in has an unknown field,
 * which is reported first (a misspelt field explains the rest).
 */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const first = issues[0]!;
  let chosen = first;
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && under(issue.path, first.path) && issue.path.length <= chosen.path.length && chosen.code !== 'unrecognized_keys') chosen = issue;
  }
  return chosen;
}

/**
 * Checks `body` (a parsed JSON object) against `schema`; returns the parsed value or throws the
 * `HttpError` of its first problem.
 *
 * @example
 * const { message, conversation_id } = parseBody(SendMessageRequest, ctx.body());
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = firstIssue(result.error.issues);
  if (issue.code === 'custom' && (issue.params as { status?: number } | undefined)?.status === 404) throw notFound();
  throw badRequest(issue.message);
}
