/** @module Plain sync: threads oldest first; the cursor is the last page's Relay `endCursor`. */
import type { TicketInput } from '../types.js';
import type { SyncConnector } from '../types.js';
import type { PlainClient, PlainThread } from './client.js';

export function plainConnector(client: PlainClient): SyncConnector {
  return {
    source: 'plain',
    async *changes(cursor) {
      let after = cursor;
      for (;;) {
        const page = await client.threads(after);
        const tickets = await Promise.all(page.threads.map((t) => plainTicket(client, t)));
        yield { tickets, cursor: page.endCursor };
        if (!page.hasNextPage || !page.endCursor) return;
        after = page.endCursor;
      }
    },
    async fetch(externalId) {
      const thread = await client.thread(externalId);
      return thread ? plainTicket(client, thread) : null;
    },
  };
}

export async function plainTicket(client: PlainClient, thread: PlainThread): Promise<TicketInput> {
  return plainThreadTicket(thread, await client.threadUrl(thread.id));
}

/** A Plain thread as a ticket, given its link (from the workspace id). */
export function plainThreadTicket(thread: PlainThread, url: string): TicketInput {
  return {
    source: 'plain',
    externalId: thread.id,
    title: thread.title,
    status: thread.status.toLowerCase(),
    url,
    customerEmail: thread.customer.email?.email ?? null,
    customerName: thread.customer.fullName || null,
    body: thread.previewText,
    createdAt: thread.createdAt.iso8601,
    updatedAt: thread.updatedAt.iso8601,
  };
}
