/**
 * @module Ticket sync from the registered helpdesks (`helpdesks/<name>/sync.ts`): each connector reads what changed since the
 * stored cursor, page by page as its API documents, and the cursor is saved after every page so
 * an interrupted sync resumes where it stopped. Tickets deleted here since the last sync are asked
 * for again by id, so one that still exists in the helpdesk comes back, as the spec says.
 */
import { guardTargets } from '../helpdesks/targets.js';
import { localTargetsAllowed } from '../local-targets.js';
import { effectiveSettings } from '../escalation/settings.js';
import { helpdesks as registry, type HelpdeskRegistry } from '../helpdesks/index.js';
import { IntegrationError, type IntegrationSettings, type SyncConnector } from '../helpdesks/types.js';
import type { TicketStore } from './types.js';

export type { SyncConnector, SyncPage } from '../helpdesks/types.js';
export { htmlToText } from '../helpdesks/sync.js';

export interface SyncReport {
  source: string;
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

/**
 * The sync connector of the helpdesk named `source`, from the organization's settings (its own,
 * else the environment's). IntegrationError (retryable: false) for a name with no connector in
 * the registry, or a missing setting.
 */
export function connectorFor(
  source: string,
  settings: IntegrationSettings,
  options: { fetch?: typeof fetch; timeoutMs?: number; helpdesks?: HelpdeskRegistry } = {},
): SyncConnector {
  const { helpdesks = registry, ...client } = options;
  const helpdesk = helpdesks.get(source);
  if (!helpdesk?.sync) throw new IntegrationError(`No helpdesk named "${source}" can be synced; use one of ${helpdesks.syncable().join(', ')}`, { retryable: false });
  return helpdesk.sync(settings, client);
}

/** The sync connector of `source` for an organization, from its stored settings over the environment's. */
export function connectorForOrg(stored: IntegrationSettings, env: NodeJS.ProcessEnv, source: string, options: { fetch?: typeof fetch; timeoutMs?: number; helpdesks?: HelpdeskRegistry } = {}): SyncConnector {
  const helpdesk = (options.helpdesks ?? registry).get(source);
  const guarded = guardTargets(options.fetch, localTargetsAllowed(env));
  return connectorFor(source, effectiveSettings(stored, env, source, helpdesk?.settings ?? {}), { ...options, fetch: guarded });
}
