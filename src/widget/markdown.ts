/**
 * @module A small CommonMark/GFM parser producing a plain AST (never HTML). Raw HTML in the source stays
 * text; the renderer decides what becomes a link.
 *
 * Why hand-written: every Markdown library for the browser (markdown-it, marked, micromark) produces an
 * HTML string, which would have to reach the page through `innerHTML` — a sink the widget's strict CSP
 * and Trusted Types forbid — and each would cost more than the widget's whole size budget. This parser
 * returns a tree that the renderer turns into Lit text bindings. It follows CommonMark and GFM tables;
 * test/markdown-differential.test.ts proves it against markdown-it and lists what it leaves out on
 * purpose. Every loop is linear in the input: blocks recurse at most MAX_DEPTH containers deep, inline
 * emphasis and links use CommonMark's delimiter stack with its "openers bottom", and code spans find
 * their closers from one index of backtick runs.
 *
 * This module is the widget's on-demand reader of answers (dist/markdown.js, loaded when a panel first
 * shows), so it also carries the event-stream parser the streamed answer is read with
 * (controllers/stream.ts): neither is in the bundle a page loads first.
 */
export { createParser } from 'eventsource-parser';

export type Inline =
  | string
  | { t: 'code'; text: string }
  | { t: 'strong'; c: Inline[] }
  | { t: 'em'; c: Inline[] }
  | { t: 'link'; href: string; c: Inline[] }
  | { t: 'image'; href: string; alt: string }
  | { t: 'br' };

export type Align = 'left' | 'center' | 'right' | null;

export type Block =
  | { t: 'p'; c: Inline[] }
  | { t: 'h'; level: number; c: Inline[] }
  | { t: 'code'; lang: string; text: string }
  | { t: 'quote'; c: Block[] }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'table'; align: Align[]; head: Inline[][]; rows: Inline[][][] }
  | { t: 'hr' };

/** Containers (quotes, list items) nest at most this deep; deeper text stays a paragraph. */
const MAX_DEPTH = 8;
/** An image's description is cut here (nested images would otherwise copy it again at every level). */
const MAX_ALT = 500;

/** Counts parses, so a test can tell a cached render from a fresh one. */
export const parseStats = { count: 0 };

// ---------------------------------------------------------------------------------------------------
// Blocks

const isBlank = (line: string) => !line.trim();
/** Marks a lazy continuation line: it continues a paragraph and can be nothing else (no input has \0). */
const LAZY = '\0';
const lazyLine = (line: string) => LAZY + (line[0] === LAZY ? line.slice(1) : line).trimStart();

function indentOf(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 32) n++;
  return n;
}

