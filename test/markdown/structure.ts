/**
 * @module One comparable document structure from the widget's Markdown AST and from markdown-it's tokens:
 * nested arrays of element names, text, hrefs and alignments, with the widget's deliberate omissions
 * (listed in DELIBERATE) applied to both sides.
 */
import MarkdownIt, { type Token } from 'markdown-it';
import { micromark } from 'micromark';
import { gfmTable, gfmTableHtml } from 'micromark-extension-gfm-table';
import { parseMarkdown, type Block, type Inline } from '../../src/widget/markdown.js';
import { safeUrl } from '../../src/widget/safe-url.js';

export type Node = string | [string, ...Node[]];

/**
 * What the widget renders differently from CommonMark/GFM on purpose. Each entry is applied by the
 * normalisation below (so both sides compare equal) or, when it cannot be normalised away, asserted
 * by its own case in the differential test.
 */
export const DELIBERATE = {
  rawHtml: 'Raw HTML shows as text (markdown-it runs with html: false, which does the same).',
  unsafeLinks: 'A link to anything but http(s) or mailto (relative, javascript:, data:…) shows its text and no link.',
  images: 'Images are never loaded: an image becomes a link to it, labelled with its description (cut at 500 characters).',
  looseLists: 'Every list item holds paragraphs, tight or loose (the style spaces them the same).',
  strikethrough: 'GFM strikethrough (~~a~~) shows its tildes: answers have no use for it.',
  references: 'Reference-style links and their definitions ([a][b], [b]: url) stay text: answers link inline.',
  entities: 'Named character references outside the 30 that answers use stay as written (numeric ones all work).',
  deepNesting: 'Quotes and list items nest at most 8 deep (markdown-it: 100); deeper content is one paragraph.',
} as const;

/** CommonMark with GFM tables; without strikethrough, which the widget leaves out (DELIBERATE.strikethrough). */
const reference = new MarkdownIt('commonmark', { html: false }).enable(['table']);

/** A link target as the widget would follow it, or null when it would show only the text. */
function target(href: string): string | null {
  return safeUrl(href);
}

function pushText(out: Node[], text: string): void {
  if (!text) return;
  const last = out.at(-1);
  if (typeof last === 'string') out[out.length - 1] = last + text;
  else out.push(text);
}

function pushAll(out: Node[], nodes: Node[]): void {
  for (const node of nodes) {
    if (typeof node === 'string') pushText(out, node);
    else out.push(node);
  }
}

// ---- the widget's AST

function widgetInline(nodes: Inline[]): Node[] {
  const out: Node[] = [];
  for (const node of nodes) {
    if (typeof node === 'string') pushText(out, node);
    else if (node.t === 'code') out.push(['code', node.text]);
    else if (node.t === 'br') out.push(['br']);
    else if (node.t === 'image') out.push(['img', target(node.href) ?? '(none)', node.alt]);
    else if (node.t === 'link') {
      const href = target(node.href);
      if (href) out.push(['a', href, ...widgetInline(node.c)]);
      else pushAll(out, widgetInline(node.c));
    } else out.push([node.t, ...widgetInline(node.c)]);
  }
  return out;
}

function widgetBlocks(blocks: Block[]): Node[] {
  return blocks.map((block): Node => {
    switch (block.t) {
      case 'p':
        return ['p', ...widgetInline(block.c)];
      case 'h':
        return [`h${block.level}`, ...widgetInline(block.c)];
      case 'code':
        return ['pre', block.lang, block.text];
      case 'quote':
        return ['blockquote', ...widgetBlocks(block.c)];
      case 'hr':
        return ['hr'];
      case 'list':
        return [block.ordered ? `ol start=${block.start}` : 'ul', ...block.items.map((item): Node => ['li', ...widgetBlocks(item)])];
      case 'table':
        return [
          'table',
          ['tr', ...block.head.map((cell, i): Node => [`th ${block.align[i] ?? ''}`, ...widgetInline(cell)])],
          ...block.rows.map((row): Node => ['tr', ...row.map((cell, i): Node => [`td ${block.align[i] ?? ''}`, ...widgetInline(cell)])]),
        ];
    }
  });
}

/** The widget's parse of `source`, normalised. */
export function widgetStructure(source: string): Node[] {
  return widgetBlocks(parseMarkdown(source));
}

// ---- markdown-it's tokens

function plain(tokens: Token[]): string {
  let out = '';
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline') out += token.content;
    else if (token.type === 'softbreak') out += ' ';
    else if (token.type === 'hardbreak') out += '\n';
    else if (token.type === 'image') out += plain(token.children ?? []);
  }
  return out.slice(0, 500);
}

