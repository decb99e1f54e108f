/**
 * @module Visitors: a signed, HttpOnly cookie holding a random visitor id and the conversations it
 * started. Stateless, so it works across proxy restarts and instances sharing the secret.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Visitor {
  id: string;
  /** Conversation ids this visitor started, most recent last. */
  conversations: string[];
}

/** How many conversations one cookie remembers; the oldest fall off. */
export const MAX_CONVERSATIONS = 20;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function newVisitor(): Visitor {
  return { id: randomBytes(16).toString('base64url'), conversations: [] };
}

/** `base64url(json).signature`; ids are from a safe charset, so the value needs no escaping. */
export function encodeVisitor(secret: string, visitor: Visitor): string {
  const payload = Buffer.from(JSON.stringify({ v: visitor.id, c: visitor.conversations.slice(-MAX_CONVERSATIONS) })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/** The visitor of a cookie value, or null when it is missing, malformed or its signature is wrong. */
export function decodeVisitor(secret: string, value: string | undefined): Visitor | null {
  if (!value || value.length > 4096) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(sign(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { v?: unknown; c?: unknown };
    if (typeof data.v !== 'string' || !Array.isArray(data.c) || !data.c.every((c) => typeof c === 'string')) return null;
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