/** Tabs in a line's indentation become spaces to the next multiple of four, as CommonMark counts them. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let i = 0;
  for (; i < line.length && (line[i] === ' ' || line[i] === '\t'); i++) out += line[i] === ' ' ? ' ' : ' '.repeat(4 - (out.length % 4));
  return out + line.slice(i);
}

interface Fence {
  ch: string;
  len: number;
  indent: number;
  info: string;
}

function openFence(line: string): Fence | null {
  const indent = indentOf(line);
  if (indent > 3) return null;
  const ch = line[indent];
  if (ch !== '`' && ch !== '~') return null;
  let end = indent;
  while (line[end] === ch) end++;
  const len = end - indent;
  if (len < 3) return null;
  const info = line.slice(end).trim();
  if (ch === '`' && info.includes('`')) return null;
  return { ch, len, indent, info };
}

function closesFence(line: string, fence: Fence): boolean {
  const indent = indentOf(line);
  if (indent > 3) return false;
  let end = indent;
  while (line[end] === fence.ch) end++;
  return end - indent >= fence.len && !line.slice(end).trim();
}

function atxHeading(line: string): { level: number; text: string } | null {
  const indent = indentOf(line);
  if (indent > 3) return null;
  let end = indent;
  while (line[end] === '#') end++;
  const level = end - indent;
  if (level < 1 || level > 6 || (end < line.length && line[end] !== ' ' && line[end] !== '\t')) return null;
  let text = line.slice(end).trim();
  // A closing run of #s is dropped only when a space precedes it: "Using C#" keeps its "#".
  let j = text.length;
  while (j > 0 && text[j - 1] === '#') j--;
  if (j === 0) text = '';
  else if (j < text.length && (text[j - 1] === ' ' || text[j - 1] === '\t')) text = text.slice(0, j).trim();
  return { level, text };
}

function isThematicBreak(line: string): boolean {
  if (indentOf(line) > 3) return false;
  let marker = '';
  let count = 0;
  for (const ch of line) {
    if (ch === ' ' || ch === '\t') continue;
    if (ch !== '*' && ch !== '-' && ch !== '_') return false;
    if (marker && ch !== marker) return false;
    marker = ch;
    count++;
  }
  return count >= 3;
}

function setextLevel(line: string): number {
  if (indentOf(line) > 3) return 0;
  const text = line.trim();
  const ch = text[0];
  if (ch !== '=' && ch !== '-') return 0;
  for (const c of text) if (c !== ch) return 0;
  return ch === '=' ? 1 : 2;
}

interface Marker {
  /** '-', '+', '*', or the delimiter of an ordered list ('.' or ')'). */
  kind: string;
  ordered: boolean;
  start: number;
  /** Where the item's content begins: lines indented this far belong to it. */
  contentIndent: number;
  /** The text on the marker's line, after the marker. */
  first: string;
  empty: boolean;
}

function listMarker(line: string): Marker | null {
  const indent = indentOf(line);
  if (indent > 3) return null;
  let end = indent;
  let ordered = false;
  let kind = line[indent] ?? '';
  if (kind === '-' || kind === '+' || kind === '*') end++;
  else {
    while (end - indent < 10 && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
    const digits = end - indent;
    kind = line[end] ?? '';
    if (digits < 1 || digits > 9 || (kind !== '.' && kind !== ')')) return null;
    ordered = true;
    end++;
  }
  if (end < line.length && line[end] !== ' ') return null;
  const start = ordered ? parseInt(line.slice(indent, end - 1), 10) : 1;
  const rest = line.slice(end);
  const spaces = indentOf(rest);
  if (!rest.trim()) return { kind, ordered, start, contentIndent: end + 1, first: '', empty: true };
  // Five or more spaces after the marker: the content is indented code, one space in.
  const gap = spaces > 4 ? 1 : spaces;
  return { kind, ordered, start, contentIndent: end + gap, first: rest.slice(gap), empty: false };
}

const isQuote = (line: string) => indentOf(line) <= 3 && line[indentOf(line)] === '>';

function stripQuote(line: string): string {
  const at = indentOf(line) + 1;
  return line[at] === ' ' ? line.slice(at + 1) : line.slice(at);
}

/** Splits a table row at unescaped pipes (GFM); a leading and a trailing pipe are optional. */
function splitRow(line: string): string[] {
  const cells: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && line[i + 1] === '|') {
      current += '|';
      i++;
    } else if (ch === '|') {
      cells.push(current);
      current = '';
    } else current += ch;
  }
  cells.push(current);
  if (cells[0]!.trim() === '') cells.shift();
  if (cells.length && cells.at(-1)!.trim() === '') cells.pop();
  return cells.map((cell) => cell.trim());
}

function delimiterRow(line: string): Align[] | null {
  if (indentOf(line) > 3) return null;
  const text = line.trim();
  // As markdown-it: two characters at least, and "- " is a list item, not a column.
  if (!/^[|:-][-|: \t]*$/.test(text) || !text.includes('-') || /^-(\s|$)/.test(line.trimStart())) return null;
  const cells = text.split('|');
  const align: Align[] = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!.trim();
    if (!cell) {
      if (i === 0 || i === cells.length - 1) continue;
      return null;
    }
    if (!/^:?-+:?$/.test(cell)) return null;
    const left = cell.startsWith(':');
    const right = cell.endsWith(':');
    align.push(left && right ? 'center' : right ? 'right' : left ? 'left' : null);
  }
  return align;
}

