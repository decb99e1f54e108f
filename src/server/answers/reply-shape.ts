/**
 * @module What a reply holds, sized for a chat panel: the answering passage and about
 * `PROSE_BUDGET` characters of prose, code only when the question asks for code or the passage
 * introduces it, never navigation (a "See also" list, links glued into a line) or a changelog.
 */
import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * About how much prose a reply quotes: what a 400 px panel shows in a screen or two. The answering
 * passage is quoted whole even when longer; what does not fit is behind a "More on <page>" link.
 */
export const PROSE_BUDGET = 600;

/**
 * Headings of what a page is around its content rather than its content: its navigation and its
 * history. Their sections are still found and cited, never quoted.
 */
const NOT_CONTENT = new Set([
  'see also',
  'related',
  'related pages',
  'related articles',
  'related topics',
  'related links',
  'further reading',
  'next steps',
  "what's next",
  'learn more',
  'changelog',
  'change log',
  'release notes',
  'version history',
  "what's new",
  'history',
]);

/** Whether a section's heading names navigation or history (see `NOT_CONTENT`). */
export function isNavigation(title: string): boolean {
  return NOT_CONTENT.has(title.trim().toLowerCase().replace(/[’]/g, "'").replace(/[:.?]$/, ''));
}

export { asksForCode } from '../knowledge/index.js';

/**
 * The most of a text read as Markdown here: a run of unclosed link openings costs the parser time
 * quadratic in its length (50,000 of them took a minute and a half), and a reply is read for its
 * first screens only. 3,000 characters parse in a few milliseconds whatever they hold.
 */
const PARSED_CHARS = 3_000;

/** Parses (the start of) Markdown as the knowledge base does (CommonMark with GFM: tables, autolinks). */
const parse = (markdown: string) => fromMarkdown(markdown.slice(0, PARSED_CHARS), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/** How many letters and digits a text holds. */
const letters = (text: string) => {
  let n = 0;
  for (const char of text) if (/[\p{L}\p{N}]/u.test(char)) n++;
  return n;
};

/** What a visitor reads of a reply part (see `readPart`). */
export interface PartShape {
  /** Its prose (what the budget counts): its length without its code blocks, a link by its label, not its address. */
  prose: number;
  /** Letters inside links. */
  inside: number;
  /** Letters outside links (code counts as outside: it says something). */
  outside: number;
}

/** The characters a node spans in the Markdown it was parsed from. */
const span = (node: Nodes | undefined) => (node?.position?.end.offset ?? 0) - (node?.position?.start.offset ?? 0);

/** A reply part read once: its prose length and the letters of its text inside and outside links. */
export function readPart(markdown: string): PartShape {
  const count = { inside: 0, outside: 0 };
  let hidden = 0;
  // An explicit stack rather than recursion: a deeply nested list or quote cannot exhaust the call stack.
  const stack: { node: Nodes; link: boolean }[] = [{ node: parse(markdown), link: false }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { node, link } = next;
    if (node.type === 'code') hidden += span(node);
    if (node.type === 'text' || node.type === 'inlineCode' || node.type === 'code') {
      count[link ? 'inside' : 'outside'] += letters(node.value);
      continue;
    }
    if (node.type === 'link') {
      const first = node.children[0];
      const last = node.children.at(-1);
      const label = first && last ? (last.position?.end.offset ?? 0) - (first.position?.start.offset ?? 0) : 0;
      hidden += span(node) - label;
    }
    if ('children' in node) for (const child of node.children) stack.push({ node: child as Nodes, link: link || node.type === 'link' || node.type === 'linkReference' });
  }
  // Past what is parsed, all counts as prose: a longer part is over the budget either way.
  return { prose: markdown.length - hidden, ...count };
}

/**
 * Whether Markdown says next to nothing outside its links: a list of links ("See also", a
 * page's table of contents), links glued into one line, a label and its links ("More: [A](…) [B](…)").
 * Such text is navigation: quoted, it answers nothing, and a reply of it alone is no answer.
 */
export function onlyLinks(markdown: string): boolean {
  // Without two links there is no list of them (and nothing to parse).
  if (markdown.split('](').length < 3 && markdown.split('[[').length < 3) return false;
  const { inside, outside } = readPart(markdown);
  return inside > 0 && outside <= Math.max(12, inside * 0.25);
}

/**
 * A sentence that only sends the reader elsewhere ("For more information, refer to Delete a note.",
 * "See Sync settings.", "Learn more about goals."): the reply's sources already do that. Anchored
 * at the start, one alternation deep: linear in the sentence.
 */
const POINTER = /^(?:for (?:more|further|additional|full|complete) (?:information|info|details|help|instructions)\b[^,.]{0,80},\s*)?(?:see|refer to|learn more|read more|more info(?:rmation)?)\b/i;

/** Whether a sentence only points elsewhere (see `POINTER`): short, and opening with the pointer. */
export function onlyPoints(sentence: string): boolean {
  return sentence.length <= 160 && !sentence.includes('\n') && POINTER.test(sentence.trim());
}

/** Whether a whole reply is links and nothing else worth reading (see `onlyLinks`), with no code: from its parts as `readPart` read them. */
export function saysNothing(parts: PartShape[]): boolean {
  const inside = parts.reduce((sum, part) => sum + part.inside, 0);
  const outside = parts.reduce((sum, part) => sum + part.outside, 0);
  return outside < 12 || (inside > 0 && outside <= inside * 0.25);
}

/** The prose of a reply part, as a visitor reads it (what the budget counts; see `readPart`). */
export const proseLength = (markdown: string): number => readPart(markdown).prose;
