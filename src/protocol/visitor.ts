/** @module A conversation's visitor (our extension of POST /v0/chat): who it belongs to, as the site says. Its body schema is `ConversationVisitor` in schemas/requests.ts. */

/** Longest visitor id, in characters. */
export const VISITOR_ID_MAX_LENGTH = 256;

/** The `visitor` of POST /v0/chat, and of a Conversation that has one. */
export interface ConversationVisitor {
  /** The site's id of the visitor (a signed-in user's), or the proxy's random id of an anonymous one. */
  id: string;
  email?: string;
  name?: string;
  /** True when the site vouched for the visitor (their session or a signed token), false for an anonymous one. */
  verified: boolean;
}

/**
 * The proxy's `GET {basePath}/visitor`: who the request's visitor is, for the widget, with no secret
 * in it. `tag` is a pseudonym of a known visitor's id (an HMAC under the proxy's secret): the widget
 * keeps it with what it stores, and a different tag (or none) means another visitor is here now.
 */
export interface VisitorInfo {
  known: boolean;
  tag?: string;
  name?: string;
  email?: string;
}

/** Whether a visitor id is 1 to 256 printable characters (no controls, no line breaks). */
export function isVisitorId(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > VISITOR_ID_MAX_LENGTH) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}