/** The header and alignment of a table starting at `lines[i]`, or null. */
function tableStart(lines: string[], i: number): { head: string[]; align: Align[] } | null {
  const line = lines[i]!;
  if (!line.includes('|') || indentOf(line) > 3 || i + 1 >= lines.length) return null;
  const align = delimiterRow(lines[i + 1]!);
  if (!align) return null;
  const head = splitRow(line.trim());
  return head.length && head.length === align.length ? { head, align } : null;
}

/** A line that ends a paragraph (and so is never a lazy continuation of one). */
function interruptsParagraph(line: string): boolean {
  if (isBlank(line) || openFence(line) || atxHeading(line) || isThematicBreak(line) || isQuote(line)) return true;
  const item = listMarker(line);
  return !!item && !item.empty && (!item.ordered || item.start === 1);
}

/** A line that ends a table's body: a blank line or the start of another block. */
function endsTable(line: string): boolean {
  return isBlank(line) || indentOf(line) >= 4 || !!(openFence(line) || atxHeading(line) || isThematicBreak(line) || isQuote(line) || listMarker(line));
}

/** Whether a container's last line leaves a paragraph open (so that a lazy line may continue it). */
function endsInParagraph(line: string, depth = 0): boolean {
  if (line[0] === LAZY) return true;
  if (isBlank(line) || indentOf(line) >= 4 || atxHeading(line) || isThematicBreak(line) || openFence(line) || depth > MAX_DEPTH) return false;
  const item = listMarker(line);
  if (item) return !item.empty && endsInParagraph(item.first, depth + 1);
  return isQuote(line) ? endsInParagraph(stripQuote(line), depth + 1) : true;
}

/** Whether a paragraph is open after `line`, given whether one was open before it. */
function paragraphAfter(open: boolean, line: string): boolean {
  if (line[0] === LAZY) return true;
  if (isBlank(line)) return false;
  if (open && (indentOf(line) >= 4 || (!interruptsParagraph(line) && !setextLevel(line)))) return true;
  return endsInParagraph(line);
}

/** The body of an open fence, and the line after it. */
function fenceBody(lines: string[], i: number, fence: Fence): { text: string; next: number } {
  const body: string[] = [];
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (closesFence(line, fence)) return { text: body.join('\n'), next: i + 1 };
    body.push(line.slice(Math.min(fence.indent, indentOf(line))));
  }
  return { text: body.join('\n'), next: i };
}

