/** @module Pylon sync: `POST /issues/search` for issues created after the cursor (the newest `created_at` seen). */
import type { TicketInput } from '../types.js';
import { htmlToText, sinceConnector } from '../sync.js';
import type { SyncConnector } from '../types.js';
import type { PylonClient, PylonIssue } from './client.js';

export function pylonConnector(client: PylonClient): SyncConnector {
  return sinceConnector<PylonIssue>({
    source: 'pylon',
    page: async (since, next) => {
      const r = await client.search(since, next);
      return { items: r.issues, next: r.cursor, hasNextPage: r.hasNextPage };
    },
    stamp: (issue) => issue.created_at,
    ticket: pylonTicket,
    one: (id) => client.issue(id),
  });
}

export function pylonTicket(issue: PylonIssue): TicketInput {
  return {
    source: 'pylon',
    externalId: issue.id,
    title: issue.title,
    status: issue.state,
    url: issue.link,
    customerEmail: issue.requester?.email ?? null,
    customerName: null,
    body: issue.body_html ? htmlToText(issue.body_html) : null,
    createdAt: issue.created_at,
    updatedAt: issue.latest_message_time ?? issue.created_at,
  };
}
