/** @module Heading anchors as GitHub and most docs sites make them, in one pass over the heading. */

/**
 * A heading's anchor: lowercased; letters, numbers, `_` and `-` kept; each whitespace character a
 * `-`; everything else dropped ("Using C#" → "using-c", "Rate limits" → "rate-limits"). One
 * pass over the characters, so a heading of any length costs its length (see `text.ts`'s
 * `slugify`, which gives the same anchors; a differential test compares them).
 */
export function slug(heading: string): string {
  let out = '';
  for (const char of heading.trim().toLowerCase()) {
    if (char === '_' || char === '-' || /[\p{L}\p{N}]/u.test(char)) out += char;
    else if (/\s/.test(char)) out += '-';
  }
  return out;
}

/** Anchors of one page: a repeated heading gets `-1`, `-2`, … as on GitHub. */
export class Anchors {
  readonly #used = new Map<string, number>();

  /** The anchor for a heading's text, unique on this page. */
  next(text: string): string {
    const base = slug(text);
    const count = this.#used.get(base) ?? 0;
    this.#used.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  }

}
