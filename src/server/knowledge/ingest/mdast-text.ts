/** @module An mdast tree as the engine reads a section: headings apart, prose as readable Markdown-like text, code blocks apart with their language. */
import type { Code, Link, Nodes, PhrasingContent, RootContent, List, Table } from 'mdast';
import type { MdxJsxFlowElement, MdxJsxTextElement } from 'mdast-util-mdx-jsx';
import type { ContainerDirective } from 'mdast-util-directive';
import { longestBacktickRun } from '../text/passage.js';
import { breaksLine, htmlText, opensListItem } from './html-text.js';

/** A heading as the section builder reads it: its level, its text, and the anchor the page names itself, if any. */
export interface HeadingPiece {
  depth: number;
  text: string;
  /** `{#id}` after the text, or the `id` of an HTML heading; null when the anchor is the text's slug. */
  id: string | null;
}

/** The page in reading order: headings, and the blocks between them. */
export type Piece = { heading: HeadingPiece } | { block: RootContent };

/** What a run of blocks says: its prose, and its code blocks with the first one's language. */
export interface BlockText {
  body: string;
  code: string[];
  lang: string;
  /**
   * Where a code block stands, what is written in its place; without it the code goes to `code`
   * and nothing is written (a section keeps its code apart from its prose, but a quoted list keeps
   * the code inside its items).
   */
  inPlace?: (node: Code) => string;
}

/** Attributes of a component that name what it holds (`<Accordion title="Can I self-host?">`). */
const TITLE_ATTRIBUTES = new Set(['title']);

/** The text of a component's `title` attribute, when it is a plain string. */
function componentTitle(node: MdxJsxFlowElement | MdxJsxTextElement): string {
  for (const attribute of node.attributes) {
    if (attribute.type === 'mdxJsxAttribute' && TITLE_ATTRIBUTES.has(attribute.name) && typeof attribute.value === 'string') return attribute.value.trim();
  }
  return '';
}

/**
 * A block holding others under a title: a component (`<Accordion title="…">`), or a container
 * directive, Docusaurus' admonition (`:::tip[Some title]`, its label, or a `{title="…"}`
 * attribute). Its title is read as a bold line over its content, which is read as the page's.
 */
export function container(node: MdxJsxFlowElement | ContainerDirective): { title: string; children: RootContent[] } {
  if (node.type === 'mdxJsxFlowElement') return { title: componentTitle(node), children: node.children };
  const [first, ...rest] = node.children;
  if (first?.type === 'paragraph' && (first.data as { directiveLabel?: boolean } | undefined)?.directiveLabel) return { title: phrasingPlain(first.children).trim(), children: rest };
  const attributes = node.attributes ?? {};
  const title = Object.keys(attributes).find((name) => TITLE_ATTRIBUTES.has(name));
  return { title: (title && attributes[title]?.trim()) || '', children: node.children };
}

/** A container's title as the bold line over its content, or nothing when it has none. */
export const titleBlock = (title: string): RootContent[] => (title ? [{ type: 'paragraph', children: [{ type: 'strong', children: [{ type: 'text', value: title }] }] }] : []);

/**
 * A heading's explicit anchor: `{#id}` at the end of its text (Docusaurus, Pandoc), given as an
 * MDX expression or as text. Read with string operations: a pattern anchored at the end with a
 * leading `\s*` would rescan a long run of spaces once per space.
 */
function explicitId(children: PhrasingContent[]): { id: string | null; children: PhrasingContent[] } {
  const last = children.at(-1);
  if (last?.type === 'mdxTextExpression' && last.value.startsWith('#')) return { id: last.value.slice(1).trim() || null, children: children.slice(0, -1) };
  if (last?.type === 'text') {
    const value = last.value.trimEnd();
    const open = value.lastIndexOf('{#');
    if (open >= 0 && value.endsWith('}')) {
      const id = value.slice(open + 2, -1);
      if (id && [...id].every((c) => /[\w\-.:]/.test(c))) return { id, children: [...children.slice(0, -1), { ...last, value: value.slice(0, open) }] };
    }
  }
  return { id: null, children };
}