function parseBlocks(lines: string[], depth: number): Block[] {
  const out: Block[] = [];
  let para: string[] = [];
  const endParagraph = () => {
    if (para.length) out.push({ t: 'p', c: parseInline(para.join('\n').trim()) });
    para = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      endParagraph();
      i++;
      continue;
    }
    if (line[0] === LAZY) {
      para.push(line.slice(1));
      i++;
      continue;
    }
    const indent = indentOf(line);
    if (indent >= 4) {
      if (para.length) {
        para.push(line);
        i++;
        continue;
      }
      const body: string[] = [];
      while (i < lines.length && (isBlank(lines[i]!) || indentOf(lines[i]!) >= 4)) body.push(lines[i++]!.slice(4));
      while (body.length && isBlank(body.at(-1)!)) body.pop();
      out.push({ t: 'code', lang: '', text: body.join('\n') });
      continue;
    }
    const fence = openFence(line);
    if (fence) {
      endParagraph();
      const { text, next } = fenceBody(lines, i + 1, fence);
      out.push({ t: 'code', lang: unescape(fence.info).split(/\s/)[0]!, text });
      i = next;
      continue;
    }
    const heading = atxHeading(line);
    if (heading) {
      endParagraph();
      out.push({ t: 'h', level: heading.level, c: parseInline(heading.text) });
      i++;
      continue;
    }
    const setext = para.length ? setextLevel(line) : 0;
    if (setext) {
      out.push({ t: 'h', level: setext, c: parseInline(para.join('\n').trim()) });
      para = [];
      i++;
      continue;
    }
    if (isThematicBreak(line)) {
      endParagraph();
      out.push({ t: 'hr' });
      i++;
      continue;
    }
    if (isQuote(line)) {
      endParagraph();
      const body: string[] = [];
      let fenced: Fence | null = null;
      let open = false;
      while (i < lines.length) {
        const current = lines[i]!;
        if (isQuote(current)) body.push(stripQuote(current));
        // A lazy line continues the quote's paragraph; a line that starts any block (even an empty item) does not.
        else if (open && !interruptsParagraph(current) && !listMarker(current)) body.push(lazyLine(current));
        else break;
        const last = body.at(-1)!;
        if (fenced) fenced = closesFence(last, fenced) ? null : fenced;
        else fenced = openFence(last);
        open = !fenced && paragraphAfter(open, last);
        i++;
      }
      out.push(depth < MAX_DEPTH ? { t: 'quote', c: parseBlocks(body, depth + 1) } : { t: 'p', c: parseInline(body.join('\n').trim()) });
      continue;
    }
    const item = listMarker(line);
    if (item && (!para.length || (!item.empty && (!item.ordered || item.start === 1)))) {
      endParagraph();
      i = parseList(lines, i, item, depth, out);
      continue;
    }
    const table = line.includes('|') ? tableStart(lines, i) : null;
    if (table) {
      endParagraph();
      const { head, align } = table;
      i += 2;
      const rows: Inline[][][] = [];
      while (i < lines.length && !endsTable(lines[i]!)) {
        const cells = splitRow(lines[i++]!.trim());
        rows.push(head.map((_, k) => parseInline(cells[k] ?? '')));
      }
      out.push({ t: 'table', align, head: head.map((h) => parseInline(h)), rows });
      continue;
    }
    para.push(line);
    i++;
  }
  endParagraph();
  return out;
}

/** Parses the list whose first item is at `lines[i]` into `out`; returns the line after it. */
function parseList(lines: string[], i: number, first: Marker, depth: number, out: Block[]): number {
  const items: string[][] = [];
  let marker: Marker | null = first;
  while (marker && marker.kind === first.kind && marker.ordered === first.ordered) {
    const body = [marker.first];
    i++;
    let fenced = openFence(marker.first);
    let open = !fenced && paragraphAfter(false, marker.first);
    if (!(marker.empty && i < lines.length && isBlank(lines[i]!))) {
      while (i < lines.length) {
        const line = lines[i]!;
        let taken: string;
        if (isBlank(line)) taken = '';
        else if (indentOf(line) >= marker.contentIndent) taken = line.slice(marker.contentIndent);
        // A lazy line continues the item's paragraph; a line that starts any block (even an empty item) does not.
        else if (open && !interruptsParagraph(line) && !listMarker(line)) taken = lazyLine(line);
        else break;
        body.push(taken);
        if (fenced) fenced = closesFence(taken, fenced) ? null : fenced;
        else if (!isBlank(taken)) fenced = openFence(taken);
        open = !fenced && paragraphAfter(open, taken);
        i++;
      }
    }
    // Blank lines after the item belong to whatever follows it.
    while (body.length > 1 && isBlank(body.at(-1)!)) {
      body.pop();
      i--;
    }
    items.push(body);
    let next = i;
    while (next < lines.length && isBlank(lines[next]!)) next++;
    marker = next < lines.length && !isThematicBreak(lines[next]!) ? listMarker(lines[next]!) : null;
    if (marker) i = next;
  }
  out.push({
    t: 'list',
    ordered: first.ordered,
    start: first.start,
    items: items.map((body) => (depth < MAX_DEPTH ? parseBlocks(body, depth + 1) : [{ t: 'p', c: parseInline(body.join('\n').trim()) }])),
  });
  return i;
}

/** Parses Markdown into blocks. Linear in the input; containers nest at most eight deep. */
export function parseMarkdown(source: string): Block[] {
  parseStats.count++;
  const lines = source.replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD').split('\n').map(expandTabs);
  // A final line ending ends the last line; it does not start an empty one.
  if (lines.at(-1) === '') lines.pop();
  return parseBlocks(lines, 0);
}

