/** @module Markdown and MDX pages, read by micromark into mdast (GFM, front matter, MDX, admonitions as container directives): one section per heading with GitHub-style anchors or `{#id}`. */
import type { Parent, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { directiveFromMarkdown } from 'mdast-util-directive';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { Parser } from 'acorn';
import { directive } from 'micromark-extension-directive';
import { frontmatter as frontmatterSyntax } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { mdxExpression } from 'micromark-extension-mdx-expression';
import { mdxJsx } from 'micromark-extension-mdx-jsx';
import { mdxMd } from 'micromark-extension-mdx-md';
import { mdxjsEsm } from 'micromark-extension-mdxjs-esm';
import { combineExtensions } from 'micromark-util-combine-extensions';
import type { Construct, Extension } from 'micromark-util-types';
import { parse as parseYaml } from 'yaml';
import remarkAttributeList from 'remark-attribute-list';
import { blocksText, pieces, type HeadingPiece } from './mdast-text.js';
import { pageName, type ParsedFile, type Section } from './sections.js';
import { parseText } from './text.js';
import { Anchors } from './slug.js';
import { passageOf } from './passage.js';
import { htmlBlocks } from './html.js';
import { dropExtensionTags, kramdownExtensionFromMarkdown, kramdownExtensionSyntax } from './kramdown-extensions.js';

/**
 * MDX as docs sites write it. `import`/`export` blocks are parsed as JavaScript (acorn), so a
 * multi-line import is one node; `{…}` expressions are matched by their braces alone and not
 * parsed, since the engine drops them: a page with `{#custom-id}` after a heading, or an
 * expression some older MDX accepted, still reads.
 */
const MDX_SYNTAX = combineExtensions([mdxjsEsm({ acorn: Parser, acornOptions: { ecmaVersion: 'latest', sourceType: 'module' } }), mdxExpression(), mdxJsx(), mdxMd()]);

/**
 * Container directives alone (`:::tip` … `:::`, Docusaurus' admonitions): micromark-extension-directive's
 * `directive()` also reads text directives (`:name` in prose) and leaf ones (`::name` on a line),
 * which would take "key:value" or "localhost:8080" apart. Its package exports no single construct,
 * so the container is taken from its flow constructs at `:`, the one that holds content (`concrete`).
 */
const CONTAINER_DIRECTIVE: Extension = {
  flow: { [58]: [directive().flow![58]].flat().filter((construct): construct is Construct => Boolean(construct?.concrete)) },
};

/**
 * The longest run of text without a blank line that micromark reads as one block. Resolving link
 * labels and emphasis costs micromark more than linear time within one paragraph (`'[a]\n' ×
 * 10,000` took seconds), so a longer run is cut by a blank line (at a line end when there is one,
 * else at a space, else anywhere): each block's cost is bounded and a page's is linear in its
 * length. Real paragraphs are far shorter; a code block that long gains a blank line. A table is
 * not cut between its rows (see `tableStart`): each row's cells are read apart, so each row is a
 * run of its own, and a table whose rows a formatter padded to one width is read whole.
 */
export const MAX_BLOCK_CHARS = 4_000;

/**
 * The most characters of block markers (`>`, list bullets and numbers, spaces) that start one line.
 * micromark's cost per line grows with the containers open on it, so `'- ' × 1,250` on one line
 * took seconds: past this, the line's next marker is escaped and the rest reads as text.
 */
export const MAX_MARKER_PREFIX = 64;

const isMarker = (code: number): boolean => code === 32 || code === 9 || code === 62 || code === 45 || code === 42 || code === 43 || code === 46 || code === 41 || (code >= 48 && code <= 57);

/** The text with a blank line at least every `maxBlock` characters and no line's markers past `MAX_MARKER_PREFIX` (see there); one pass. */
export function boundBlocks(text: string, maxBlock = MAX_BLOCK_CHARS): string {
  const out: string[] = [];
  let runStart = 0;
  let lineStart = 0;
  let lastBreak = -1;
  let lastSpace = -1;
  let from = 0;
  let prefix = true;
  /**
   * Lines of the run so far; whether each opened with a pipe; whether the run was asked if it is a
   * table (once, when it reaches `maxBlock`); whether it is one, each row since a run of its own.
   */
  let runLines = 0;
  let pipes = text.charCodeAt(0) === PIPE;
  let asked = false;
  let table = false;
  const newRun = (start: number) => {
    runStart = start;
    runLines = 0;
    pipes = text.charCodeAt(start) === PIPE;
    asked = false;
    table = false;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 10) {
      runLines++;
      const next = text.charCodeAt(i + 1) === PIPE;
      if (i === lineStart || text.slice(lineStart, i).trim() === '') newRun(i + 1);
      // A table's next row is a run of its own; a line that opens without a pipe is counted afresh.
      else if (table && next) runStart = i + 1;
      else if (table) newRun(i + 1);
      else pipes &&= next;
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
    if (i - runStart >= maxBlock && pipes && !asked && runLines >= 2) {
      asked = true;
      const header = text.indexOf('\n', runStart);
      table = tableStart(text.slice(runStart, text.indexOf('\n', header + 1)));
      // The rows read so far are the table's: the line being read is the next run.
      if (table) runStart = lineStart;
    }
    if (i - runStart >= maxBlock) {
      const floor = Math.max(runStart, from);
      const cut = lastBreak > floor ? lastBreak : lastSpace > floor ? lastSpace : i;
      out.push(text.slice(from, cut), '\n\n');
      from = cut;
      newRun(cut);
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

const PIPE = 124;
/** A delimiter row's characters: pipes, dashes, colons and blanks. */
const DELIMITER_ROW = /^[|:\- \t]+$/;

/**
 * Whether two lines (a run's first two) start a table, as micromark reads them: the header opens
 * with a pipe and the second line is a delimiter row whose cells match the header's. The two lines
 * are within one run, and a run is asked once, when it reaches `MAX_BLOCK_CHARS`: the cost is linear.
 */
function tableStart(lines: string): boolean {
  const second = lines.slice(lines.indexOf('\n') + 1);
  if (lines.charCodeAt(0) !== PIPE || !DELIMITER_ROW.test(second) || !second.includes('-')) return false;
  return fromMarkdown(lines, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children[0]?.type === 'table';
}

/**
 * The most characters of a `:::tip Some title` title kept in its label. micromark-extension-directive
 * reads no label past 999 characters, and a container whose label it cannot read is no container
 * at all: its `:::` lines would be read as text. A longer title is cut here (real ones are a line).
 */
export const MAX_DIRECTIVE_TITLE = 400;

/**
 * The most container directives open at once. micromark reads a container's content as a document
 * of its own, so each line costs as many steps as containers are open around it (`':::a\n' × 400`,
 * each opening one inside the last, took 0.6 s and grew faster than its length). Admonitions nest
 * two or three deep; an opening line past this one reads as text.
 */
export const MAX_DIRECTIVE_DEPTH = 4;

const SPACE = 32;
const TAB = 9;
const COLON = 58;
const isAlpha = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
/** A character of a directive's name after its first (micromark-extension-directive: letters, digits, `-`, `_`). */
const isNameChar = (code: number): boolean => isAlpha(code) || (code >= 48 && code <= 57) || code === 45 || code === 95;

/**
 * Container directives' opening lines as micromark reads them, in one pass over the lines. Hand-written
 * rather than a micromark construct or a pattern: Docusaurus' admonition title (`:::tip Some title`)
 * is not directive syntax, so no parser reads it, and each line must be read once, in order.
 * - A title becomes the generic label, `:::tip[Some title]`, the rewrite Docusaurus itself makes
 *   before parsing: only on a line that opens a container (up to 3 spaces, 3 or more colons, a
 *   name, then the title), its `[`, `]` and `\` escaped so it cannot end the label early.
 * - An opening line past `MAX_DIRECTIVE_DEPTH` open containers (counted after any `>` and blanks,
 *   closed by a line of colons alone) has its first colon escaped: it reads as text.
 * Lines inside fenced code are left as written, so a page showing the syntax keeps it.
 */
export function directiveLines(text: string): string {
  const out: string[] = [];
  let from = 0;
  let fence = 0;
  let fenceChar = 0;
  let depth = 0;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    let i = start;
    while (i < end && i - start < 3 && text.charCodeAt(i) === SPACE) i++;
    const first = text.charCodeAt(i);
    let run = i;
    while (run < end && text.charCodeAt(run) === first) run++;
    if (fence) {
      // A fence closes at a run of its character at least as long, followed by nothing but blanks.
      if (first === fenceChar && run - i >= fence && text.slice(run, end).trim() === '') fence = 0;
    } else if ((first === 96 || first === 126) && run - i >= 3) {
      fence = run - i;
      fenceChar = first;
    } else {
      // Containers nest inside quotes and list items too: counted after any `>` and blanks.
      let colons = i;
      while (colons < end && (text.charCodeAt(colons) === SPACE || text.charCodeAt(colons) === TAB || text.charCodeAt(colons) === 62)) colons++;
      let name = colons;
      while (name < end && text.charCodeAt(name) === COLON) name++;
      if (name - colons >= 3 && isAlpha(text.charCodeAt(name))) {
        if (depth >= MAX_DIRECTIVE_DEPTH) {
          out.push(text.slice(from, colons), '\\');
          from = colons;
        } else {
          depth++;
          while (name < end && isNameChar(text.charCodeAt(name))) name++;
          let title = name;
          while (title < end && (text.charCodeAt(title) === SPACE || text.charCodeAt(title) === TAB)) title++;
          const words = text.slice(title, Math.min(end, title + MAX_DIRECTIVE_TITLE)).trimEnd();
          const next = words.charCodeAt(0);
          if (colons === i && title > name && words && next !== 91 && next !== 123) {
            out.push(text.slice(from, name), '[', words.replace(/[[\]\\]/g, '\\$&'), ']');
            from = end;
          }
        }
      } else if (name - colons >= 3 && text.slice(name, end).trim() === '') {
        depth = Math.max(0, depth - 1);
      }
    }
    start = end + 1;
  }
  out.push(text.slice(from));
  return out.join('');
}

/**
 * kramdown's attribute lists (Jekyll's Markdown): `{:target="_blank"}` after a link, `{:.note}` on a
 * line after a block, `{:name: key="value"}` definitions. remark-attribute-list is a unified plugin;
 * its micromark and mdast extensions are what it registers, and its transform moves the
 * attributes onto their elements and removes the lists from the tree.
 */
function kramdownAttributeLists(): { extensions: Extension[]; mdastExtensions: NonNullable<Parameters<typeof fromMarkdown>[1]>['mdastExtensions']; transform: (root: Root) => void } {
  const data: { micromarkExtensions?: Extension[]; fromMarkdownExtensions?: NonNullable<Parameters<typeof fromMarkdown>[1]>['mdastExtensions'] } = {};
  const transform = (remarkAttributeList as unknown as (this: { data(): typeof data }) => (root: Root) => void).call({ data: () => data });
  return { extensions: data.micromarkExtensions ?? [], mdastExtensions: data.fromMarkdownExtensions ?? [], transform };
}

/** A page's mdast as ingest reads it (also what `renderDocPage` shows); `kramdown` reads kramdown's attribute lists and extension tags as syntax. */
export function tree(source: string, mdx: boolean, kramdown = false): Root {
  const text = boundBlocks(directiveLines(source));
  const extensions = [frontmatterSyntax(['yaml']), gfm(), CONTAINER_DIRECTIVE];
  const mdastExtensions = [frontmatterFromMarkdown(['yaml']), gfmFromMarkdown(), directiveFromMarkdown()];
  if (kramdown) {
    const lists = kramdownAttributeLists();
    try {
      const root = fromMarkdown(text, { extensions: [...extensions, kramdownExtensionSyntax, ...lists.extensions], mdastExtensions: [...mdastExtensions, kramdownExtensionFromMarkdown, ...(lists.mdastExtensions ?? [])] });
      dropExtensionTags(root);
      lists.transform(root);
      return root;
    } catch (error) {
      if (error instanceof RangeError) throw error;
      // An attribute list left open at the end of a paragraph (`text {:a="`) is one the plugin cannot
      // close: the page is read as CommonMark, its attribute lists as text.
    }
  }
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

/**
 * A Markdown text's front matter block, found without parsing the page (YAML between `---` lines at
 * its very start): the YAML, and where the body after its closing line starts; null when it has none.
 */
export function frontMatterBlock(text: string): { yaml: string; end: number } | null {
  const open = text.startsWith('---\r\n') ? 5 : text.startsWith('---\n') ? 4 : 0;
  if (open === 0) return null;
  const close = text.indexOf('\n---', open - 1);
  if (close < 0) return null;
  const lineEnd = text.indexOf('\n', close + 4);
  return { yaml: text.slice(open, close + 1), end: lineEnd < 0 ? text.length : lineEnd + 1 };
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
export function parseMarkdown(text: string, options: { url: string; fallbackTitle: string; mdx?: boolean; kramdown?: boolean }): ParsedFile {
  try {
    return sectionsOf(tree(text, options.mdx ?? false, options.kramdown ?? false), options);
  } catch (error) {
    // Thousands of nested quotes or lists exhaust the stack: such a page is read as plain text.
    if (error instanceof RangeError) return parseText(text, options);
    throw error;
  }
}

/** Nodes that hold blocks (and lists, which hold items): a raw HTML block among their children is read as the blocks it stands for. */
const FLOW = new Set(['root', 'blockquote', 'list', 'listItem', 'footnoteDefinition', 'containerDirective', 'mdxJsxFlowElement']);

/**
 * The page with its raw HTML blocks read as the Markdown they stand for (see html.ts
 * `htmlBlocks`): a `<ul>` a list, a `<p>` a paragraph. Inline HTML (`<kbd>`, `<br>`) stays as it is.
 * Walks the containers with a stack of its own: a deep page costs no recursion.
 */
function withHtmlRead(root: Root): Root {
  const stack: Parent[] = [root];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    parent.children = parent.children.flatMap((child) => (child.type === 'html' ? (htmlBlocks(child.value) ?? [child]) : [child])) as Parent['children'];
    for (const child of parent.children) if (FLOW.has(child.type)) stack.push(child as Parent);
  }
  return root;
}

function sectionsOf(root: Root, options: { url: string; fallbackTitle: string }): ParsedFile {
  withHtmlRead(root);
  const data = frontmatter(root);
  const pageUrl = stringOf(data.url) || options.url;
  let pageTitle = stringOf(data.title);
  // The page's language, which its sentences are split by (front matter `lang`, as Hugo, Jekyll and Docusaurus write it).
  const pageLang = stringOf(data.lang) || stringOf(data.language) || stringOf(data.locale);

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
      passage: passageOf(block.content, { base: pageUrl, lang: pageLang }),
    });
  }
  return { title, sections };
}
