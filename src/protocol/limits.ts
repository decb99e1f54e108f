/** @module Bounds shared by widget, proxy and server (DESIGN.md, "Decisions where the spec is silent"). */

export const MESSAGE_MIN_LENGTH = 1;
export const MESSAGE_MAX_LENGTH = 16_000;
export const NAME_MAX_LENGTH = 200;
export const EMAIL_MAX_LENGTH = 320;
export const TITLE_MAX_LENGTH = 300;
export const SUMMARY_MAX_LENGTH = 20_000;
/** The visitor's optional note on an escalation ("anything to add?"), in characters. */
export const NOTE_MAX_LENGTH = 2_000;
/** Largest request body any endpoint reads, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Longest `Prefer: wait=N` honoured, in seconds. */
export const MAX_PREFER_WAIT_SECONDS = 20;

/** A plausible email: one `@`, something before it, a dot in the domain, no spaces. */
export function isPlausibleEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}
