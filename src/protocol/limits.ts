/** @module Bounds shared by widget, proxy and server (DESIGN.md, "Decisions where the spec is silent"). */

export const MESSAGE_MIN_LENGTH = 1;
/** Longest `message`, in characters (code points). */
export const MESSAGE_MAX_LENGTH = 16_000;
export const NAME_MAX_LENGTH = 200;
export const EMAIL_MAX_LENGTH = 320;
export const TITLE_MAX_LENGTH = 300;
export const SUMMARY_MAX_LENGTH = 20_000;
/** Longest escalation `note` (the visitor's words to the support team), in characters. */
export const NOTE_MAX_LENGTH = 2_000;
/**
 * Turns (a visitor message and its answer) one conversation may hold; the next message is refused
 * with 409 `conflict` and the visitor starts a new conversation.
 */
export const CONVERSATION_MAX_TURNS = 20;
/**
 * Largest request body any endpoint reads, in bytes: room for the longest message written the
 * longest way JSON allows (16,000 characters outside the BMP, each `\uXXXX\uXXXX`, 12 bytes: 192,000).
 */
export const MAX_BODY_BYTES = 256 * 1024;
/** Longest `Prefer: wait=N` honoured, in seconds. */
export const MAX_PREFER_WAIT_SECONDS = 20;

/** A plausible email: one `@`, something before it, a dot in the domain, no spaces. */
export function isPlausibleEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/** Longest comment kept with a rating of an answer (`POST /v0/chat/{id}/feedback`). */
export const FEEDBACK_COMMENT_MAX_LENGTH = 2000;
