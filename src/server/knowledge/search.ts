/**
 * @module Docs search: the ranked sections of an organization's knowledge base for a query, as a
 * reader sees them (page, heading, a plain-text excerpt around the best match with the query's
 * words marked). The same retrieval as answers, with no LLM; `GET /v0/search`, the proxy's relay
 * and the MCP tool `search_docs` all answer with it.
 */
import { SEARCH_EXCERPT_MAX_LENGTH, SEARCH_LIMIT_DEFAULT, SEARCH_RESULTS_PER_PAGE } from '../../protocol/limits.js';
import type { SearchResult } from '../../protocol/schemas/responses.js';
import type { SearchHit } from './ranking/rank.js';
import type { StoredSection } from './store/sections.js';
import type { BlockKind } from './text/passage.js';
import { tokenize, wordSpans } from './text/text.js';

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
 * How many ranked sections are read first for `limit` results: a page's fourth section and later
 * are passed over, so more are read than are answered. When they name fewer than `limit` pages
 * while more sections match, `MORE_CANDIDATES` times as many are read, up to `maxCandidates`.
 */
const candidates = (limit: number) => limit * SEARCH_RESULTS_PER_PAGE + 4;
const MORE_CANDIDATES = 4;
/**
 * The most ranked sections read for `limit` results, however few pages they name: a query whose
 * best matches crowd a few pages reads this many at most, so no query costs more than a bounded
 * ranking.
 */
const maxCandidates = (limit: number) => limit * 40;

/** The longest part of a section's plain text read for its excerpt: the match is found in it, in time linear in it. */
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
  const terms = new Set(tokenize(query));
  // Sections are read until they name `limit` pages, or no more match (see `candidates`).
  let pages = new Map<string, SearchHit[]>();
  for (let read = candidates(limit); ; read = Math.min(read * MORE_CANDIDATES, maxCandidates(limit))) {
    const hits = await ranking.search(orgId, query, { limit: read, ...(options.pageUrl ? { pageUrl: options.pageUrl } : {}) });
    pages = byPage(hits);
    if (pages.size >= limit || hits.length < read || read >= maxCandidates(limit)) break;
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

/** The sections of each page in rank order (at most `SEARCH_RESULTS_PER_PAGE`, never a ticket), pages in the order of their best section. */
function byPage(hits: SearchHit[]): Map<string, SearchHit[]> {
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
  return pages;
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

/** The blocks an excerpt reads: what the section says, its code only when it says nothing else. */
const PROSE = new Set<BlockKind>(['paragraph', 'list', 'steps', 'table', 'quote', 'heading']);

/**
 * The part of a section an excerpt is taken from, as plain words: the plain text of its stored
 * passage (see text/passage.ts), its prose (or its code, when it has no prose). Nothing is parsed
 * or tokenized here beyond the few hundred characters around the best block: the block holding the
 * most of the query's terms (then the most matches) is found by the terms stored with each block,
 * and the text read is that block with an excerpt's length of text on each side, at most
 * `MAX_TEXT_READ` characters; `before` and `after` say text was left out.
 */
function readableText(section: StoredSection, terms: ReadonlySet<string>): Passage {
  let blocks = section.passage.blocks.filter((block) => PROSE.has(block.kind) && block.plain);
  if (blocks.length === 0) blocks = section.passage.blocks.filter((block) => block.plain);
  const text = blocks.map((block) => block.plain).join(' ');
  // Where each block starts in `text`, and the best block by its stored terms.
  let at = 0;
  let from = 0;
  let to = 0;
  let bestDistinct = 0;
  let bestCount = 0;
  const seen = new Set<string>();
  for (const block of blocks) {
    seen.clear();
    let count = 0;
    for (const term of block.terms) {
      if (!terms.has(term)) continue;
      seen.add(term);
      count++;
    }
    if (seen.size > bestDistinct || (seen.size === bestDistinct && count > bestCount)) {
      [bestDistinct, bestCount, from, to] = [seen.size, count, at, at + block.plain.length];
    }
    at += block.plain.length + 1;
  }
  from = Math.max(0, from - SEARCH_EXCERPT_MAX_LENGTH);
  to = Math.min(text.length, to + SEARCH_EXCERPT_MAX_LENGTH, from + MAX_TEXT_READ);
  if (from > 0) from = wordStart(text, from, to);
  if (to < text.length) to = wordEnd(text, to, from);
  return { text: text.slice(from, to), before: from > 0, after: to < text.length };
}

interface Passage {
  text: string;
  /** Text was left out before `text`… */
  before: boolean;
  /** …and after it. */
  after: boolean;
}

/** The words of `text` that match one of the query's terms. */
const matchesOf = (text: string, terms: ReadonlySet<string>) => wordSpans(text).filter((w) => w.terms.some((t) => terms.has(t)));

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