/** The plain text of inline content: no marks, code spans as their code. */
export function phrasingPlain(nodes: readonly PhrasingContent[]): string {
  let out = '';
  for (const node of nodes) {
    if (node.type === 'text' || node.type === 'inlineCode') out += node.value;
    else if (node.type === 'image' || node.type === 'imageReference') out += node.alt ?? '';
    else if (node.type === 'break') out += ' ';
    else if ('children' in node) out += phrasingPlain(node.children as PhrasingContent[]);
  }
  return out.replace(/\s+/g, ' ');
}

/** A code span as written: fenced by one backtick more than the longest run inside it. */
function codeSpan(value: string): string {
  const fence = '`'.repeat(longestBacktickRun(value) + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Addresses a visitor's browser can follow from an answer: the widget opens only these. */
const FOLLOWED = new Set(['http:', 'https:', 'mailto:']);

/**
 * A link's address for an answer shown on another site: absolute, resolved against the page's own
 * address when the page has one; null when it cannot be followed from there (a relative link of a
 * page read from a folder, a `javascript:` link).
 */
export function linkTarget(url: string, base: string | undefined): string | null {
  try {
    const target = base ? new URL(url, base) : new URL(url);
    return FOLLOWED.has(target.protocol) ? target.href : null;
  } catch {
    return null;
  }
}

/**
 * A link as Markdown: an autolink (its text is its address) as `<address>`, any other as
 * `[text](address)`, or as its text alone when its address cannot be followed from an answer.
 */
function linkMarkdown(node: Link, text: string, base: string | undefined): string {
  const target = linkTarget(node.url, base);
  const plain = phrasingPlain(node.children);
  const autolink = (node.url === plain && /^[a-z][a-z\d+.-]*:/i.test(plain)) || node.url === `mailto:${plain}`;
  if (autolink) return target && !/[<>\s]/.test(plain) ? `<${plain}>` : text;
  if (!target || !text.trim() || /[[\]]/.test(text)) return text;
  return `[${text}](${target.replace(/[()]/g, (c) => (c === '(' ? '%28' : '%29'))})`;
}

/** Inline content as readable Markdown: links kept (see `linkMarkdown`), images as their alt text, bold and code spans kept, HTML tags gone. */
export function phrasing(nodes: readonly PhrasingContent[], base?: string): string {
  let out = '';
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        out += node.value.replace(/[ \t]+/g, ' ');
        break;
      case 'link':
        out += linkMarkdown(node, phrasing(node.children, base), base);
        break;
      case 'inlineCode':
        // A code span's line endings are spaces (CommonMark): a span wrapped in the source is one line.
        out += codeSpan(node.value.replace(/\r?\n/g, ' '));
        break;
      case 'strong': {
        const inner = phrasing(node.children, base);
        out += inner.trim() ? `**${inner}**` : inner;
        break;
      }
      case 'image':
      case 'imageReference':
        out += node.alt ?? '';
        break;
      case 'break':
        out += '\n';
        break;
      case 'html':
        // A tag that starts a block or a line keeps the words on either side apart.
        if (breaksLine(node.value)) out += ' ';
        break;
      case 'footnoteReference':
        break;
      case 'mdxTextExpression':
        break;
      case 'mdxJsxTextElement': {
        const title = componentTitle(node);
        out += `${title ? `**${title}** ` : ''}${phrasing(node.children, base)}`;
        break;
      }
      default:
        if ('children' in node) out += phrasing(node.children as PhrasingContent[], base);
    }
  }
  return out;
}

/** Splits a page's tree into headings and the blocks between them; a container's (a component's, an admonition's) content is read as the page's, its title as a bold line (see `container`). */
export function pieces(nodes: readonly RootContent[], out: Piece[] = []): Piece[] {
  for (const node of nodes) {
    if (node.type === 'heading') {
      const { id, children } = explicitId(node.children);
      const dataId = (node.data as { id?: string } | undefined)?.id;
      out.push({ heading: { depth: node.depth, text: phrasingPlain(children).trim(), id: id ?? dataId ?? null } });
    } else if (node.type === 'mdxJsxFlowElement' || node.type === 'containerDirective') {
      const { title, children } = container(node);
      pieces([...titleBlock(title), ...children], out);
    } else if (node.type !== 'yaml' && node.type !== 'mdxjsEsm' && node.type !== 'mdxFlowExpression' && node.type !== 'definition' && node.type !== 'thematicBreak') {
      out.push({ block: node });
    }
  }
  return out;
}