function referenceInline(tokens: Token[]): Node[] {
  const root: Node[] = [];
  // Each open element: its output list, and for a link its href (null: unwrapped).
  const stack: { out: Node[]; close: () => void }[] = [{ out: root, close: () => undefined }];
  const top = () => stack.at(-1)!.out;
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        pushText(top(), token.content);
        break;
      case 'softbreak':
        pushText(top(), ' ');
        break;
      case 'hardbreak':
        top().push(['br']);
        break;
      case 'code_inline':
        top().push(['code', token.content]);
        break;
      case 'image':
        top().push(['img', target(String(token.attrGet('src') ?? '')) ?? '(none)', plain(token.children ?? [])]);
        break;
      case 'em_open':
      case 'strong_open':
      case 'link_open': {
        const out: Node[] = [];
        const parent = top();
        const name = token.type === 'link_open' ? 'a' : token.tag;
        const href = token.type === 'link_open' ? target(String(token.attrGet('href') ?? '')) : '';
        stack.push({
          out,
          close: () => {
            if (href === null) pushAll(parent, out);
            else parent.push(href ? [name, href, ...out] : [name, ...out]);
          },
        });
        break;
      }
      case 'em_close':
      case 'strong_close':
      case 'link_close':
        stack.pop()!.close();
        break;
      default:
        throw new Error(`unexpected inline token ${token.type}`);
    }
  }
  return root;
}

function referenceBlocks(tokens: Token[]): Node[] {
  const root: Node[] = [];
  // Each open element: its name and children, added to its parent when it closes.
  const stack: { name: string; children: Node[] }[] = [{ name: '', children: root }];
  const top = () => stack.at(-1)!.children;
  const open = ([name]: [string]) => stack.push({ name, children: [] });
  for (const token of tokens) {
    const align = /text-align:(\w+)/.exec(String(token.attrGet('style') ?? ''))?.[1] ?? '';
    switch (token.type) {
      case 'paragraph_open':
        open(['p']);
        break;
      case 'heading_open':
        open([token.tag]);
        break;
      case 'blockquote_open':
        open(['blockquote']);
        break;
      case 'bullet_list_open':
        open(['ul']);
        break;
      case 'ordered_list_open':
        open([`ol start=${token.attrGet('start') ?? 1}`]);
        break;
      case 'list_item_open':
        open(['li']);
        break;
      case 'table_open':
        open(['table']);
        break;
      case 'tr_open':
        open(['tr']);
        break;
      case 'th_open':
      case 'td_open':
        open([`${token.tag} ${align}`]);
        break;
      case 'thead_open':
      case 'tbody_open':
      case 'thead_close':
      case 'tbody_close':
        break;
      case 'inline':
        for (const node of referenceInline(token.children ?? [])) {
          if (typeof node === 'string') pushText(top(), node);
          else top().push(node);
        }
        break;
      case 'fence':
        top().push(['pre', reference.utils.unescapeAll(token.info).trim().split(/\s+/)[0] ?? '', token.content.replace(/\n$/, '')]);
        break;
      case 'code_block':
        top().push(['pre', '', token.content.replace(/\n$/, '')]);
        break;
      case 'hr':
        top().push(['hr']);
        break;
      default:
        if (token.nesting === -1) {
          const { name, children } = stack.pop()!;
          top().push([name, ...children]);
        }
        else throw new Error(`unexpected block token ${token.type}`);
    }
  }
  return root;
}

/** markdown-it's parse of `source` (CommonMark with GFM tables), normalised. */
export function referenceStructure(source: string): Node[] {
  const env: { references?: Record<string, unknown> } = {};
  const tokens = reference.parse(source, env as Record<string, never>);
  if (env.references && Object.keys(env.references).length) throw new Error('reference definitions are not compared (DELIBERATE.references)');
  return referenceBlocks(tokens);
}

/** HTML with the two references' spelling differences (line breaks between tags, alignment) taken out. */
function comparableHtml(html: string): string {
  return html
    .replace(/>\n+/g, '>')
    .replace(/\n+</g, '<')
    .replace(/ style="text-align:(\w+)"/g, ' align="$1"')
    .trim();
}

/**
 * Whether markdown-it and micromark (a second CommonMark implementation, with GFM tables) render
 * `source` alike. Where they do not, one of them strays from the spec (markdown-it tries tables before
 * lists, drops a blank last line of an unclosed fence, ends a list at two blank lines after an empty
 * item, lets a backslash escape a line ending in a link destination; micromark reads raw HTML blocks),
 * and the widget is not compared on that input.
 */
export function referencesAgree(source: string): boolean {
  return comparableHtml(reference.render(source)) === comparableHtml(micromark(source, { extensions: [gfmTable()], htmlExtensions: [gfmTableHtml()] }));
}
