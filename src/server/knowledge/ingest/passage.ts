/**
 * @module A section's passage model (see text/passage.ts) made from its page's syntax tree at
 * ingest: each block as written, its sentences split once by the page's language. Pages without a
 * tree (plain text, a code piece's doc comment, a ticket) are read as paragraphs.
 */
import type { Nodes, PhrasingContent, RootContent } from 'mdast';
import { codeBlock, DOC_TAG, fence, isRunOn, LONGEST_SENTENCE, splitSentences, withTerms, type Passage, type PassageBlock, type PassageLink } from '../text/passage.js';
import { breaksLine, htmlText } from './html-text.js';
import { blockText, container, linkTarget, listText, phrasing, phrasingPlain, tableText, titleBlock, type BlockText } from './mdast-text.js';

/**
 * A run-on line (see text/passage.ts) is read apart from the prose around it. A long line with
 * sentence ends inside it is prose whose last sentence goes on past the line (a doc comment that a
 * window of its file cuts mid-sentence), read as sentences.
 */
const runsOn = (line: string, lang: string) => isRunOn(line) && splitSentences(line, lang).length === 1;

/** A sentence end whose space a site export lost ("product teams.Content Generation"). */
const GLUED_END = /(?<=\p{Ll}[.!?])(?=\p{Lu}\p{Ll})/u;

/** A sentence too long to quote, cut where an export glued sentences together; any other as it is. */
const unglued = (sentence: string) => (sentence.length < LONGEST_SENTENCE ? [sentence] : sentence.split(GLUED_END));

/**
 * Prose as a visitor reads it, with other Markdown kept: wiki-style links (`[[Page|label]]`) read
 * as their label, or as "Page › Heading"; an embedded image or icon (`![[send.svg#icon]]`) goes,
 * as do callout markers (`[!note]-`). Code spans are left as written. A link's target holds no
 * bracket, so each pattern reads a run of `[[` once.
 */
