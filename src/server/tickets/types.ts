/** @module Synced helpdesk tickets as the rest of the server sees them. */
import type { Ticket } from '../../protocol/index.js';
import type { TicketInput } from '../helpdesks/types.js';

export interface TicketStore {
  upsert(orgId: string, ticket: TicketInput): Promise<void>;
  get(orgId: string, source: string, externalId: string): Promise<Ticket | null>;
  list(orgId: string, options: { source?: string; limit: number; cursor?: string }): Promise<{ tickets: Ticket[]; nextCursor: string | null }>;
  /**
   * Permanently deletes the ticket and everything derived from it. Returns false when absent.
   * Throws when deletion could not finish; calling again completes it.
   */
  remove(orgId: string, source: string, externalId: string): Promise<boolean>;
  /** Tickets deleted here since the last sync: the next sync asks the helpdesk whether they still exist. */
  pendingRefetch(orgId: string, source: string): Promise<string[]>;
  /** The helpdesk was asked about a deleted ticket (and it was imported again, or is gone there too). */
  refetched(orgId: string, source: string, externalId: string): Promise<void>;
  /** Incremental sync position per organization and source. */
  getCursor(orgId: string, source: string): Promise<string | null>;
  setCursor(orgId: string, source: string, cursor: string | null): Promise<void>;
}
