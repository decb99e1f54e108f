/**
 * @module Ticket sync from Plain, Pylon and Linear: each connector reads what changed since the
 * stored cursor, page by page as its API documents, and the cursor is saved after every page so
 * an interrupted sync resumes where it stopped. Tickets deleted here since the last sync are asked
 * for again by id, so one that still exists in the helpdesk comes back, as the spec says.
 */
import { LinearClient, type LinearIssue } from '../escalation/linear.js';
import { PlainClient, type PlainThread } from '../escalation/plain.js';
import { PylonClient, type PylonIssue } from '../escalation/pylon.js';
import { requireSettings } from '../escalation/index.js';
import type { Helpdesk, IntegrationSettings } from '../escalation/settings.js';
import type { TicketInput, TicketStore } from './types.js';

export interface SyncPage {
  tickets: TicketInput[];
  /** Where the next sync starts; saved once this page is stored. Null keeps the previous cursor. */
  cursor: string | null;
}

export interface SyncConnector {
  readonly source: Helpdesk;
  /** Pages of tickets changed since `cursor` (everything when null). */
  changes(cursor: string | null): AsyncGenerator<SyncPage>;
  /** One ticket by its id in the helpdesk; null when it no longer exists there. */
  fetch(externalId: string): Promise<TicketInput | null>;
}

export interface SyncReport {
  source: Helpdesk;
  /** Tickets created or updated from the change feed. */
  imported: number;
  /** Deleted tickets that still exist in the helpdesk and were imported again. */
  restored: number;
  pages: number;
  cursor: string | null;
}

export interface SyncOptions {
  /** Ignore the stored cursor and read everything. */
  full?: boolean;
  onPage?: (report: SyncReport) => void;
}

export async function syncTickets(store: TicketStore, orgId: string, connector: SyncConnector, options: SyncOptions = {}): Promise<SyncReport> {
  const source = connector.source;
  const report: SyncReport = { source, imported: 0, restored: 0, pages: 0, cursor: null };
  for (const externalId of await store.pendingRefetch(orgId, source)) {
    const ticket = await connector.fetch(externalId);
    if (ticket) {
      await store.upsert(orgId, ticket);
      report.restored++;
    }
    await store.refetched(orgId, source, externalId);
  }
  let cursor = options.full ? null : await store.getCursor(orgId, source);
  for await (const page of connector.changes(cursor)) {
    for (const ticket of page.tickets) await store.upsert(orgId, ticket);
    report.imported += page.tickets.length;
    report.pages++;
    if (page.cursor !== null) {
      cursor = page.cursor;
      await store.setCursor(orgId, source, cursor);
    }
    report.cursor = cursor;
    options.onPage?.({ ...report });
  }
  report.cursor = cursor;
  return report;
}

/** Plain: threads oldest first; the cursor is the last page's Relay `endCursor`. */
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
function sinceConnector<T>(spec: {
  source: Helpdesk;
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

/** Pylon: `POST /issues/search` for issues created after the cursor (the newest `created_at` seen). */
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

/** Linear: the team's issues updated after the cursor (the newest `updatedAt` seen). */
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

/** The connector for an organization's helpdesk, from its settings (its own, else the environment's). */
export function connectorFor(
  source: Helpdesk,
  settings: IntegrationSettings,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): SyncConnector {
  if (source === 'plain') {
    const s = requireSettings(settings, 'plain', ['apiKey']);
    return plainConnector(new PlainClient({ apiKey: s.apiKey, apiUrl: settings.apiUrl, workspaceId: settings.workspaceId, ...options }));
  }
  if (source === 'pylon') {
    const s = requireSettings(settings, 'pylon', ['apiKey']);
    return pylonConnector(new PylonClient({ apiKey: s.apiKey, apiUrl: settings.apiUrl, ...options }));
  }
  const s = requireSettings(settings, 'linear', ['apiKey', 'teamId']);
  return linearConnector(new LinearClient({ apiKey: s.apiKey, apiUrl: settings.apiUrl, ...options }), s.teamId);
}
