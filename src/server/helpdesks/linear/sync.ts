/** @module Linear sync: the team's issues updated after the cursor (the newest `updatedAt` seen). */
import type { TicketInput } from '../types.js';
import { sinceConnector } from '../sync.js';
import type { SyncConnector } from '../types.js';
import type { LinearClient, LinearIssue } from './client.js';

export function linearConnector(client: LinearClient, teamId: string): SyncConnector {
  return sinceConnector<LinearIssue>({
    source: 'linear',
    page: async (since, next) => {
      const r = await client.issuesUpdatedSince(teamId, since.toISOString(), next);
      return { items: r.issues, next: r.endCursor, hasNextPage: r.hasNextPage };
    },
    stamp: (issue) => issue.updatedAt,
    ticket: linearTicket,
    one: (id) => client.issue(id),
  });
}

export function linearTicket(issue: LinearIssue): TicketInput {
  return {
    source: 'linear',
    externalId: issue.id,
    title: issue.title,
    status: issue.state.name,
    url: issue.url,
    customerEmail: null,
    customerName: null,
    body: issue.description,
    createdAt: issue.createdAt,
    updatedAt: issue.updatedAt,
  };
}
