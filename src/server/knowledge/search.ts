/**
 * @module Docs search: the ranked sections of an organization's knowledge base for a query, as a
 * reader sees them (page, heading, a plain-text excerpt around the best match with the query's
 * words marked). The same retrieval as answers, with no LLM; `GET /v0/search`, the proxy's relay
 * and the MCP tool `search_docs` all answer with it.
 */
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { SEARCH_EXCERPT_MAX_LENGTH, SEARCH_LIMIT_DEFAULT, SEARCH_RESULTS_PER_PAGE } from '../../protocol/limits.js';
import type { SearchResult } from '../../protocol/schemas/responses.js';
import { boundBlocks } from './ingest/markdown.js';
import type { SearchHit } from './ranking/rank.js';
import type { StoredSection } from './store/sections.js';
import { tokenize, wordSpans } from './text/text.js';
import { LRUCache } from 'lru-cache';

export type { SearchResult } from '../../protocol/schemas/responses.js';

/** What `searchDocs` ranks with: the organization's sections for a query, best first, never tickets unless asked. */
export interface Ranking {
  search(orgId: string, query: string, options: { limit: number; pageUrl?: string }): Promise<SearchHit[]>;
}

export interface SearchDocsOptions {
  /** Most results. @default SEARCH_LIMIT_DEFAULT (8) */
  limit?: number;
  /** The page the reader is on: its sections and its neighbours' weigh more (a boost, never a filter). */
  pageUrl?: string;
}

/**
 * How many ranked sections are read for `limit` results: a page's fourth section and later are
 * passed over, so more are read than are answered.
 */
const candidates = (limit: number) => limit * 2 + 4;

/** The longest part of a section's text read for its excerpt: the match is found in it, in time linear in it. */
const MAX_TEXT_READ = 20_000;

/**
 * The organization's sections that best match `query`, as search results: ranked as answers rank
 * them (words and meaning, see ranking/rank.ts), at most `SEARCH_RESULTS_PER_PAGE` of one
 * page, never a ticket. The best section of each page comes first, pages in the order of their
 * best: as many pages as there are reach the first results, where a reader looks.
 *
 * @example
 * const results = await searchDocs(knowledge, orgId, 'install the cli', { limit: 5 });
 * // [{ url: 'https://docs.example.com/cli/install', title: 'CLI', section: 'Install', excerpt: 'Run npm i…', highlights: [[4, 7]] }, …]
 */
export async function searchDocs(ranking: Ranking, orgId: string, query: string, options: SearchDocsOptions = {}): Promise<SearchResult[]> {
  const limit = options.limit ?? SEARCH_LIMIT_DEFAULT;
  const hits = await ranking.search(orgId, query, { limit: candidates(limit), ...(options.pageUrl ? { pageUrl: options.pageUrl } : {}) });
  const terms = new Set(tokenize(query));
  // The sections of each page in rank order, pages in the order of their best section.
  const pages = new Map<string, SearchHit[]>();
  const urls = new Set<string>();
  for (const hit of hits) {
    const { section } = hit;
    if (section.kind === 'ticket' || !section.url || urls.has(section.url)) continue;
    const page = pages.get(section.docKey) ?? [];
    if (page.length >= SEARCH_RESULTS_PER_PAGE) continue;
    urls.add(section.url);
    page.push(hit);
    pages.set(section.docKey, page);
  }
  // Every page's best section first, then pages' second sections, then their third: the first
  // results name as many pages as there are, and a page's further sections follow.
  const results: SearchResult[] = [];
  for (let k = 0; k < SEARCH_RESULTS_PER_PAGE && results.length < limit; k++) {
    for (const page of pages.values()) {
      const hit = page[k];
      if (hit) results.push(toResult(hit, terms));
      if (results.length === limit) break;
    }
  }
  return results;
}

/** One hit as a reader sees it: its page, its heading (null for a page's opening), its excerpt. */
function toResult(hit: SearchHit, terms: ReadonlySet<string>): SearchResult {
  const { section } = hit;
  const { excerpt, highlights } = excerptOf(readableText(hit.under ?? section, terms), terms);
  if (section.kind === 'code') {
    const file = section.context.split('/').pop();
    const declared = section.title.replace(/ \(continued\)$/, '');
    return { url: section.url, title: section.context, section: declared === file ? null : declared, excerpt, highlights };
  }
  const page = section.context.split(' › ')[0] || section.title;
  return { url: section.url, title: page, section: section.title && section.title !== page ? section.title : null, excerpt, highlights };
}

