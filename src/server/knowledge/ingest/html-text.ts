/** @module The text of an HTML fragment (raw HTML inside Markdown), read by parse5 as a browser would. */
import { parseFragment } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];

const SKIPPED = new Set(['script', 'style', 'template', 'noscript', 'svg']);
const BLOCKS = new Set(['p', 'div', 'li', 'tr', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'details', 'summary', 'section', 'table', 'ul', 'ol', 'blockquote', 'dt', 'dd']);

/** The readable text of an HTML fragment: entities decoded, tags and comments gone, blocks on their own lines. */
export function htmlText(html: string): string {
  const parts: string[] = [];
  // An explicit stack rather than recursion: a fragment of 80,000 nested tags is as cheap as a flat one.
  const stack: Node[] = [parseFragment(html)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeName === '#text') {
      parts.push((node as DefaultTreeAdapterMap['textNode']).value.replace(/\s+/g, ' '));
      continue;
    }
    if (!('childNodes' in node) || SKIPPED.has(node.nodeName)) continue;
    if (BLOCKS.has(node.nodeName)) parts.push('\n');
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
  return parts
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join('\n');
}

/**
 * Whether a tag of raw HTML inside a line of Markdown ("vault.<p/>Example", "one<br>two") starts a
 * block or a line where a browser shows it: its words stand apart from those before it.
 */
export function breaksLine(html: string): boolean {
  const stack: Node[] = [parseFragment(html)];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (BLOCKS.has(node.nodeName)) return true;
    if ('childNodes' in node) stack.push(...node.childNodes);
  }
  return false;
}


/** Whether a tag of raw HTML inside a line of Markdown opens a list item (`<li>`, `<ul><li>`): an item of a list written in a table cell. */
export function opensListItem(html: string): boolean {
  let node: Node | undefined = parseFragment(html);
  while (node && 'childNodes' in node) {
    if (node.nodeName === 'li') return true;
    node = node.childNodes[0];
  }
  return false;
}
