/**
 * @module The passage model: a section as the blocks its page wrote (paragraphs, lists, numbered
 * steps, code, tables, quotes, headings), each with its sentences, plain text and terms. Made
 * once at ingest (see ingest/passage.ts) and stored with the section, so answers, search excerpts
 * and MCP read what the page says without parsing or tokenizing it again.
 */
import { tokenize } from './text.js';

export type BlockKind = 'paragraph' | 'list' | 'steps' | 'code' | 'table' | 'quote' | 'heading';

/** One block of a section, as written. */
export interface PassageBlock {
  kind: BlockKind;
  /**
   * The block as quoted: readable Markdown (links, bold and code spans kept; a list with its
   * markers, a table's rows), or a code block's code as written.
   */
  text: string;
  /** What a reader reads: no marks, links as their text, blanks collapsed. */
  plain: string;
  /** A paragraph's, quote's or heading's sentences, in page order (readable Markdown); a list's items; none for code and tables. */
  sentences: string[];
  /** Of `sentences`, those that stand on a line of their own in the page (a question asked on its own line). */
  alone?: number[];
  /** A code block's language, when the page names it. */
  lang?: string;
  /** The retrieval terms of `plain` (see text.ts `tokenize`), in order. */
  terms: string[];
  /** A code block's lines: where each line's terms start in `terms` (a reply's excerpt is chosen by line). */
  lineStarts?: number[];
}

/** A section's text as its blocks, in page order. */
export interface Passage {
  /** The page's language (BCP 47), which its sentences were split by; '' when the page names none. */
  lang: string;
  blocks: PassageBlock[];
  /**
   * The section's links to pages, each with what it is read with (see ingest/passage.ts
   * `linksOf`): what this section calls the pages it links to, which the ranking reads with them
   * (knowledge/ranking/anchors.ts). None when the section links nowhere, and in a passage stored
   * before links were kept.
   */
  links?: PassageLink[];
}

/** A link of a section: its address (absolute), and the list item, table row or short paragraph it stands in, as plain text. */
export interface PassageLink {
  url: string;
  text: string;
}

/** A sentence segmenter per language: building one costs more than segmenting a paragraph. */
const segmenters = new Map<string, Intl.Segmenter>();

function segmenter(lang: string): Intl.Segmenter {
  let found = segmenters.get(lang);
  if (!found) {
    let locale = 'en';
    try {
      locale = lang ? (Intl.Segmenter.supportedLocalesOf([lang])[0] ?? 'en') : 'en';
    } catch {
      // An ill-formed language tag: the default rules.
    }
    found = new Intl.Segmenter(locale, { granularity: 'sentence' });
    if (segmenters.size < 64) segmenters.set(lang, found);
  }
  return found;
}

