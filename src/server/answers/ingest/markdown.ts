/** @module Markdown and MDX pages, read by micromark into mdast (GFM, front matter, MDX): one section per heading with GitHub-style anchors or `{#id}`. */
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { Parser } from 'acorn';
import { frontmatter as frontmatterSyntax } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { mdxExpression } from 'micromark-extension-mdx-expression';
import { mdxJsx } from 'micromark-extension-mdx-jsx';
import { mdxMd } from 'micromark-extension-mdx-md';
import { mdxjsEsm } from 'micromark-extension-mdxjs-esm';
import { combineExtensions } from 'micromark-util-combine-extensions';
import { parse as parseYaml } from 'yaml';
import { blocksText, pieces, type HeadingPiece } from './mdast-text.js';
import { pageName, type ParsedFile, type Section } from './sections.js';
import { parseText } from './text.js';
import { Anchors } from './slug.js';

/**
 * MDX as docs sites write it. `import`/`export` blocks are parsed as JavaScript (acorn), so a
 * multi-line import is one node; `{…}` expressions are matched by their braces alone and not
 * parsed, since the engine drops them: a page with `{#custom-id}` after a heading, or an
 * expression some older MDX accepted, still reads.
 */
const MDX_SYNTAX = combineExtensions([mdxjsEsm({ acorn: Parser, acornOptions: { ecmaVersion: 'latest', sourceType: 'module' } }), mdxExpression(), mdxJsx(), mdxMd()]);

/**
 * The longest run of text without a blank line that micromark reads as one block. Resolving link
 * labels and emphasis costs micromark more than linear time within one paragraph (`'[a]\n' ×
 * 10,000` took seconds), so a longer run is cut by a blank line (at a line end when there is one,
 * else at a space, else anywhere): each block's cost is bounded and a page's is linear in its
 * length. Real paragraphs and tables are far shorter; a code block that long gains a blank line.
 */
export const MAX_BLOCK_CHARS = 4_000;

/**
 * The most characters of block markers (`>`, list bullets and numbers, spaces) that start one line.
 * micromark's cost per line grows with the containers open on it, so `'- ' × 1,250` on one line
 * took seconds: past this, the line's next marker is escaped and the rest reads as text.
 */
export const MAX_MARKER_PREFIX = 64;

const isMarker = (code: number): boolean => code === 32 || code === 9 || code === 62 || code === 45 || code === 42 || code === 43 || code === 46 || code === 41 || (code >= 48 && code <= 57);

/** The text with a blank line at least every `MAX_BLOCK_CHARS` characters and no line's markers past `MAX_MARKER_PREFIX` (see there); one pass. */
export function boundBlocks(text: string): string {
  const out: string[] = [];
  let runStart = 0;
  let lineStart = 0;
  let lastBreak = -1;
  let lastSpace = -1;
  let from = 0;
  let prefix = true;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 10) {
      if (i === lineStart || text.slice(lineStart, i).trim() === '') runStart = i + 1;
      lastBreak = i;
      lineStart = i + 1;
      prefix = true;
      continue;
    }
    if (char === 32) lastSpace = i;
    if (prefix && !isMarker(char)) prefix = false;
    else if (prefix && i - lineStart === MAX_MARKER_PREFIX) {
      out.push(text.slice(from, i), '\\');
      from = i;
      prefix = false;
    }
    if (i - runStart >= MAX_BLOCK_CHARS) {
      const floor = Math.max(runStart, from);
      const cut = lastBreak > floor ? lastBreak : lastSpace > floor ? lastSpace : i;
      out.push(text.slice(from, cut), '\n\n');
      from = cut;
      runStart = cut;
      lineStart = cut;
      lastBreak = -1;
      lastSpace = -1;
      prefix = true;
      // What follows the cut starts a line: read again from there (at most one block's length).
      i = cut - 1;
    }
  }
  out.push(text.slice(from));
  return out.join('');
}

