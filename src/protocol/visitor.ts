/** @module A conversation's visitor (our extension of POST /v0/chat): who it belongs to, as the site says. */
import { EMAIL_MAX_LENGTH, isPlausibleEmail, NAME_MAX_LENGTH } from './limits.js';
import { HttpError } from './errors.js';

const badRequest = (message: string) => new HttpError(400, 'bad_request', message);

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

/** One entry of GET /v0/chat?visitor_id=… (and of the proxy's `GET {basePath}/chat`). */
export interface ConversationSummary {
  id: string;
  status: 'processing' | 'completed' | 'failed';
  created_at: string;
  updated_at: string;
  /** The first question, shortened; absent when the conversation has none. */
  title?: string;
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

/** Reads the optional `visitor` object of a send-message body; throws 400 naming the bad field. */
export function readVisitor(body: Record<string, unknown>): ConversationVisitor | undefined {
  const value = body.visitor;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('"visitor" must be an object');
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!['id', 'email', 'name', 'verified'].includes(key)) throw badRequest(`Unknown field "visitor.${key}"`);
  if (!isVisitorId(fields.id)) throw badRequest(`"visitor.id" must be a string of 1 to ${VISITOR_ID_MAX_LENGTH} printable characters`);
  const visitor: ConversationVisitor = { id: fields.id, verified: false };
  if (fields.verified !== undefined && fields.verified !== null) {
    if (typeof fields.verified !== 'boolean') throw badRequest('"visitor.verified" must be a boolean');
    visitor.verified = fields.verified;
  }
  if (fields.email !== undefined && fields.email !== null) {
    if (typeof fields.email !== 'string' || fields.email.length > EMAIL_MAX_LENGTH || !isPlausibleEmail(fields.email.trim())) throw badRequest('"visitor.email" must be an email address');
    visitor.email = fields.email.trim();
  }
  if (fields.name !== undefined && fields.name !== null) {
    if (typeof fields.name !== 'string' || fields.name.trim().length === 0 || fields.name.length > NAME_MAX_LENGTH) {
      throw badRequest(`"visitor.name" must be a non-empty string of at most ${NAME_MAX_LENGTH} characters`);
    }
    visitor.name = fields.name.trim();
  }
  return visitor;
}