// ---------------------------------------------------------------------------------------------------
// Inlines

/** The named references answers use (name, then character); any other name stays as written. */
const ENTITIES: Record<string, string> = Object.fromEntries(
  'amp& lt< gt> quot" apos\' nbsp\u00a0 mdash— ndash– hellip… copy© reg® trade™ laquo« raquo» lsquo‘ rsquo’ ldquo“ rdquo” times× deg° rarr→ larr← le≤ ge≥ ne≠ euro€ bull• middot·'
    .split(' ')
    .map((pair) => [pair.slice(0, -1), pair.slice(-1)]),
);

const ENTITY = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{0,31}));/y;
// eslint-disable-next-line no-control-regex -- CommonMark: an autolink holds no control characters
const AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>\x00-\x1f\x7f]*)>/y;
const EMAIL = /<([\w.!#$%&'*+/=?^`{|}~-]+@[a-zA-Z\d](?:[a-zA-Z\d-]{0,61}[a-zA-Z\d])?(?:\.[a-zA-Z\d](?:[a-zA-Z\d-]{0,61}[a-zA-Z\d])?)*)>/y;
const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const PUNCT = /[\p{P}\p{S}]/u;
const SPACE = /\s/u;

/** The character an entity names at `text[i]` ('&'), and its length; null when it names none the widget knows. */
function entityAt(text: string, i: number): [string, number] | null {
  ENTITY.lastIndex = i;
  const m = ENTITY.exec(text);
  if (!m) return null;
  if (m[3]) return ENTITIES[m[3]] ? [ENTITIES[m[3]]!, m[0].length] : null;
  const code = parseInt(m[1] ?? m[2]!, m[1] ? 16 : 10);
  const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
  return [valid ? String.fromCodePoint(code) : '\uFFFD', m[0].length];
}

/** The target and text of an autolink (`<https://…>`, `<name@example.com>`) at `text[i]` ('<'). */
function autolinkAt(text: string, i: number): [string, string] | null {
  AUTOLINK.lastIndex = EMAIL.lastIndex = i;
  const uri = AUTOLINK.exec(text)?.[1];
  const email = uri ? null : EMAIL.exec(text)?.[1];
  return uri ? [uri, uri] : email ? [`mailto:${email}`, email] : null;
}

/** Backslash escapes and entities resolved, as in link destinations and code info strings. */
function unescape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && ASCII_PUNCT.test(text[i + 1] ?? '')) out += text[++i];
    else if (ch === '&' && entityAt(text, i)) {
      const [value, length] = entityAt(text, i)!;
      out += value;
      i += length - 1;
    } else out += ch;
  }
  return out;
}

/** The plain text of inlines (an image's description), at most 500 characters. */
export function inlineText(nodes: Inline[]): string {
  let out = '';
  for (const node of nodes) {
    if (out.length >= MAX_ALT) break;
    if (typeof node === 'string') out += node;
    else if (node.t === 'code') out += node.text;
    else if (node.t === 'image') out += node.alt;
    else if (node.t === 'br') out += '\n';
    else out += inlineText(node.c);
  }
  return out.slice(0, MAX_ALT);
}

/** One piece of a paragraph while it is parsed: text, a finished node, or a run of `*`/`_`. */
interface Item {
  v: Inline;
  prev: Item | null;
  next: Item | null;
}

interface Delimiter {
  item: Item;
  ch: string;
  /** Characters left in the run, and the run's original length (for the rule of three). */
  n: number;
  orig: number;
  open: boolean;
  close: boolean;
  prev: Delimiter | null;
  next: Delimiter | null;
}

interface Bracket {
  item: Item;
  image: boolean;
  active: boolean;
  /** The delimiter on top of the stack when this bracket opened: emphasis inside a link stops there. */
  delimiter: Delimiter | null;
  prev: Bracket | null;
}

