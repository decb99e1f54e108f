/** @module Markdown and MDX pages: frontmatter `title`/`url`, one section per heading with GitHub-style anchors or `{#id}`. */
import { slugify } from '../text.js';
import type { ParsedFile, Section } from './sections.js';

/** Reads `key: value` frontmatter (the subset docs sites use); returns it and the rest of the text. */
export function frontmatter(text: string): { data: Record<string, string>; body: string; offset: number } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) return { data: {}, body: text, offset: 0 };
  const data: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    let value = kv[2]!.trim();
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) value = value.slice(1, -1);
    data[kv[1]!.toLowerCase()] = value;
  }
  return { data, body: text.slice(match[0].length), offset: match[0].split('\n').length - 1 };
}

/** Drops MDX `import`/`export` lines and JSX component tags, keeping their text content. */
function stripMdx(text: string): string {
  return text
    .replace(/^(import|export)\s.*$/gm, '')
    .replace(/<\/?[A-Z][\w.]*(\s[^<>]*)?\/?>/g, '');
}

/**
 * Turns Markdown into readable prose: links to their text, HTML tags removed; bold stays (a quoted
 * passage keeps it, and a bold run-in label names what a list item is about).
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    // HTML tags go, except inside code spans, where `Promise<Response>` is text.
    .replace(/(`+)[\s\S]*?\1|<[^>\n]+>/g, (match) => (match.startsWith('`') ? match : ' '))
    .replace(/^\s{0,3}>\s?/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface Heading {
  level: number;
  text: string;
  id: string;
}

/**
 * Splits a page into sections at every heading. The text before the first heading below the
 * page title belongs to the page itself (its URL has no fragment). Once a titled page has H2
 * sections, a later `# line` is text of the current section, not a heading.
 */
export function parseMarkdown(text: string, options: { url: string; fallbackTitle: string; mdx?: boolean }): ParsedFile {
  const fm = frontmatter(text);
  let body = options.mdx ? stripMdx(fm.body) : fm.body;
  body = body.replace(/\r\n/g, '\n');
  const pageUrl = fm.data.url || options.url;
  const lines = body.split('\n');

  const blocks: { heading: Heading | null; lines: string[] }[] = [{ heading: null, lines: [] }];
  const used = new Map<string, number>();
  let fence: string | null = null;
  let pageTitle = fm.data.title ?? '';
  let sawSubheading = false;
  for (const line of lines) {
    const fenceMatch = /^\s{0,3}(```+|~~~+)/.exec(line);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]!.slice(0, 3);
      else if (line.trim().startsWith(fence)) fence = null;
    }
    const heading = fence === null ? /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line) : null;
    if (!heading) {
      blocks.at(-1)!.lines.push(line);
      continue;
    }
    const level = heading[1]!.length;
    // A titled page's structure is its H2 and deeper headings. A `# line` after them is not a new
    // top-level part of the page: it is text, most often a comment of code pasted without a fence.
    if (level === 1 && pageTitle && sawSubheading) {
      blocks.at(-1)!.lines.push(line);
      continue;
    }
    if (level > 1) sawSubheading = true;
    let textPart = heading[2]!;
    let id: string;
    const explicit = /\s*\{#([\w\-.:]+)\}\s*$/.exec(textPart);
    if (explicit) {
      id = explicit[1]!;
      textPart = textPart.slice(0, explicit.index).trim();
    } else {
      const base = slugify(plainText(textPart).replace(/`/g, ''));
      const count = used.get(base) ?? 0;
      id = count === 0 ? base : `${base}-${count}`;
      used.set(base, count + 1);
    }
    const clean = plainText(textPart).replace(/`/g, '');
    if (level === 1 && !pageTitle) pageTitle = clean;
    if (level === 1 && blocks.length === 1 && blocks[0]!.lines.every((l) => !l.trim())) {
      // The page's own title heading: what follows it belongs to the page.
      continue;
    }
    blocks.push({ heading: { level, text: clean, id }, lines: [] });
  }
  const title = pageTitle || options.fallbackTitle;

  const sections: Section[] = [];
  const stack: Heading[] = [];
  for (const block of blocks) {
    if (block.heading) {
      while (stack.length && stack.at(-1)!.level >= block.heading.level) stack.pop();
      stack.push(block.heading);
    }
    const raw = block.lines.join('\n');
    const { prose, code, lang } = splitCode(raw);
    const text = plainText(prose);
    if (!text && !code && !block.heading) continue;
    const heading = block.heading;
    sections.push({
      title: heading ? heading.text : title,
      context: [title, ...stack.slice(0, -1).map((h) => h.text)].filter((t, i, all) => t && all.indexOf(t) === i).join(' › '),
      url: heading ? `${pageUrl}#${heading.id}` : pageUrl,
      body: text,
      code,
      lang,
      kind: 'doc',
    });
  }
  return { title, sections };
}

/** Separates fenced code blocks from prose. */
function splitCode(markdown: string): { prose: string; code: string; lang: string } {
  const code: string[] = [];
  let lang = '';
  const prose = markdown.replace(/^\s{0,3}(```+|~~~+)\s*([\w+-]*)[^\n]*\n([\s\S]*?)^\s{0,3}\1\s*$/gm, (_m, _f, l: string, content: string) => {
    if (!lang && l) lang = l;
    code.push(content.replace(/\n$/, ''));
    return '\n';
  });
  return { prose, code: code.join('\n\n'), lang };
}
