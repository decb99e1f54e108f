/** @module Building blocks the helpdesks' webhook receivers share: HMAC checks and payload reading with the API's error shape. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest, HttpError } from '../../protocol/errors.js';

/** 401 for a delivery whose signature or timestamp does not check out. */
export const invalidSignature = (): HttpError => new HttpError(401, 'unauthorized', 'Invalid webhook signature');

export function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Constant-time comparison of the expected signature with a header's (trimmed). */
export function sameText(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given.trim());
  return a.length === b.length && timingSafeEqual(a, b);
}

export function object(value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`Webhook payload is missing ${what}`);
  return value as Record<string, unknown>;
}

export function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) throw badRequest(`Webhook payload is missing ${what}`);
  return value;
}

/** The raw body as a JSON object, else 400. */
export function parseBody(raw: string): Record<string, unknown> {
  try {
    return object(JSON.parse(raw), 'a JSON object');
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw badRequest('Webhook payload is not valid JSON');
  }
}