/** An inline link's destination after `](`, from `text[i]` ('('); null when there is none. */
function linkTail(text: string, i: number): { href: string; end: number } | null {
  let p = i + 1;
  const skip = () => {
    const from = p;
    let lines = 0;
    while (p < text.length && (text[p] === ' ' || text[p] === '\t' || (text[p] === '\n' && ++lines === 1))) p++;
    return p > from;
  };
  skip();
  let href = '';
  if (text[p] === '<') {
    const from = ++p;
    while (p < text.length && text[p] !== '>' && text[p] !== '<' && text[p] !== '\n') p += text[p] === '\\' ? 2 : 1;
    if (text[p] !== '>') return null;
    href = text.slice(from, p++);
  } else {
    const from = p;
    let parens = 0;
    for (; p < text.length; p++) {
      const code = text.charCodeAt(p);
      if (code <= 0x20 || code === 0x7f) break;
      if (code === 0x5c && ASCII_PUNCT.test(text[p + 1] ?? '')) p++;
      else if (code === 0x28 && ++parens > 32) return null;
      else if (code === 0x29 && parens-- === 0) break;
    }
    if (parens > 0) return null;
    href = text.slice(from, p);
  }
  if (skip() && (text[p] === '"' || text[p] === "'" || text[p] === '(')) {
    const close = text[p] === '(' ? ')' : text[p]!;
    for (p++; p < text.length && text[p] !== close; p++) {
      if (text[p] === '\\') p++;
      else if (close === ')' && text[p] === '(') return null;
    }
    if (p >= text.length) return null;
    p++;
    skip();
  }
  return text[p] === ')' ? { href: unescape(href), end: p + 1 } : null;
}

/** Parses inline Markdown: code spans, links, images, autolinks, emphasis, entities, hard breaks. */
export function parseInline(text: string): Inline[] {
  return new InlineParser(text)._parse();
}

/**
 * One paragraph's inline parse (CommonMark's algorithm): its pieces as a linked list, the stacks
 * of emphasis delimiters and of open brackets, and the text not yet made a piece. Members start
 * with `_`, so the build gives them short names.
 */
class InlineParser {
  private _head: Item | null = null;
  private _tail: Item | null = null;
  private _delimiters: Delimiter | null = null;
  private _brackets: Bracket | null = null;
  private _buffer = '';
  /** Backtick runs by length, found once, and how far each length's closers have been used up. */
  private _runs: Map<number, number[]> | null = null;
  private _used = new Map<number, number>();

  constructor(private _text: string) {}

