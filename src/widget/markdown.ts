/**
 * @module A small Markdown parser producing a plain AST (never HTML). Raw HTML in the source stays
 * text; the renderer decides what becomes a link.
 */

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

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w#+.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const HR = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  const cells: string[] = [];
  let current = '';
  let inCode = false;
  for (let i = 0; i < row.length; i++) {
    const ch = row[i]!;
    if (ch === '\\' && row[i + 1] === '|') {
      current += '|';
      i++;
    } else if (ch === '`') {
      inCode = !inCode;
      current += ch;
    } else if (ch === '|' && !inCode) {
      cells.push(current.trim());
      current = '';
    } else current += ch;
  }
  cells.push(current.trim());
  return cells;
}

/** Parses Markdown into blocks. Linear in the input; nesting is bounded. */
export function parseMarkdown(source: string, depth = 0): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) body.push(lines[i++]!);
      i++;
      blocks.push({ t: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: heading[1]!.length, c: parseInline(heading[2]!) });
      i++;
      continue;
    }
    if (HR.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^ {0,3}> ?/, ''));
      blocks.push(depth < 8 ? { t: 'quote', c: parseMarkdown(body.join('\n'), depth + 1) } : { t: 'p', c: [body.join(' ')] });
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      const head = splitRow(line);
      const align: Align[] = splitRow(lines[i + 1]!).map((cell) => {
        const left = cell.startsWith(':');
        const right = cell.endsWith(':');
        return left && right ? 'center' : right ? 'right' : left ? 'left' : null;
      });
      i += 2;
      const rows: Inline[][][] = [];
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim()) {
        const cells = splitRow(lines[i++]!);
        rows.push(head.map((_, k) => parseInline(cells[k] ?? '')));
      }
      blocks.push({ t: 'table', align: head.map((_, k) => align[k] ?? null), head: head.map((h) => parseInline(h)), rows });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const indent = item[1]!.length;
      const ordered = /\d/.test(item[2]!);
      const start = ordered ? parseInt(item[2]!, 10) : 1;
      const items: string[][] = [];
      while (i < lines.length) {
        const current = lines[i]!;
        const m = LIST_ITEM.exec(current);
        if (m && m[1]!.length <= indent + 1 && /\d/.test(m[2]!) === ordered) {
          items.push([m[3]!]);
          i++;
        } else if (current.trim() && (/^\s/.test(current) || !LIST_ITEM.exec(current)) && items.length && !(HEADING.test(current) || FENCE.test(current) || HR.test(current))) {
          // Continuation or a nested list: indented lines belong to the current item.
          if (!/^\s/.test(current) && lines[i - 1]?.trim() === '') break;
          items.at(-1)!.push(current.slice(Math.min(indent + 2, current.length - current.trimStart().length)));
          i++;
        } else if (!current.trim() && i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]!) ) {
          items.at(-1)!.push('');
          i++;
        } else break;
      }
      blocks.push({ t: 'list', ordered, start, items: items.map((body) => (depth < 8 ? parseMarkdown(body.join('\n'), depth + 1) : [{ t: 'p', c: [body.join(' ')] }])) });
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !FENCE.test(lines[i]!) && !HEADING.test(lines[i]!) && !/^ {0,3}>/.test(lines[i]!) && !(para.length && LIST_ITEM.test(lines[i]!)) && !HR.test(lines[i]!)) {
      para.push(lines[i++]!);
    }
    if (para.length === 0) para.push(lines[i++]!);
    blocks.push({ t: 'p', c: parseInline(para.map((l) => l.trim()).join('\n')) });
  }
  return blocks;
}

/** Parses inline Markdown: code spans, links, images, emphasis, hard breaks. */
export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer) out.push(buffer);
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!|<>~]/.test(text[i + 1]!)) {
      buffer += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === '`') {
      const ticks = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(ticks, i + ticks.length);
      if (end > 0) {
        flush();
        out.push({ t: 'code', text: text.slice(i + ticks.length, end).replace(/^ (.*) $/, '$1') });
        i = end + ticks.length;
        continue;
      }
    }
    if (ch === '!' && text[i + 1] === '[') {
      const link = readLink(text, i + 1);
      if (link) {
        flush();
        out.push({ t: 'image', href: link.href, alt: link.label });
        i = link.end;
        continue;
      }
    }
    if (ch === '[') {
      const link = readLink(text, i);
      if (link) {
        flush();
        out.push({ t: 'link', href: link.href, c: depth < 4 ? parseInline(link.label, depth + 1) : [link.label] });
        i = link.end;
        continue;
      }
    }
    if (ch === '<') {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/.exec(text.slice(i));
      if (auto) {
        flush();
        out.push({ t: 'link', href: auto[1]!, c: [auto[1]!.replace(/^mailto:/, '')] });
        i += auto[0].length;
        continue;
      }
    }
    if ((ch === '*' || ch === '_') && depth < 4) {
      const double = text[i + 1] === ch;
      const marker = double ? ch + ch : ch;
      const close = findClose(text, i + marker.length, marker);
      const intraword = ch === '_' && /\w/.test(text[i - 1] ?? '');
      if (close > i + marker.length && !intraword && !/\s/.test(text[i + marker.length]!)) {
        flush();
        const inner = parseInline(text.slice(i + marker.length, close), depth + 1);
        out.push(double ? { t: 'strong', c: inner } : { t: 'em', c: inner });
        i = close + marker.length;
        continue;
      }
    }
    if (ch === '\n') {
      const hard = buffer.endsWith('  ') || buffer.endsWith('\\');
      buffer = buffer.replace(/( {2,}|\\)$/, '');
      if (hard) {
        flush();
        out.push({ t: 'br' });
      } else buffer += ' ';
      i++;
      continue;
    }
    buffer += ch;
    i++;
  }
  flush();
  return out;
}

function findClose(text: string, from: number, marker: string): number {
  let i = from;
  while (i < text.length) {
    const at = text.indexOf(marker, i);
    if (at < 0) return -1;
    // Underscores inside words (snake_case, __dunder) never close emphasis.
    const intraword = marker[0] === '_' && /[\p{L}\p{N}]/u.test(text[at + marker.length] ?? '');
    if (!intraword && !/\s/.test(text[at - 1] ?? ' ') && (marker.length === 2 || text[at + 1] !== marker)) return at;
    i = at + marker.length;
  }
  return -1;
}

function readLink(text: string, open: number): { label: string; href: string; end: number } | null {
  let depth = 0;
  let close = -1;
  for (let i = open; i < text.length && i < open + 1000; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '[') depth++;
    else if (text[i] === ']' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0 || text[close + 1] !== '(') return null;
  const m = /^\(\s*<?([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)>?(?:\s+"[^"]*")?\s*\)/.exec(text.slice(close + 1));
  if (!m) return null;
  return { label: text.slice(open + 1, close), href: m[1]!, end: close + 1 + m[0].length };
}

/** Only http, https and mailto links are followed; anything else renders as text. */
export function safeUrl(href: string): string | null {
  const trimmed = href.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : null;
  } catch {
    return null;
  }
}
