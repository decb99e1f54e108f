/** @module Building blocks the helpdesks' sync connectors share. */
import type { TicketInput } from './types.js';
import type { SyncConnector } from './types.js';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';

/** A second of overlap between syncs: tickets stamped in the same second as the cursor are read again, never missed. */
const OVERLAP_MS = 1000;
const EPOCH = '1970-01-01T00:00:00.000Z';

function back(iso: string): Date {
  return new Date(Math.max(0, Date.parse(iso) - OVERLAP_MS));
}

/**
 * A connector whose cursor is the newest timestamp seen: each sync reads everything stamped after
 * it (less the overlap), page by page, and saves the newest stamp once the last page is stored
 * (pages of a search are not in stamp order, so no earlier position is safe to save).
 */
export function sinceConnector<T>(spec: {
  source: string;
  page(since: Date, next: string | null): Promise<{ items: T[]; next: string | null; hasNextPage: boolean }>;
  stamp(item: T): string;
  ticket(item: T): TicketInput;
  one(externalId: string): Promise<T | null>;
}): SyncConnector {
  return {
    source: spec.source,
    async *changes(cursor) {
      const since = back(cursor ?? EPOCH);
      let newest = cursor;
      let next: string | null = null;
      for (;;) {
        const result = await spec.page(since, next);
        for (const item of result.items) {
          const stamp = spec.stamp(item);
          if (!newest || stamp > newest) newest = stamp;
        }
        yield { tickets: result.items.map(spec.ticket), cursor: result.hasNextPage ? null : newest };
        if (!result.hasNextPage || !result.next) return;
        next = result.next;
      }
    },
    async fetch(externalId) {
      const item = await spec.one(externalId);
      return item ? spec.ticket(item) : null;
    },
  };
}

/** Elements that end a line of the text (a paragraph, an item, a heading, a break). */
const LINE_ENDS = new Set(['br', 'p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'div', 'tr', 'blockquote', 'pre']);

/**
 * Plain text of an HTML body for the knowledge index: parsed by parse5 (entities decoded as the
 * spec says, linear on any input), tags dropped, a line ended after each block.
 */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  // An explicit stack, not recursion: a body of 100,000 nested tags must not overflow the call stack.
  const stack: (DefaultTreeAdapterMap['childNode'] | 'newline')[] = [...parseFragment(html).childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === 'newline') parts.push('\n');
    else if (node.nodeName === '#text') parts.push((node as DefaultTreeAdapterMap['textNode']).value);
    else if ('childNodes' in node && node.nodeName !== 'script' && node.nodeName !== 'style' && node.nodeName !== 'template') {
      if (LINE_ENDS.has(node.nodeName)) stack.push('newline');
      for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
    }
  }
  return parts
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
