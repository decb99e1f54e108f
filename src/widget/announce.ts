/**
 * @module What the live region says when an answer is ready: its first sentence of prose, never
 * code (a screen reader reads `SUPPORT_CHAT_LLM_BASE_URL` as one long word), never tables, pipes or
 * citation markers. A block with fewer than three words once its code is left out is not prose
 * ("Attributes `a`, `b` (`c` | `d`)"): the next block is read instead.
 */
import type { Block, Inline } from './markdown.js';

const MAX = 160;

function text(nodes: Inline[]): string {
  return nodes
    .map((node) => {
      if (typeof node === 'string') return node;
      switch (node.t) {
        case 'strong':
        case 'em':
        case 'link':
          return text(node.c);
        case 'br':
          return ' ';
        default:
          // Inline code and images are left out.
          return ' ';
      }
    })
    .join('');
}

function firstProse(blocks: Block[]): string {
  for (const block of blocks) {
    if (block.t === 'p' || block.t === 'h') {
      const found = text(block.c);
      if ((found.match(/\p{L}{2,}/gu) ?? []).length > 2) return found;
    } else if (block.t === 'quote') {
      const found = firstProse(block.c);
      if (found) return found;
    } else if (block.t === 'list') {
      for (const item of block.items) {
        const found = firstProse(item);
        if (found) return found;
      }
    }
  }
  return '';
}

/**
 * The first sentence of an answer's prose, at most about 160 characters; '' when it has none.
 * `parseMarkdown` is passed in (both travel in the module loaded on demand, see render-markdown.ts).
 */
export function firstSentence(markdown: string, parseMarkdown: (source: string) => Block[]): string {
  const prose = firstProse(parseMarkdown(markdown))
    .replace(/\[\d{1,2}\]|\(\s*\)|\|/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
  const sentence = /^.+?[.!?。؟](?=\s|$)/.exec(prose)?.[0] ?? prose;
  if (sentence.length <= MAX) return sentence;
  const cut = sentence.slice(0, MAX);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 40 ? cut.lastIndexOf(' ') : MAX)}…`;
}
