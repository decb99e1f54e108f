/**
 * @module One message, one turn: the browser's `Idempotency-Key` of a message (the widget makes one
 * per message and sends it with every retry) becomes the key the proxy sends upstream, scoped to
 * the visitor, so a message resent after its 202 was lost is answered with that same turn, and
 * no visitor can reach another's turn by sending the same key (docs/idempotency.md).
 */
import { createHash } from 'node:crypto';
import { badRequest } from '../protocol/index.js';
import type { ProxyContext } from './context.js';
import { visitorOfKey } from './visitor.js';

/** Shortest and longest key a browser may send: long enough for a random 128-bit key, short enough to hash for nothing. */
export const CLIENT_KEY_MIN_LENGTH = 16;
export const CLIENT_KEY_MAX_LENGTH = 128;

/** Letters, digits, `-` and `_`: base64url, hex and UUIDs alike. */
function isKeyChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 45 || code === 95;
}

/** The browser's key of a message, checked (400 in the spec's error shape); undefined when it sent none. */
export function readClientKey(request: Request): string | undefined {
  const key = request.headers.get('idempotency-key');
  if (key === null) return undefined;
  let valid = key.length >= CLIENT_KEY_MIN_LENGTH && key.length <= CLIENT_KEY_MAX_LENGTH;
  for (let i = 0; valid && i < key.length; i++) valid = isKeyChar(key.charCodeAt(i));
  if (!valid) throw badRequest(`Idempotency-Key must be ${CLIENT_KEY_MIN_LENGTH} to ${CLIENT_KEY_MAX_LENGTH} letters, digits, "-" or "_"`);
  return key;
}

/**
 * The upstream `Idempotency-Key` of a message the browser keyed with `clientKey`: a hash of the
 * visitor (the signed-in one, else the cookie's) and the key.
 *
 * A visitor without a cookie is given the visitor of the key and the client address (visitor.ts,
 * `visitorOfKey`) first:
 * a first message whose 202 was lost comes back without the cookie that 202 carried, and must
 * still be the same visitor, so that its body (which names the visitor) and its key are the
 * same upstream, and the turn is replayed rather than made again.
 */
export function turnKey(ctx: ProxyContext, clientKey: string): string {
  if (ctx.visitorIsNew) ctx.visitor = visitorOfKey(ctx.state.opts.secret, clientKey, ctx.address);
  const scope = ctx.known ? `known:${ctx.known.id}` : `visitor:${ctx.visitor.id}`;
  return `chat-${createHash('sha256').update(`${scope}\n${clientKey}`).digest('base64url')}`;
}