/**
 * The part of a section an excerpt is taken from, as plain words: its prose without Markdown (or
 * its code, when it has no prose), blanks collapsed. A long section is read around its best match
 * alone (see `PARSED`), so the Markdown parsed for a result is bounded whatever the section's size;
 * `before`/`after` say whether text was left out there.
 */
function readableText(section: StoredSection, terms: ReadonlySet<string>): Passage {
  const source = section.kind === 'code' || !section.body.trim() ? section.code : section.body;
  const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
  const prose = source !== section.code;
  // Most sections are read whole: their plain text is kept, as sections never change (an edit stores new ones).
  if (source.length <= PARSED.chars) {
    let text = plainTexts.get(section.id);
    if (text === undefined) plainTexts.set(section.id, (text = prose ? plainText(source) : collapse(source)));
    return { text, before: false, after: false };
  }
  const read = source.slice(0, MAX_TEXT_READ);
  const { from, to } = around(read, terms);
  const part = read.slice(from, to);
  return { text: prose ? plainText(part) : collapse(part), before: from > 0, after: to < source.length };
}

/** The plain text of sections read whole, by section id: the same sections come back for the queries people repeat. */
const plainTexts = new LRUCache<number, string>({ max: 20_000 });

interface Passage {
  text: string;
  /** Text was left out before `text`… */
  before: boolean;
  /** …and after it. */
  after: boolean;
}

/** How much of a long section's Markdown is parsed for its excerpt: whole lines about the best match, `margin` characters either side, `chars` at most. */
const PARSED = { chars: 1_000, margin: 350 };

/** The whole lines of `text` about its best match (see `PARSED`), cut at a blank where a line is longer. */
function around(text: string, terms: ReadonlySet<string>): { from: number; to: number } {
  const best = bestWindow(matchesOf(text, terms), SEARCH_EXCERPT_MAX_LENGTH);
  const start = best?.start ?? 0;
  const end = best?.end ?? 0;
  let from = Math.max(0, start - PARSED.margin);
  const lineStart = text.lastIndexOf('\n', start) + 1;
  if (lineStart > from) from = lineStart;
  else if (from > 0) from = wordStart(text, from, start);
  let to = Math.min(text.length, Math.max(end, from) + PARSED.margin, from + PARSED.chars);
  const lineEnd = text.indexOf('\n', Math.max(end, from));
  if (lineEnd >= 0 && lineEnd < to) to = lineEnd;
  else if (to < text.length) to = wordEnd(text, to, Math.max(end, from));
  return { from, to };
}

/** The words of `text` that match one of the query's terms. */
const matchesOf = (text: string, terms: ReadonlySet<string>) => wordSpans(text).filter((w) => w.terms.some((t) => terms.has(t)));

/** Blocks whose text ends where the next begins: a space goes between them. */
const BLOCKS = new Set(['paragraph', 'heading', 'listItem', 'tableCell', 'blockquote', 'code', 'definition', 'footnoteDefinition', 'break', 'thematicBreak']);

/**
 * A character that may start a Markdown construct in a section's prose (emphasis, code, links and
 * images, HTML and entities, tables, headings, quotes, escapes, strikethrough, autolinks), or a
 * line starting a list item or an indented block. Text without one is plain and is not parsed.
 */
