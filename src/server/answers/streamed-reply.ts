/**
 * @module An LLM's reply made final as it arrives, so it can be streamed and never rewritten: its
 * citations renumbered in the order they first appear (ones to no source dropped), blanks before
 * punctuation and around the reply dropped, and the `[[NOT_ANSWERED]]` marker never passed on.
 * Text that could still change (a `[` that may start a citation or the marker, trailing blanks) is
 * held until the next characters decide it. Each character is looked at a bounded number of times.
 */
import type { Source } from '../../protocol/index.js';

/**
 * What the model writes first when its sources do not answer: a fixed marker, read by the
 * engine (never shown), so the reply becomes uncertain with the passages as related pages.
 */
export const NOT_ANSWERED = '[[NOT_ANSWERED]]';

const PUNCTUATION = new Set(['.', ',', ';', ':']);

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function isSpace(c: string): boolean {
  return c.trim() === '';
}

/** Whether the character at `i` is one the writer may hold or drop: a blank, `[`, or `.,;:`. */
function isSpecial(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code === 91 || code === 46 || code === 44 || code === 59 || code === 58 || code === 32 || (code >= 9 && code <= 13)) return true;
  return code >= 128 && isSpace(text[i]!);
}

/** `text` without its trailing spaces and tabs (not newlines). */
function trimBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(0, end);
}

/**
 * Citations renumbered as they appear: `[n]` for a source 1…`sourceCount` becomes its place among
 * the sources cited so far; others are dropped, and spaces left before `.,;:` with them. In
 * `strip` mode (a reply that does not answer) every citation is dropped with the blanks before it.
 */
export class CitationWriter {
  readonly #sourceCount: number;
  readonly #strip: boolean;
  /** Source numbers (1-based) in the order first cited. */
  readonly order: number[] = [];
  #space = '';
  #citation = '';
  #started = false;

  constructor(sourceCount: number, options: { strip?: boolean } = {}) {
    this.#sourceCount = sourceCount;
    this.#strip = options.strip ?? false;
  }

  /** The final text `text` adds (possibly empty: some is held). */
  write(text: string): string {
    const parts: string[] = [];
    let i = 0;
    while (i < text.length) {
      if (!this.#citation) {
        // A run of characters that change nothing (not a blank, `[` or `.,;:`) goes out as one slice.
        let end = i;
        while (end < text.length && !isSpecial(text, end)) end++;
        if (end > i) {
          parts.push(this.#emit(text.slice(i, end)));
          i = end;
          continue;
        }
      }
      const out = this.#char(text[i]!);
      if (out) parts.push(out);
      i++;
    }
    return parts.join('');
  }

  /** The rest of the final text (what was held and is plain text after all). */
  end(): string {
    const out = this.#citation ? this.#emit(this.#citation) : '';
    this.#citation = '';
    this.#space = '';
    return out;
  }

  #char(c: string): string {
    if (this.#citation) {
      if (isDigit(c) && this.#citation.length < 3) {
        this.#citation += c;
        return '';
      }
      if (c === ']' && this.#citation.length >= 2) {
        const n = Number(this.#citation.slice(1));
        this.#citation = '';
        if (this.#strip) {
          this.#space = '';
          return '';
        }
        if (n < 1 || n > this.#sourceCount) return '';
        let position = this.order.indexOf(n);
        if (position < 0) position = this.order.push(n) - 1;
        return this.#emit(`[${position + 1}]`);
      }
      // Not a citation after all: plain text, then this character afresh.
      const literal = this.#citation;
      this.#citation = '';
      return this.#emit(literal) + this.#char(c);
    }
    if (isSpace(c)) {
      this.#space += c;
      return '';
    }
    if (c === '[') {
      this.#citation = c;
      return '';
    }
    if (!this.#strip && PUNCTUATION.has(c)) this.#space = trimBlanks(this.#space);
    return this.#emit(c);
  }

  /** `text` after the blanks held before it; blanks before the first text are dropped. */
  #emit(text: string): string {
    const out = this.#started ? this.#space + text : text;
    this.#space = '';
    this.#started = true;
    return out;
  }
}

/** Keeps only the sources the reply cites, renumbering its citations to match (a whole reply at once). */
export function mapCitations(text: string, sources: Source[]): { content: string; sources: Source[] } {
  const writer = new CitationWriter(sources.length);
  const content = writer.write(text) + writer.end();
  return { content, sources: writer.order.map((n) => sources[n - 1]!) };
}

/** The reply as it was streamed, once the model is done. */
export interface StreamedReplyEnd {
  /** The last of the text to stream. */
  text: string;
  /** The whole final text (every piece streamed, joined). */
  content: string;
  /** The sources cited, in their new order. */
  cited: Source[];
  /** The reply began with the marker: it does not answer, and its citations were dropped. */
  notAnswered: boolean;
  /** The marker appeared later in the reply (dropped there). */
  markerLater: boolean;
}

/**
 * One LLM reply streamed: `push` each piece as it arrives and send what it returns; `end` once the
 * model is done. The marker is held while the text could be its start and dropped wherever it
 * appears; at the start it makes the reply `notAnswered`.
 */
export class StreamedReply {
  readonly #sources: Source[];
  #held = '';
  #markerSeen = false;
  #writer: CitationWriter | undefined;
  #notAnswered = false;
  #markerLater = false;
  #content = '';

  constructor(sources: Source[]) {
    this.#sources = sources;
  }

  /** The final text this piece adds (possibly empty). */
  push(piece: string): string {
    const text = this.#held + piece;
    const at = text.indexOf(NOT_ANSWERED);
    if (at >= 0) {
      // At the start: nothing visible before it, streamed or in this text.
      if (!this.#writer && text.slice(0, at).trim() === '') this.#markerSeen = true;
      else this.#markerLater = true;
    }
    // Held: the longest end of the text as written, after its last whole marker, that could begin
    // the marker. The markers are found in the text as the model wrote it, never in what is left
    // once they are dropped ("[[NOT_" + marker + "ANSWERED]]" leaves one marker's letters, not a
    // marker): so the same markers go however the text is cut (two markers never overlap).
    const after = at >= 0 ? text.lastIndexOf(NOT_ANSWERED) + NOT_ANSWERED.length : 0;
    let keep = Math.min(NOT_ANSWERED.length - 1, text.length - after);
    while (keep > 0 && !text.endsWith(NOT_ANSWERED.slice(0, keep))) keep--;
    this.#held = text.slice(text.length - keep);
    return this.#write(text.slice(0, text.length - keep).split(NOT_ANSWERED).join(''));
  }

  end(): StreamedReplyEnd {
    const held = this.#held;
    this.#held = '';
    // Writing the held text (with `final`) makes the writer if no visible text came before.
    let text = this.#write(held, true);
    const writer = this.#writer!;
    const rest = writer.end();
    this.#content += rest;
    text += rest;
    return { text, content: this.#content, cited: writer.order.map((n) => this.#sources[n - 1]!), notAnswered: this.#notAnswered, markerLater: this.#markerLater };
  }

  #write(text: string, final = false): string {
    if (!this.#writer) {
      // Which writer depends on whether the reply begins with the marker: decided at its first visible character.
      if (text.trim() === '' && !final) return '';
      this.#notAnswered = this.#markerSeen;
      this.#writer = new CitationWriter(this.#sources.length, { strip: this.#notAnswered });
    }
    const out = this.#writer.write(text);
    this.#content += out;
    return out;
  }
}