/** An abbreviation's full stop ("e.g. `set X`", "cf. Mounting"): the sentence goes on after it. */
const ABBREVIATED = /(?:^|[\s(])(?:e\.g|i\.e|cf|vs|approx|incl)\.$/i;

/**
 * A sentence end the segmenter's rules read as none: a full stop after a word of two letters or
 * more, a code span or a link (`` `npm test`. ``, `<https://…>.`), then a word in lower case, bare or
 * opening a code span or bold run ("Run the command. npm install starts it.", "…at
 * <http://localhost:3000/>. `npm start -- --port 4000` picks…"). Unicode's rules keep such a run
 * whole, but docs start sentences with commands and identifiers. Lookbehind and lookahead are each
 * a few characters: linear.
 */
const LOWERCASE_START = /(?<=(?:\p{L}{2}|[`>*])[.!?]["'”’)]?)\s+(?=(?:`|\*\*)?\p{Ll})/gu;

/** The characters handed to the segmenter at once (see `segmentsOf`), and at most when a sentence is longer. */
const SEGMENT_WINDOW = 1_000;
const SEGMENT_WINDOW_MAX = 16_000;
/** How far past a kept boundary a window must reach when it is not cut at a line end. */
const SEGMENT_LOOKAHEAD = 200;

/**
 * The segments of `text` by Unicode's sentence rules, handed to the segmenter a window at a time:
 * V8's segment iterator takes time proportional to the text for each segment (64,000 newlines,
 * 2.3 s), so a window holds `SEGMENT_WINDOW` characters. A window ends after a line break where it
 * can (the rules always break there: the segments are those of the whole text); a line longer
 * than a window keeps the segments that end `SEGMENT_LOOKAHEAD` characters before the window's
 * end (the rules look past a full stop only over spaces, closing marks and punctuation). A
 * sentence longer than that gets a window twice as large, up to `SEGMENT_WINDOW_MAX`, where it is
 * cut.
 */
export function* segmentsOf(text: string, lang: string): Generator<string> {
  for (let start = 0, size = SEGMENT_WINDOW; start < text.length; ) {
    let end = Math.min(text.length, start + size);
    const lineEnd = end < text.length ? text.lastIndexOf('\n', end - 1) : -1;
    if (lineEnd >= start) end = lineEnd + 1;
    const segments = Array.from(segmenter(lang).segment(text.slice(start, end)), (s) => s.segment);
    if (end === text.length || text[end - 1] === '\n') {
      yield* segments;
      start = end;
      size = SEGMENT_WINDOW;
      continue;
    }
    const reach = end - start - SEGMENT_LOOKAHEAD;
    if (segments[0]!.length > reach && size < SEGMENT_WINDOW_MAX) {
      size *= 2;
      continue;
    }
    let used = 0;
    for (const segment of segments) {
      if (used > 0 && used + segment.length > reach) break;
      yield segment;
      used += segment.length;
    }
    start += used;
    size = SEGMENT_WINDOW;
  }
}

/** A piece the rules cut right after a `!` or `?`, with no space before the next: a bang command, a query string. */
const UNSPACED_MARK = /[!?]$/;

/** How long a sentence held open by a parenthesis may grow before the rules' cuts stand (":(" or "1)" never close). */
const PARENTHESIS_REACH = 400;

/** A piece's parentheses: opened less closed. */
function parenthesisDepth(piece: string): number {
  let depth = 0;
  for (const c of piece) {
    if (c === '(') depth++;
    else if (c === ')') depth--;
  }
  return depth;
}

/** A doc comment's tag line (`@default 10000`, `@param x`): notes for tools, not sentences for people. */
export const DOC_TAG = /^@[a-z]+\b/i;

/** Longer than this, a sentence is too long to quote; at ingest, it is cut where a site export glued two together. */
export const LONGEST_SENTENCE = 600;

/**
 * A long run of words with no sentence end: a menu, a table flattened to text or a list of links
 * (docs exported from a site keep their navigation), no sentence to quote.
 */
export const isRunOn = (text: string) => text.length > 200 && !/[.!?:;)]["'”’]?$/.test(text);

/**
 * The sentences of a run of prose, by Unicode's sentence rules for the page's language
 * (`Intl.Segmenter`), then kept whole where the rules would cut a code span, a bold run ("**Does
 * it expire? Will I lose my data?**" is one sentence) or a parenthesis ("(…"How do I install it?"),
 * which is…" is one), or after an abbreviation. A parenthesis left open holds at most
 * `PARENTHESIS_REACH` characters; past that, the cuts the other rules allow stand.
 */
export function splitSentences(text: string, lang = ''): string[] {
  // The segments as written, spaces kept, so pieces joined again read as the page does.
  const pieces: string[] = [];
  for (const segment of segmentsOf(text, lang)) {
    let from = 0;
    for (const match of segment.matchAll(LOWERCASE_START)) {
      pieces.push(segment.slice(from, match.index + match[0].length));
      from = match.index + match[0].length;
    }
    pieces.push(segment.slice(from));
  }
  const out: string[] = [];
  const push = (sentence: string) => {
    if (sentence.trim()) out.push(sentence.trim());
  };
  let open = '';
  // Where `open` could end but for an open parenthesis: the cuts that stand when it never closes.
  let cuts: number[] = [];
  // The bold marks, backticks and parentheses of the pieces joined so far, counted piece by piece.
  let bold = 0;
  let ticks = 0;
  let depth = 0;
  // `open` as sentences: whole, or at the cuts when its parenthesis never closed.
  const flush = () => {
    let from = 0;
    if (depth > 0) for (const cut of cuts) push(open.slice(from, (from = cut)));
    push(open.slice(from));
  };
  for (const piece of pieces) {
    open += piece;
    bold += piece.split('**').length - 1;
    ticks += piece.split('`').length - 1;
    depth = Math.max(0, depth + parenthesisDepth(piece));
    // A `!` or `?` with no space after it ends no sentence: "enter '!a bags'", "!Bang commands", "?q=".
    if (bold % 2 !== 0 || ticks % 2 !== 0 || ABBREVIATED.test(piece.trimEnd().slice(-8)) || UNSPACED_MARK.test(piece)) continue;
    if (depth > 0 && open.length <= PARENTHESIS_REACH) {
      cuts.push(open.length);
      continue;
    }
    flush();
    open = '';
    cuts = [];
    bold = ticks = depth = 0;
  }
  flush();
  return out;
}

/** A code block as written, in `lang` when the page names one, with its terms line by line. */
export function codeBlock(code: string, lang?: string): PassageBlock {
  return withTerms({ kind: 'code', text: code, plain: code.replace(/\s+/g, ' ').trim(), sentences: [], ...(lang ? { lang } : {}) });
}

/** The longest run of backticks in `text` (0 when it has none): a fence or a code span around it is one longer. */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (const char of text) {
    run = char === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Code as a fenced block in `lang`, its fence (three backticks at least) longer than any run of backticks in it. */
export function fence(code: string, lang = ''): string {
  const ticks = '`'.repeat(Math.max(2, longestBacktickRun(code)) + 1);
  return `${ticks}${lang}\n${code}\n${ticks}`;
}

/** A block with its plain text's terms. */
export function withTerms(block: Omit<PassageBlock, 'terms' | 'lineStarts'>): PassageBlock {
  if (block.kind !== 'code') return { ...block, terms: tokenize(block.plain) };
  // A code block's terms line by line (no term spans a line break), with where each line's start.
  const terms: string[] = [];
  const lineStarts: number[] = [];
  for (const line of block.text.split('\n')) {
    lineStarts.push(terms.length);
    for (const term of tokenize(line)) terms.push(term);
  }
  return { ...block, terms, lineStarts };
}

/** The terms of each line of a code block, in order (from `lineStarts`; its text tokenized when a passage stored before them has none). */
export function termsByLine(block: PassageBlock): string[][] {
  const lines = block.text.split('\n');
  const starts = block.lineStarts;
  if (!starts || starts.length !== lines.length) return lines.map((line) => tokenize(line));
  return starts.map((start, i) => block.terms.slice(start, starts[i + 1] ?? block.terms.length));
}

/** Every term of a passage, in order. */
export function passageTerms(passage: Passage): string[] {
  return passage.blocks.flatMap((block) => block.terms);
}

/** A passage's plain text, its blocks apart by a blank: what an excerpt is taken from. */
export function passagePlain(passage: Passage, kinds?: ReadonlySet<BlockKind>): string {
  return passage.blocks
    .filter((block) => !kinds || kinds.has(block.kind))
    .map((block) => block.plain)
    .filter(Boolean)
    .join(' ');
}

/** Markdown text as a blockquote: each line after `> `, an empty line as `>` (the quote goes on). */
export function blockquote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}
