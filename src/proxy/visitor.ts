/**
 * @module Visitors: a signed, HttpOnly cookie holding a random visitor id, the conversations it
 * started and when it was issued. Stateless, so it works across proxy restarts and instances
 * sharing the secret; a cookie older than its maximum age is refused here, whatever the browser
 * does with its `Max-Age`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Visitor {
  id: string;
  /** Conversation ids this visitor started, most recent last. */
  conversations: string[];
}

/** How many conversations one cookie remembers; the oldest fall off. */
export const MAX_CONVERSATIONS = 20;

/** How long a visitor cookie is honoured after it was issued (it is issued again with each message). */
export const DEFAULT_VISITOR_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

/** A cookie issued this far in the future (another instance's clock) is still honoured. */
const CLOCK_SKEW_SECONDS = 300;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function newVisitor(): Visitor {
  return { id: randomBytes(16).toString('base64url'), conversations: [] };
}

/**
 * The new visitor of a message keyed `key` from client `address` (turn-key.ts): the same key from
 * the same address gives the same id, so a first message sent again without the cookie its lost
 * answer carried is the same visitor. Signed with the secret, so no one can work out a visitor's
 * id from a key, nor choose one; bound to the address, so a key copied elsewhere is another visitor.
 */
export function visitorOfKey(secret: string, key: string, address = ''): Visitor {
  return { id: sign(secret, `visitor-of-key\n${address}\n${key}`).slice(0, 22), conversations: [] };
}

/** `base64url(json).signature`, issued at `now` (ms); ids are from a safe charset, so the value needs no escaping. */
export function encodeVisitor(secret: string, visitor: Visitor, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ v: visitor.id, c: visitor.conversations.slice(-MAX_CONVERSATIONS), t: Math.floor(now / 1000) })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/**
 * The visitor of a cookie value, or null when it is missing, malformed, its signature is wrong,
 * or it was issued more than `maxAgeSeconds` before `now` (or carries no issue time).
 */
export function decodeVisitor(secret: string, value: string | undefined, maxAgeSeconds = DEFAULT_VISITOR_MAX_AGE_SECONDS, now = Date.now()): Visitor | null {
  if (!value || value.length > 4096) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { v?: unknown; c?: unknown; t?: unknown };
    if (typeof data.v !== 'string' || !Array.isArray(data.c) || !data.c.every((c) => typeof c === 'string')) return null;
    if (typeof data.t !== 'number' || !Number.isFinite(data.t)) return null;
    const age = now / 1000 - data.t;
    if (age > maxAgeSeconds || age < -CLOCK_SKEW_SECONDS) return null;
    return { id: data.v, conversations: data.c as string[] };
  } catch {
    return null;
  }
}

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