export const readable = (text: string) =>
  text
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/(?<!\s)\s*!\[\[[^[\]]*\.(?:png|jpe?g|gif|svg|webp|avif|bmp)(?:[#|][^[\]]*)?\]\]/gi, '')
            .replace(/!?\[\[([^[\]|]*)\|([^[\]]*)\]\]/g, '$2')
            .replace(/!?\[\[([^[\]]*)\]\]/g, (_, target: string) => target.replace(/#\^[\w-]+$/, '').split('#').filter(Boolean).join(' › '))
            .replace(/\[![\w-]+\][-+]?\s*/g, ''),
    )
    .join('');

/** Blocks whose text ends where the next begins: a space goes between them. */
const SPACED = new Set(['paragraph', 'heading', 'listItem', 'tableCell', 'blockquote', 'code', 'break']);

/**
 * Children with a reference to code that names no definition (rustdoc's and TSDoc's
 * "[`Name`]") read as the name: CommonMark leaves the brackets as text around the code span.
 */
function unbracketed(children: Nodes[]): Nodes[] {
  const opens = (i: number) => {
    const [before, code, after] = [children[i], children[i + 1], children[i + 2]];
    return before?.type === 'text' && before.value.endsWith('[') && code?.type === 'inlineCode' && after?.type === 'text' && after.value.startsWith(']');
  };
  return children.map((child, i) => {
    if (child.type !== 'text') return child;
    const value = child.value.slice(i > 1 && opens(i - 2) ? 1 : 0, opens(i) ? -1 : undefined);
    return value === child.value ? child : { ...child, value };
  });
}

/** What a reader reads of a node: its text, code and images' alt text, no marks, blanks collapsed. */
function plainOf(nodes: readonly Nodes[]): string {
  const parts: string[] = [];
  const walk = (node: Nodes) => {
    if (node.type === 'text') parts.push(readable(node.value));
    else if (node.type === 'inlineCode' || node.type === 'code') parts.push(node.value);
    else if (node.type === 'image' || node.type === 'imageReference') parts.push(node.alt ?? '');
    else if (node.type === 'html') parts.push(breaksLine(node.value) ? ` ${htmlText(node.value)} ` : htmlText(node.value));
    if ('children' in node) for (const child of unbracketed(node.children as Nodes[])) walk(child);
    if (SPACED.has(node.type)) parts.push(' ');
  };
  for (const node of nodes) walk(node);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/**
 * A paragraph's lines as sentences: its lines joined (a sentence wrapped over two lines is one),
 * a line with no sentence end apart from the prose around it, a doc comment's tag line left out.
 */
function paragraphBlock(text: string, lang: string, plain: string | null, kind: 'paragraph' | 'heading' = 'paragraph'): PassageBlock | null {
  const lines = text
    .split('\n')
    .map((line) => readable(line).replace(/\s+/g, ' ').trim())
    .filter((line) => line && !DOC_TAG.test(line));
  if (lines.length === 0) return null;
  const sentences: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) sentences.push(...splitSentences(run.join(' '), lang).flatMap(unglued));
    run = [];
  };
  for (const line of lines) {
    if (runsOn(line, lang)) {
      flush();
      sentences.push(line);
    } else run.push(line);
  }
  flush();
  const whole = new Set(lines);
  const alone = sentences.flatMap((sentence, i) => (whole.has(sentence) ? [i] : []));
  const quoted = lines.join('\n');
  return withTerms({ kind, text: quoted, plain: plain ?? lines.join(' '), sentences, ...(alone.length ? { alone } : {}) });
}

type List = Extract<Nodes, { type: 'list' }>;

/**
 * Where a code block stood in a list's text before it was made readable (see `quotedList`): NUL,
 * which no parsed page holds (CommonMark reads it as U+FFFD), around the code's number.
 */
// eslint-disable-next-line no-control-regex
const HELD_CODE = /^([^\n\u0000]*)\u0000(\d+)\u0000/gm;

/**
 * A list as quoted: readable Markdown with its markers, and the code blocks inside its items kept
 * where they stand, fenced and indented with their item. The code is held apart while the prose is
 * made readable, so a wiki link's brackets in code stay as written.
 */
function quotedList(node: List, base: string | undefined): string {
  const fences: string[] = [];
  const held: BlockText = {
    body: '',
    code: [],
    lang: '',
    inPlace: (code) => {
      fences.push(fence(code.value, code.lang ?? ''));
      return `\u0000${fences.length - 1}\u0000`;
    },
  };
  const text = readable(listText(node, '', held, base));
  return text.replace(HELD_CODE, (_, lead: string, i: string) => {
    const pad = ' '.repeat(lead.length);
    return fences[Number(i)]!.split('\n').map((line, k) => (k === 0 ? lead : line ? pad : '') + line).join('\n');
  });
}

/** A list's items as quoted (see `quotedList`), each with its own lines. */
const listItems = (node: List, base: string | undefined): string[] => node.children.map((item, i) => quotedList({ ...node, start: (node.start ?? 1) + i, children: [item] }, base));

/** The blocks of a run of mdast nodes, in page order (containers read as their content, their title as a bold line). */
function blocksOf(nodes: readonly RootContent[], base: string | undefined, lang: string, out: PassageBlock[]): PassageBlock[] {
  for (const node of nodes) {
    switch (node.type) {
      case 'paragraph': {
        const block = paragraphBlock(phrasing(node.children, base).trim(), lang, plainOf([node]));
        if (block) out.push(block);
        break;
      }
      case 'heading': {
        const block = paragraphBlock(phrasing(node.children, base).trim(), lang, plainOf([node]), 'heading');
        if (block) out.push(block);
        break;
      }
      case 'code':
        if (node.value.trim()) out.push(codeBlock(node.value, node.lang ?? undefined));
        break;
      case 'list': {
        const text = quotedList(node, base);
        if (!text.trim()) break;
        const items = listItems(node, base);
        // A list of labelled entries ("- **Accessibility.** …", "- **CSP.** …") is a glossary: each
        // entry stands alone, so each is a block of its own, quoted whole without the others.
        if (isGlossary(node)) {
          node.children.forEach((item, i) => out.push(withTerms({ kind: 'list', text: items[i]!, plain: plainOf([item]), sentences: [items[i]!] })));
          break;
        }
        out.push(withTerms({ kind: node.ordered ? 'steps' : 'list', text, plain: plainOf([node]), sentences: items }));
        break;
      }
      case 'table': {
        const text = readable(tableText(node, base));
        const plain = plainOf([node]);
        if (plain) out.push(withTerms({ kind: 'table', text, plain, sentences: [] }));
        break;
      }
      case 'blockquote': {
        // A callout (`> [!Warning] Title`) is a container: its title a bold line, its content blocks
        // of their own, so its list is quoted whole (and never read as part of the list before it).
        const callout = calloutOf(node);
        if (callout) {
          blocksOf([...titleBlock(callout.title), ...callout.children], base, lang, out);
          break;
        }
        const inner = blocksOf(node.children, base, lang, []);
        const sentences = inner.flatMap((block) => (block.kind === 'code' || block.kind === 'table' ? [] : block.sentences));
        const text = inner.map((block) => block.text).join('\n\n');
        if (text.trim()) out.push(withTerms({ kind: 'quote', text, plain: inner.map((block) => block.plain).join(' '), sentences }));
        break;
      }
      case 'html': {
        const text = htmlText(node.value);
        const block = paragraphBlock(text, lang, text.replace(/\s+/g, ' ').trim());
        if (block) out.push(block);
        break;
      }
      case 'mdxJsxFlowElement':
      case 'containerDirective': {
        const { title, children } = container(node);
        blocksOf([...titleBlock(title), ...children], base, lang, out);
        break;
      }
      case 'yaml':
      case 'mdxjsEsm':
      case 'mdxFlowExpression':
      case 'definition':
      case 'thematicBreak':
        break;
      default: {
        if ('children' in node) blocksOf(node.children as RootContent[], base, lang, out);
        else {
          const text = blockText(node, { body: '', code: [], lang: '' }, '', base);
          const block = text ? paragraphBlock(text, lang, null) : null;
          if (block) out.push(block);
        }
      }
    }
  }
  return out;
}

/** Fewer entries than this, a labelled list is read as one list: it is short enough to quote whole. */
const GLOSSARY_ENTRIES = 4;

/** A bulleted list whose every entry opens with a bold label (`- **Label.** text`), of `GLOSSARY_ENTRIES` or more. */
function isGlossary(node: Extract<Nodes, { type: 'list' }>): boolean {
  if (node.ordered || node.children.length < GLOSSARY_ENTRIES) return false;
  return node.children.every((item) => {
    const first = item.children[0];
    return first?.type === 'paragraph' && first.children[0]?.type === 'strong';
  });
}

/** A callout's marker at the start of a quote's first line: `[!note]`, `[!Warning]-`. */
const CALLOUT_MARKER = /^\[![\w-]+\][-+]?[ \t]*/;

/**
 * A quote that is a callout (Obsidian's and GitHub's `> [!Warning] Title`): its title (the rest of
 * the marker's line, '' when none) and its content (the first paragraph without that line, then the
 * quote's other blocks); null for a plain quote.
 */
function calloutOf(node: Extract<Nodes, { type: 'blockquote' }>): { title: string; children: RootContent[] } | null {
  const [first, ...rest] = node.children;
  const lead = first?.type === 'paragraph' ? first.children[0] : undefined;
  if (!first || first.type !== 'paragraph' || lead?.type !== 'text') return null;
  const marker = CALLOUT_MARKER.exec(lead.value);
  if (!marker) return null;
  const after = lead.value.slice(marker[0].length);
  const end = after.indexOf('\n');
  // The title is the marker's line when the content goes on below it; a marker line alone has none.
  const title = end === -1 && first.children.length > 1 ? '' : (end === -1 ? after : after.slice(0, end)).trim();
  const remaining = end === -1 ? (title ? [] : [{ ...lead, value: after }, ...first.children.slice(1)]) : [{ ...lead, value: after.slice(end + 1) }, ...first.children.slice(1)];
  const paragraph = remaining.some((child) => child.type !== 'text' || child.value.trim()) ? [{ ...first, children: remaining }] : [];
  return { title, children: [...paragraph, ...rest] };
}

/** The passage of a run of a page's blocks; links resolved against `base`, sentences split by the page's `lang`. */
export function passageOf(nodes: readonly RootContent[], options: { base?: string; lang?: string } = {}): Passage {
  const lang = options.lang ?? '';
  const links = linksOf(nodes, options.base);
  return { lang, blocks: blocksOf(nodes, options.base, lang, []), ...(links.length > 0 ? { links } : {}) };
}

/** What a link is read with, in words: a longer paragraph says more than what it links to, so the link's own text alone is kept. */
export const MAX_LINK_CONTEXT_WORDS = 30;
/** How many links of one section are kept (the first): a page of links says what it links to in its first hundred. */
export const MAX_SECTION_LINKS = 100;

/**
 * The links of a run of blocks to addresses a reader can follow, each with what it stands in: its
 * list item (the item's own paragraphs, not its nested lists), its table row, or its paragraph
 * when that is short, else its own text ("[Transfer account ownership](…): hand over account
 * control when someone leaves"; "| Download data for a spreadsheet | [CSV export](…) |").
 * Iterative, so a deeply nested list costs no stack.
 */
export function linksOf(nodes: readonly RootContent[], base: string | undefined): PassageLink[] {
  const out: PassageLink[] = [];
  const stack: { node: Nodes; around: string | null }[] = nodes.map((node) => ({ node, around: null })).reverse();
  while (stack.length > 0 && out.length < MAX_SECTION_LINKS) {
    const { node, around } = stack.pop()!;
    if (node.type === 'link') {
      const url = linkTarget(node.url, base);
      const own = phrasingPlain(node.children).trim();
      const text = around !== null && around.split(' ').length <= MAX_LINK_CONTEXT_WORDS ? around : own;
      if (url && text) out.push({ url, text });
      continue;
    }
    if (!('children' in node)) continue;
    let next = around;
    if (node.type === 'listItem') next = node.children.flatMap((child) => (child.type === 'paragraph' ? [phrasingPlain(child.children)] : [])).join(' ').trim();
    else if (node.type === 'tableRow') next = node.children.map((cell) => phrasingPlain(cell.children)).join(' ').trim();
    else if ((node.type === 'paragraph' || node.type === 'heading') && around === null) next = phrasingPlain(node.children as PhrasingContent[]).trim();
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i] as Nodes, around: next });
  }
  return out;
}

/** The passage of text with no tree: its paragraphs (apart at blank lines), then its code as one block. */
export function passageOfText(body: string, code = '', lang = '', codeLang = ''): Passage {
  const blocks = body
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraphBlock(paragraph, lang, null))
    .filter((block): block is PassageBlock => block !== null);
  if (code.trim()) blocks.push(codeBlock(code, codeLang));
  return { lang, blocks };
}

