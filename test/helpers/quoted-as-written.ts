/**
 * @module Whether a reply quotes the docs as they are written: each run of sentences it quotes is
 * sentences of one cited section, one after another as on the page, after those quoted of it
 * before; a list or numbered steps is quoted whole or not at all. Code and tables are not checked.
 */
import type { RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { Passage } from '../../src/server/knowledge/index.js';

/** A passage's sentences (of its paragraphs, quotes and headings, in page order) and its lists' and steps' text. */
function quotable(passage: Passage) {
  const sentences = passage.blocks.flatMap((b) => (b.kind === 'paragraph' || b.kind === 'quote' || b.kind === 'heading' ? b.sentences : [])).map(oneLine);
  const lists = passage.blocks.filter((b) => b.kind === 'list' || b.kind === 'steps').map((b) => b.text);
  return { sentences, lists };
}

/** A sentence as a reply quotes it: a line break inside it (a soft break of the page) reads as a space. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A unit quoted as written, up to its sentence `end`, leaving out `skipped` sentences between two it quotes; or why it is not. */
export type UnitCheck = { ok: true; end: number; skipped: number } | { ok: false; why: string };

/**
 * Whether `unit` (what a reply quotes as one piece) is quoted from `passage` as written, after its
 * sentence `at` (-1 when none was quoted): a whole list, a table row, or a run of its sentences in
 * page order, one after another (or, with `gaps`, leaving sentences out between them). When it is,
 * `end` is the last sentence quoted (still `at` for a list or a table).
 */
export function checkUnit(unit: string, passage: Passage, at: number, gaps = false): UnitCheck {
  const { sentences, lists } = quotable(passage);
  // Each list it begins quoting, whole (a glossary's entries are lists of their own, quoted one after another), and it ends with one.
  // Two lists may begin alike ("1. Open **Settings**." for all plugins, then for one): a list
  // quoted whole accounts for the other's first line.
  const firstLine = (list: string) => list.split('\n')[0]!;
  const listed = lists.filter((list) => unit.includes(firstLine(list)));
  const whole = listed.filter((list) => unit.includes(list));
  const inPart = listed.filter((list) => !unit.includes(list) && !whole.some((w) => firstLine(w) === firstLine(list)));
  if (listed.length > 0) return whole.length > 0 && inPart.length === 0 && whole.some((list) => unit.endsWith(list)) ? { ok: true, end: at, skipped: 0 } : { ok: false, why: `a list quoted in part: "${unit}"` };
  if (unit.startsWith('|')) return { ok: true, end: at, skipped: 0 };
  unit = oneLine(unit);
  // The sentences the unit reads as, from its character `from` on, each after sentence `after`
  // (the first anywhere after `at`; the next one right after, or with `gaps` anywhere after): the
  // longest sentence that fits first, then shorter ones, remembering what was tried.
  const tried = new Set<string>();
  const read = (from: number, after: number, first: boolean): { end: number; skipped: number } | null => {
    if (from >= unit.length) return { end: after, skipped: 0 };
    if (tried.has(`${from}:${after}`)) return null;
    tried.add(`${from}:${after}`);
    const fits = sentences
      .map((sentence, k) => ({ sentence, k }))
      .filter(({ sentence, k }) => k > after && (first || gaps || k === after + 1) && unit.startsWith(sentence, from))
      .sort((a, b) => b.sentence.length - a.sentence.length);
    for (const { sentence, k } of fits) {
      let next = from + sentence.length;
      while (unit[next] === ' ') next++;
      const rest = read(next, k, false);
      if (rest) return { end: rest.end, skipped: rest.skipped + (first ? 0 : k - after - 1) };
    }
    return null;
  };
  const found = read(0, at, true);
  if (!found) return { ok: false, why: `"${unit}" is no run of the section's sentences, in their order, after its sentence ${at}` };
  return { ok: true, ...found };
}

/** What of a reply's Markdown is quoted prose or a list, each top-level block as written in the reply. */
function quotedUnits(content: string): string[] {
  const nodes = fromMarkdown(content, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children;
  const slice = (node: RootContent) => content.slice(node.position!.start.offset, node.position!.end.offset);
  return nodes.flatMap((node, i) => {
    if (node.type === 'code' || node.type === 'table' || node.type === 'html' || node.type === 'thematicBreak') return [];
    // The link to the rest of the page that closes a reply cut for length: "More on [Title](url)."
    if (i === nodes.length - 1 && node.type === 'paragraph' && node.children[0]?.type === 'text' && node.children[0].value === 'More on ' && node.children[1]?.type === 'link') return [];
    // The caption over what a later section says: "From [Section — Page](url):".
    if (node.type === 'paragraph' && node.children.length === 3 && node.children[0]?.type === 'text' && node.children[0].value === 'From ' && node.children[1]?.type === 'link' && node.children[2]?.type === 'text' && node.children[2].value === ':') return [];
    return [slice(node)];
  });
}

/**
 * How a reply's content quotes the sections it cites: why it does not quote them as written (none
 * when it does), and its paragraphs that leave out a sentence between two they quote. Each prose
 * block or list of the reply must be quoted as written from one of `sections` (see `checkUnit`: a
 * paragraph may join sentences the reply quotes apart, so sentences may be left out between them),
 * after what the reply quoted of that section before it.
 */
export function replyViolations(content: string, sections: Passage[]): { violations: string[]; skipping: string[] } {
  const at = sections.map(() => -1);
  const violations: string[] = [];
  const skipping: string[] = [];
  for (const unit of quotedUnits(content)) {
    const checks = sections.map((passage, i) => checkUnit(unit, passage, at[i]!, true));
    const found = checks.findIndex((c) => c.ok);
    const check = checks[found];
    if (check?.ok) {
      at[found] = check.end;
      if (check.skipped > 0) skipping.push(unit);
    } else violations.push(checks.map((c) => (c.ok ? '' : c.why)).find((why) => why.startsWith('a list')) ?? `"${unit}" is quoted from none of the ${sections.length} cited sections as written`);
  }
  return { violations, skipping };
}