function tree(source: string, mdx: boolean): Root {
  const text = boundBlocks(source);
  const extensions = [frontmatterSyntax(['yaml']), gfm()];
  const mdastExtensions = [frontmatterFromMarkdown(['yaml']), gfmFromMarkdown()];
  if (mdx) {
    try {
      return fromMarkdown(text, { extensions: [...extensions, MDX_SYNTAX], mdastExtensions: [...mdastExtensions, mdxFromMarkdown()] });
    } catch (error) {
      if (error instanceof RangeError) throw error;
      // Not valid MDX (a `<` in prose, an unclosed component): read as Markdown, which accepts any text.
    }
  }
  return fromMarkdown(text, { extensions, mdastExtensions });
}

/** The page's front matter (YAML), or nothing when it has none or it does not parse. */
export function frontmatter(root: Root): Record<string, unknown> {
  const first = root.children[0];
  if (first?.type !== 'yaml') return {};
  try {
    const data: unknown = parseYaml(first.value);
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const isEmpty = (text: { body: string; code: string[] }): boolean => !text.body && text.code.length === 0;

const stringOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/**
 * Splits a page into sections at every heading. The text before the first heading below the
 * page title belongs to the page itself (its URL has no fragment). Once a titled page has H2
 * sections, a later `# line` is text of the current section, not a heading.
 */
export function parseMarkdown(text: string, options: { url: string; fallbackTitle: string; mdx?: boolean }): ParsedFile {
  try {
    return sectionsOf(tree(text, options.mdx ?? false), options);
  } catch (error) {
    // Thousands of nested quotes or lists exhaust the stack: such a page is read as plain text.
    if (error instanceof RangeError) return parseText(text, options);
    throw error;
  }
}

function sectionsOf(root: Root, options: { url: string; fallbackTitle: string }): ParsedFile {
  const data = frontmatter(root);
  const pageUrl = stringOf(data.url) || options.url;
  let pageTitle = stringOf(data.title);

  const blocks: { heading: (HeadingPiece & { anchor: string }) | null; content: Parameters<typeof blocksText>[0][number][] }[] = [{ heading: null, content: [] }];
  const anchors = new Anchors();
  let sawSubheading = false;
  for (const piece of pieces(root.children)) {
    if ('block' in piece) {
      blocks.at(-1)!.content.push(piece.block);
      continue;
    }
    const heading = piece.heading;
    // A titled page's structure is its H2 and deeper headings. A `# line` after them is not a new
    // top-level part of the page: it is text, most often a comment of code pasted without a fence.
    if (heading.depth === 1 && pageTitle && sawSubheading) {
      blocks.at(-1)!.content.push({ type: 'paragraph', children: [{ type: 'text', value: heading.text }] });
      continue;
    }
    if (heading.depth > 1) sawSubheading = true;
    const anchor = heading.id ?? anchors.next(heading.text);
    if (heading.depth === 1 && !pageTitle) pageTitle = heading.text;
    // The page's own title heading: what follows it belongs to the page.
    if (heading.depth === 1 && blocks.length === 1 && isEmpty(blocksText(blocks[0]!.content))) continue;
    blocks.push({ heading: { ...heading, anchor }, content: [] });
  }
  const title = pageTitle || pageName(options.fallbackTitle);

  const sections: Section[] = [];
  const stack: HeadingPiece[] = [];
  for (const block of blocks) {
    if (block.heading) {
      while (stack.length && stack.at(-1)!.depth >= block.heading.depth) stack.pop();
      stack.push(block.heading);
    }
    const { body, code, lang } = blocksText(block.content, pageUrl);
    if (isEmpty({ body, code }) && !block.heading) continue;
    const heading = block.heading;
    sections.push({
      title: heading ? heading.text : title,
      context: [title, ...stack.slice(0, -1).map((h) => h.text)].filter((t, i, all) => t && all.indexOf(t) === i).join(' › '),
      url: heading ? `${pageUrl}#${heading.anchor}` : pageUrl,
      body,
      code: code.join('\n\n'),
      lang,
      kind: 'doc',
    });
  }
  return { title, sections };
}