const MARKUP = /[*_`[\]!<>|#\\&~:]|^(?: {4}|\t|[ \t]*(?:[-+=]|\d+[.)]))/m;

/**
 * The longest run of text parsed as one block for an excerpt. micromark's cost within a block grows
 * faster than its length (`'*a ' × 333` took 130 ms); an excerpt is 300 characters, so blocks cut
 * this short read as they would whole save for a mark that spans the cut.
 */
const EXCERPT_BLOCK_CHARS = 240;

/**
 * The text of Markdown as a person reads it on the page: no marks, links as their text, images as
 * their alt text, code as its code, no HTML. The engine keeps a section's prose as readable
 * Markdown (see mdast-text.ts); micromark reads it, in time linear in its length (`boundBlocks`).
 */
export function plainText(markdown: string): string {
  // Text in which no Markdown construct can start reads as itself: nothing to parse.
  if (!MARKUP.test(markdown)) return markdown.replace(/\s+/g, ' ').trim();
  const parts: string[] = [];
  const stack: Nodes[] = [fromMarkdown(boundBlocks(markdown, EXCERPT_BLOCK_CHARS), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] })];
  // Depth first, in reading order, with a stack of its own: no nesting exhausts the call stack.
  const ends: Nodes[] = [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (ends.at(-1) === node) {
      ends.pop();
      parts.push(' ');
      continue;
    }
    if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code') parts.push(node.value);
    else if (node.type === 'image' || node.type === 'imageReference') parts.push(node.alt ?? '');
    if (BLOCKS.has(node.type)) {
      ends.push(node);
      stack.push(node);
    }
    if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Nodes);
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

const ELLIPSIS = '…';

/**
 * At most `SEARCH_EXCERPT_MAX_LENGTH` characters of a passage around its best match (the window
 * holding the most of the query's terms), cut at whole words with an ellipsis where text was left
 * out, and the offsets of the matching words in it.
 */
export function excerptOf(passage: Passage, terms: ReadonlySet<string>): { excerpt: string; highlights: [number, number][] } {
  const { text } = passage;
  const matches = matchesOf(text, terms);
  // Room for an ellipsis at both ends.
  const room = SEARCH_EXCERPT_MAX_LENGTH - 2 * ELLIPSIS.length;
  const best = text.length <= room ? null : bestWindow(matches, room);
  // The matched run with a third of what is left before it: the sentence leading to it reads first.
  const lead = best ? Math.floor((room - (best.end - best.start)) / 3) : 0;
  let start = best ? Math.max(0, best.start - lead) : 0;
  let end = Math.min(text.length, start + room);
  if (end === text.length) start = Math.max(0, end - room);
  start = wordStart(text, start, best?.start ?? end);
  end = wordEnd(text, end, best ? best.end : start);
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  const before = start > 0 || passage.before ? ELLIPSIS : '';
  const excerpt = `${before}${text.slice(start, end)}${end < text.length || passage.after ? ELLIPSIS : ''}`;
  const shift = before.length - start;
  const highlights = matches.filter((m) => m.start >= start && m.end <= end).map((m): [number, number] => [m.start + shift, m.end + shift]);
  return { excerpt, highlights };
}

/**
 * The run of matches of at most `room` characters holding the most distinct terms (then the most
 * matches), first such run on a tie; null without matches. Two pointers: linear in the matches.
 */
function bestWindow(matches: { start: number; end: number; terms: string[] }[], room: number): { start: number; end: number } | null {
  let best: { start: number; end: number; distinct: number; count: number } | null = null;
  const held = new Map<string, number>();
  let left = 0;
  const add = (terms: string[], by: number) => {
    for (const t of terms) {
      const n = (held.get(t) ?? 0) + by;
      if (n === 0) held.delete(t);
      else held.set(t, n);
    }
  };
  for (let right = 0; right < matches.length; right++) {
    add(matches[right]!.terms, 1);
    while (matches[right]!.end - matches[left]!.start > room) add(matches[left++]!.terms, -1);
    const count = right - left + 1;
    if (!best || held.size > best.distinct || (held.size === best.distinct && count > best.count)) {
      best = { start: matches[left]!.start, end: matches[right]!.end, distinct: held.size, count };
    }
  }
  return best;
}

/** `at` moved forward to the start of a word (after a space), not past `limit`; `at` itself when no space is found before it. */
function wordStart(text: string, at: number, limit: number): number {
  if (at === 0 || /\s/.test(text[at - 1]!)) return at;
  for (let i = at; i < limit; i++) if (/\s/.test(text[i]!)) return i + 1;
  return /[\uDC00-\uDFFF]/.test(text[at] ?? '') ? at + 1 : at;
}

/** `at` moved back to the end of a word (before a space), not before `limit`; `at` itself when no space is found after it. */
function wordEnd(text: string, at: number, limit: number): number {
  if (at === text.length || /\s/.test(text[at]!)) return at;
  for (let i = at - 1; i > limit; i--) if (/\s/.test(text[i]!)) return i;
  return /[\uD800-\uDBFF]/.test(text[at - 1] ?? '') ? at - 1 : at;
}
