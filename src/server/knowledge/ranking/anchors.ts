/**
 * @module What other sections call a section: the text of the links that point to it, read with
 * the list item, table row or short paragraph each stands in ("[Transfer account ownership](…):
 * hand over account control when someone leaves", "| Download data for a spreadsheet | [CSV
 * export](…) |"). A page is described there in its readers' words as much as its own, the way web
 * search has long read anchor text; the words index reads it with the section it points to.
 */
import { setImmediate } from 'node:timers/promises';
import { linksOfMarkdown } from '../ingest/stored-passage.js';
import type { Passage } from '../text/passage.js';

/** How many distinct anchor texts a section keeps (the first, in section order): a page every page links to is not made to match everything. */
export const MAX_ANCHORS_PER_SECTION = 16;
/**
 * How much is read between turns of the event loop (other requests go between): a stored passage
 * read costs tens of microseconds, a passage stored before links were kept is parsed again from
 * its Markdown, about two microseconds a character.
 */
const READ_PER_TURN = 500;
const PARSED_CHARS_PER_TURN = 20_000;
/** Sections' own addresses read between turns (a few microseconds each: 40,000 at once held the event loop a tenth of a second). */
const KEYED_PER_TURN = 2_000;

/** What `anchorTexts` reads of a section. */
export interface LinkedSection {
  url: string;
  docKey: string;
  kind: string;
  /** Readable Markdown, links written `[text](absolute address)` (see ingest/mdast-text.ts `phrasing`). */
  body: string;
  /** Its links, kept at ingest (see text/passage.ts `Passage.links`). */
  passage: Passage;
}

/**
 * A page's address as its links write it and as it is stored, compared one way: no fragment, no
 * query, no trailing slash, no `index`, no `.md`, `.mdx` or `.html` ending ("…/billing.md",
 * "…/billing/", "…/billing/index.html" and "…/billing" are one page). Null for what is no address.
 */
export function pageKey(address: string): string | null {
  return addressKeys(address)?.page ?? null;
}

/**
 * An address as its links write it, compared one way: its page (see `pageKey`), and its section,
 * the page with its fragment decoded (the page alone when it has none). Null for what is no address.
 */
function addressKeys(address: string): { page: string; section: string } | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  let path = url.pathname;
  for (const ending of ['.html', '.htm', '.mdx', '.md']) if (path.toLowerCase().endsWith(ending)) path = path.slice(0, -ending.length);
  if (path.endsWith('/index')) path = path.slice(0, -'index'.length);
  while (path.endsWith('/')) path = path.slice(0, -1);
  const page = `${url.protocol}//${url.host}${path}`;
  const hash = address.indexOf('#');
  let fragment = hash === -1 ? '' : address.slice(hash + 1);
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    // A malformed escape: compared as written.
  }
  return { page, section: fragment ? `${page}#${fragment}` : page };
}

/**
 * For each section, the text of the links other sections hold to it (joined, distinct, at most
 * `MAX_ANCHORS_PER_SECTION`); '' for most. A link to a page is the page's first section's; a link
 * to a heading, that heading's section. A section's links to itself say nothing new and are left out.
 */
export async function anchorTexts(sections: readonly LinkedSection[]): Promise<string[]> {
  const bySection = new Map<string, number>();
  for (const [i, section] of sections.entries()) {
    if (i % KEYED_PER_TURN === KEYED_PER_TURN - 1) await setImmediate();
    if (section.kind !== 'doc') continue;
    const keys = addressKeys(section.url);
    if (keys === null) continue;
    if (!bySection.has(keys.section)) bySection.set(keys.section, i);
    if (!bySection.has(keys.page)) bySection.set(keys.page, i);
  }
  // Most sections receive no link: a set only for those that do.
  const anchors = new Map<number, Set<string>>();
  let read = 0, parsed = 0;
  for (const [i, section] of sections.entries()) {
    // Most sections link nowhere: only those whose Markdown holds a link's `](` are read. A passage
    // stored before passages kept their links is read for them from its Markdown.
    if (section.kind !== 'doc' || !section.body.includes('](')) continue;
    let links = section.passage.links;
    if (!links) {
      links = linksOfMarkdown(section.body);
      parsed += section.body.length;
    }
    if (++read >= READ_PER_TURN || parsed >= PARSED_CHARS_PER_TURN) {
      read = parsed = 0;
      await setImmediate();
    }
    for (const link of links) {
      const keys = addressKeys(link.url);
      const target = keys === null ? undefined : (bySection.get(keys.section) ?? bySection.get(keys.page));
      if (target === undefined || target === i) continue;
      let held = anchors.get(target);
      if (!held) anchors.set(target, (held = new Set()));
      if (held.size < MAX_ANCHORS_PER_SECTION) held.add(link.text);
    }
  }
  return sections.map((_, i) => [...(anchors.get(i) ?? [])].join(' \n '));
}
