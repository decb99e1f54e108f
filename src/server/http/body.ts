/** @module Parsing a JSON request body, and small field validators naming the field. */
import { MESSAGES } from '../../protocol/index.js';
import { badRequest } from './errors.js';

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
