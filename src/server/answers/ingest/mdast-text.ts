/** @module An mdast tree as the engine reads a section: headings apart, prose as readable Markdown-like text, code blocks apart with their language. */
import type { Nodes, PhrasingContent, RootContent, List, Table } from 'mdast';
import type { MdxJsxFlowElement, MdxJsxTextElement } from 'mdast-util-mdx-jsx';
import { htmlText } from './html-text.js';

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
  let longest = 0;
  let run = 0;
  for (const char of value) {
    run = char === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Inline content as readable text: links as their text, images as their alt text, bold and code spans kept, HTML tags gone. */
export function phrasing(nodes: readonly PhrasingContent[]): string {
  let out = '';
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        out += node.value.replace(/[ \t]+/g, ' ');
        break;
      case 'inlineCode':
        out += codeSpan(node.value);
        break;
      case 'strong': {
        const inner = phrasing(node.children);
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
      case 'footnoteReference':
        break;
      case 'mdxTextExpression':
        break;
      case 'mdxJsxTextElement': {
        const title = componentTitle(node);
        out += `${title ? `**${title}** ` : ''}${phrasing(node.children)}`;
        break;
      }
      default:
        if ('children' in node) out += phrasing(node.children as PhrasingContent[]);
    }
  }
  return out;
}

/** Splits a page's tree into headings and the blocks between them; a component's content is read as the page's, its title as a bold line. */
export function pieces(nodes: readonly RootContent[], out: Piece[] = []): Piece[] {
  for (const node of nodes) {
    if (node.type === 'heading') {
      const { id, children } = explicitId(node.children);
      const dataId = (node.data as { id?: string } | undefined)?.id;
      out.push({ heading: { depth: node.depth, text: phrasingPlain(children).trim(), id: id ?? dataId ?? null } });
    } else if (node.type === 'mdxJsxFlowElement') {
      const title = componentTitle(node);
      if (title) out.push({ block: { type: 'paragraph', children: [{ type: 'strong', children: [{ type: 'text', value: title }] }] } });
      pieces(node.children, out);
    } else if (node.type !== 'yaml' && node.type !== 'mdxjsEsm' && node.type !== 'mdxFlowExpression' && node.type !== 'definition' && node.type !== 'thematicBreak') {
      out.push({ block: node });
    }
  }
  return out;
}

function tableText(table: Table): string {
  const rows = table.children.map((row) => `| ${row.children.map((cell) => phrasing(cell.children).replace(/\n/g, ' ').replaceAll('|', '\\|').trim()).join(' | ')} |`);
  if (rows.length > 0) rows.splice(1, 0, `| ${table.children[0]!.children.map(() => '---').join(' | ')} |`);
  return rows.join('\n');
}

function listText(list: List, indent: string, code: BlockText): string {
  const lines: string[] = [];
  list.children.forEach((item, i) => {
    const marker = list.ordered ? `${(list.start ?? 1) + i}. ` : '- ';
    const parts = item.children.map((child) => (child.type === 'list' ? listText(child, `${indent}  `, code) : blockText(child, code, `${indent}  `))).filter(Boolean);
    const [first = '', ...rest] = parts;
    lines.push(`${indent}${marker}${first.replace(/\n/g, `\n${indent}  `)}`, ...rest.map((p) => (p.startsWith(indent) ? p : `${indent}  ${p}`)));
  });
  return lines.join('\n');
}

/** One block as text; code blocks go to `code` (a section keeps its code apart from its prose). */
function blockText(node: Nodes, code: BlockText, indent = ''): string {
  switch (node.type) {
    case 'paragraph':
      return phrasing(node.children).trim();
    case 'heading':
      return phrasing(node.children).trim();
    case 'code':
      code.code.push(node.value);
      if (!code.lang && node.lang) code.lang = node.lang;
      return '';
    case 'list':
      return listText(node, indent, code);
    case 'table':
      return tableText(node);
    case 'html':
      return htmlText(node.value);
    case 'mdxJsxFlowElement': {
      const title = componentTitle(node);
      const inner = node.children.map((child) => blockText(child, code, indent)).filter(Boolean);
      return [title ? `**${title}**` : '', ...inner].filter(Boolean).join('\n\n');
    }
    case 'yaml':
    case 'mdxjsEsm':
    case 'mdxFlowExpression':
    case 'definition':
    case 'thematicBreak':
      return '';
    default:
      if ('children' in node) return (node.children as Nodes[]).map((child) => blockText(child, code, indent)).filter(Boolean).join('\n\n');
      return 'value' in node && typeof node.value === 'string' ? node.value : '';
  }
}

/** The prose and code of a run of blocks. */
export function blocksText(blocks: readonly RootContent[]): BlockText {
  const out: BlockText = { body: '', code: [], lang: '' };
  out.body = blocks
    .map((block) => blockText(block, out))
    .filter(Boolean)
    .join('\n\n');
  return out;
}