export function tableText(table: Table, base: string | undefined): string {
  const rows = table.children.map((row) => `| ${row.children.map((cell) => phrasing(listItemsApart(cell.children), base).replace(/\n/g, ' ').replaceAll('|', '\\|').trim()).join(' | ')} |`);
  if (rows.length > 0) rows.splice(1, 0, `| ${table.children[0]!.children.map(() => '---').join(' | ')} |`);
  return rows.join('\n');
}

/**
 * A table cell's content with the items of a list written in it as HTML (a cell holds no Markdown
 * list: `<ul><li>1 for On</li><li>-1 for Off</li></ul>`) apart on its one line: "1 for On; -1 for Off".
 */
function listItemsApart(children: PhrasingContent[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  let items = 0;
  for (const child of children) {
    if (child.type === 'html' && opensListItem(child.value) && items++ > 0) out.push({ type: 'text', value: ';' });
    out.push(child);
  }
  return out;
}

/**
 * A list item's paragraph on one line: its source's line breaks are spaces, so a wrapped line that
 * starts with a number ("404. Null means…") is not read as an item of a numbered list. (A paragraph
 * outside a list keeps its lines: a quoted sentence joins them, as CommonMark reads them.)
 */
const oneLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');

/**
 * A list as Markdown, each item's every line indented under its marker (a paragraph or quote after
 * an item's first one included), nested lists one level deeper.
 */
export function listText(list: List, indent: string, code: BlockText, base: string | undefined): string {
  const lines: string[] = [];
  list.children.forEach((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}. ` : '- ';
    // An item's further blocks are indented as far as its text starts: the item's own content.
    const inner = indent + ' '.repeat(marker.length);
    const parts = item.children
      .map((child) => (child.type === 'list' ? listText(child, inner, code, base) : child.type === 'paragraph' ? oneLine(blockText(child, code, inner, base)) : blockText(child, code, inner, base).replace(/\n/g, `\n${inner}`)))
      .filter(Boolean);
    const [first = '', ...rest] = parts;
    lines.push(`${indent}${marker}${first}`, ...rest.map((p) => (p.startsWith(inner) ? p : `${inner}${p}`)));
  });
  return lines.join('\n');
}

/** One block as text; code blocks go to `code` (a section keeps its code apart from its prose). */
export function blockText(node: Nodes, code: BlockText, indent: string, base: string | undefined): string {
  switch (node.type) {
    case 'paragraph':
      return phrasing(node.children, base).trim();
    case 'heading':
      return phrasing(node.children, base).trim();
    case 'code':
      if (code.inPlace) return code.inPlace(node);
      code.code.push(node.value);
      if (!code.lang && node.lang) code.lang = node.lang;
      return '';
    case 'list':
      return listText(node, indent, code, base);
    case 'table':
      return tableText(node, base);
    case 'html':
      return htmlText(node.value);
    case 'mdxJsxFlowElement':
    case 'containerDirective': {
      const { title, children } = container(node);
      return [...titleBlock(title), ...children]
        .map((child) => blockText(child, code, indent, base))
        .filter(Boolean)
        .join('\n\n');
    }
    case 'yaml':
    case 'mdxjsEsm':
    case 'mdxFlowExpression':
    case 'definition':
    case 'thematicBreak':
      return '';
    default:
      if ('children' in node) return (node.children as Nodes[]).map((child) => blockText(child, code, indent, base)).filter(Boolean).join('\n\n');
      return 'value' in node && typeof node.value === 'string' ? node.value : '';
  }
}

/** The prose and code of a run of blocks; links resolved against `base`, the page's address (see `phrasing`). */
export function blocksText(blocks: readonly RootContent[], base?: string): BlockText {
  const out: BlockText = { body: '', code: [], lang: '' };
  out.body = blocks
    .map((block) => blockText(block, out, '', base))
    .filter(Boolean)
    .join('\n\n');
  return out;
}