  /** Reads the text once, left to right, each character by what it may start. */
  _parse(): Inline[] {
    const text = this._text;
    let i = 0;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '\\') i = this._backslash(i);
      else if (ch === '`') i = this._codeSpan(i);
      else if (ch === '*' || ch === '_') i = this._delimiterRun(i);
      else if (ch === '[' || (ch === '!' && text[i + 1] === '[')) {
        this._flush();
        const image = ch === '!';
        this._brackets = { item: this._append(image ? '![' : '['), image, active: true, delimiter: this._delimiters, prev: this._brackets };
        i += image ? 2 : 1;
      } else if (ch === ']') i = this._closeBracket(i);
      else if (ch === '<' && autolinkAt(text, i)) {
        const [href, label] = autolinkAt(text, i)!;
        this._flush();
        this._append({ t: 'link', href, c: [label] });
        i += label.length + 2;
      } else if (ch === '&' && entityAt(text, i)) {
        const [value, length] = entityAt(text, i)!;
        this._buffer += value;
        i += length;
      } else if (ch === '\n') i = this._lineEnd(i);
      else {
        this._buffer += ch;
        i++;
      }
    }
    this._flush();
    this._processEmphasis(null);
    return this._collect(this._head, null);
  }

  private _append(v: Inline): Item {
    const item: Item = { v, prev: this._tail, next: null };
    if (this._tail) this._tail.next = item;
    else this._head = item;
    this._tail = item;
    return item;
  }

  private _flush(): void {
    if (this._buffer) this._append(this._buffer);
    this._buffer = '';
  }

  private _unlink(item: Item): void {
    if (item.prev) item.prev.next = item.next;
    else this._head = item.next;
    if (item.next) item.next.prev = item.prev;
    else this._tail = item.prev;
  }

  private _removeDelimiter(d: Delimiter): void {
    if (d.prev) d.prev.next = d.next;
    if (d.next) d.next.prev = d.prev;
    else this._delimiters = d.prev;
  }

  /** The pieces from `from` up to `to`, adjacent text joined. */
  private _collect(from: Item | null, to: Item | null): Inline[] {
    const nodes: Inline[] = [];
    for (let item = from; item && item !== to; item = item.next) {
      const last = nodes.at(-1);
      if (typeof item.v === 'string' && typeof last === 'string') nodes[nodes.length - 1] = last + item.v;
      else nodes.push(item.v);
    }
    return nodes;
  }

  /** A backslash: a hard break before a line end, an escaped punctuation character, else itself. */
  private _backslash(i: number): number {
    const text = this._text;
    const next = text[i + 1] ?? '';
    if (next === '\n') {
      this._flush();
      this._append({ t: 'br' });
      i += 2;
      while (text[i] === ' ' || text[i] === '\t') i++;
      return i;
    }
    if (ASCII_PUNCT.test(next)) {
      this._buffer += next;
      return i + 2;
    }
    this._buffer += '\\';
    return i + 1;
  }

  /** A run of `*` or `_`: a piece of its own, on the delimiter stack when it may open or close emphasis. */
  private _delimiterRun(i: number): number {
    const text = this._text;
    const ch = text[i]!;
    let end = i;
    while (text[end] === ch) end++;
    const before = i > 0 ? text[i - 1]! : ' ';
    const after = end < text.length ? text[end]! : ' ';
    const spaceBefore = SPACE.test(before);
    const spaceAfter = SPACE.test(after);
    const punctBefore = PUNCT.test(before);
    const punctAfter = PUNCT.test(after);
    const left = !spaceAfter && (!punctAfter || spaceBefore || punctBefore);
    const right = !spaceBefore && (!punctBefore || spaceAfter || punctAfter);
    const open = ch === '*' ? left : left && (!right || punctBefore);
    const close = ch === '*' ? right : right && (!left || punctAfter);
    this._flush();
    const item = this._append(text.slice(i, end));
    if (open || close) {
      const d: Delimiter = { item, ch, n: end - i, orig: end - i, open, close, prev: this._delimiters, next: null };
      if (this._delimiters) this._delimiters.next = d;
      this._delimiters = d;
    }
    return end;
  }

  /** A line end: a hard break after two spaces, else a space; the next line's indent dropped. */
  private _lineEnd(i: number): number {
    const text = this._text;
    // The buffer holds this line's text only (it is flushed at every line end), so this stays linear.
    let end = this._buffer.length;
    while (this._buffer.charCodeAt(end - 1) === 32) end--;
    const hard = this._buffer.length - end >= 2;
    this._buffer = this._buffer.slice(0, end);
    this._flush();
    if (hard) this._append({ t: 'br' });
    else this._buffer = ' ';
    i++;
    while (text[i] === ' ' || text[i] === '\t') i++;
    return i;
  }

  /** CommonMark's "process emphasis" over the delimiters above `bottom`. */
  private _processEmphasis(bottom: Delimiter | null): void {
    const openersBottom = new Map<string, Delimiter | null>();
    let closer: Delimiter | null = this._delimiters === bottom ? null : this._delimiters;
    while (closer && closer.prev !== bottom) closer = closer.prev;
    while (closer) {
      if (!closer.close) {
        closer = closer.next;
        continue;
      }
      const key = `${closer.ch}${closer.open ? 1 : 0}${closer.orig % 3}`;
      const floor = openersBottom.has(key) ? openersBottom.get(key)! : bottom;
      let opener: Delimiter | null = closer.prev;
      while (opener && opener !== bottom && opener !== floor) {
        const oddMatch = (closer.open || opener.close) && (opener.orig + closer.orig) % 3 === 0 && (opener.orig % 3 !== 0 || closer.orig % 3 !== 0);
        if (opener.ch === closer.ch && opener.open && !oddMatch) break;
        opener = opener.prev;
      }
      if (opener && opener !== bottom && opener !== floor) closer = this._emphasis(opener, closer);
      else {
        openersBottom.set(key, closer.prev);
        const next: Delimiter | null = closer.next;
        if (!closer.open) this._removeDelimiter(closer);
        closer = next;
      }
    }
    while (this._delimiters && this._delimiters !== bottom) this._removeDelimiter(this._delimiters);
  }

  /** Makes what lies between a matched opener and closer emphasis (one character each) or strong (two); the closer to go on from. */
  private _emphasis(opener: Delimiter, closer: Delimiter): Delimiter | null {
    const use = opener.n >= 2 && closer.n >= 2 ? 2 : 1;
    opener.n -= use;
    closer.n -= use;
    opener.item.v = (opener.item.v as string).slice(use);
    closer.item.v = (closer.item.v as string).slice(use);
    const inner = this._collect(opener.item.next, closer.item);
    const node: Item = { v: use === 2 ? { t: 'strong', c: inner } : { t: 'em', c: inner }, prev: opener.item, next: closer.item };
    opener.item.next = node;
    closer.item.prev = node;
    opener.next = closer;
    closer.prev = opener;
    if (opener.n === 0) {
      this._unlink(opener.item);
      this._removeDelimiter(opener);
    }
    if (closer.n > 0) return closer;
    this._unlink(closer.item);
    const next: Delimiter | null = closer.next;
    this._removeDelimiter(closer);
    return next;
  }

  /** A `]`: a link or image when an open bracket and a destination `(…)` follow, else text. */
  private _closeBracket(i: number): number {
    const opener = this._brackets;
    if (!opener) {
      this._buffer += ']';
      return i + 1;
    }
    this._brackets = opener.prev;
    const tailLink = opener.active && this._text[i + 1] === '(' ? linkTail(this._text, i + 1) : null;
    if (!tailLink) {
      this._buffer += ']';
      return i + 1;
    }
    this._flush();
    this._processEmphasis(opener.delimiter);
    const children = this._collect(opener.item.next, null);
    const before = opener.item.prev;
    this._tail = before;
    if (before) before.next = null;
    else this._head = null;
    this._append(opener.image ? { t: 'image', href: tailLink.href, alt: inlineText(children) } : { t: 'link', href: tailLink.href, c: children });
    // Links may not contain links: every "[" before this one is now plain text.
    if (!opener.image) for (let b = this._brackets; b; b = b.prev) if (!b.image) b.active = false;
    return tailLink.end;
  }

  /** A backtick run: a code span up to the next run of the same length, else the backticks as text. */
  private _codeSpan(i: number): number {
    const text = this._text;
    let n = 0;
    while (text[i + n] === '`') n++;
    const list = this._backtickRuns(i).get(n) ?? [];
    let k = this._used.get(n) ?? 0;
    while (k < list.length && list[k]! <= i) k++;
    this._used.set(n, k);
    if (k >= list.length) {
      this._buffer += '`'.repeat(n);
      return i + n;
    }
    const close = list[k]!;
    let content = text.slice(i + n, close).replace(/\n/g, ' ');
    if (content.length > 2 && content.startsWith(' ') && content.endsWith(' ') && content.trim()) content = content.slice(1, -1);
    this._flush();
    this._append({ t: 'code', text: content });
    return close + n;
  }

  /** Where each backtick run from `from` on starts, by its length: found once per paragraph. */
  private _backtickRuns(from: number): Map<number, number[]> {
    if (this._runs) return this._runs;
    const text = this._text;
    const runs = new Map<number, number[]>();
    for (let p = from; p < text.length; ) {
      if (text[p] !== '`') {
        p++;
        continue;
      }
      const start = p;
      while (text[p] === '`') p++;
      const list = runs.get(p - start) ?? [];
      list.push(start);
      runs.set(p - start, list);
    }
    return (this._runs = runs);
  }
}
