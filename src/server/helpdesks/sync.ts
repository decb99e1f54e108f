/** @module Building blocks the helpdesks' sync connectors share. */
import type { TicketInput } from '../tickets/types.js';
import type { SyncConnector } from './types.js';

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

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };

/** Plain text of an HTML body for the knowledge index: tags dropped, entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/li|\/h\d|hr)[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e]!)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
