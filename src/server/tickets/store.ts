/** @module Synced helpdesk tickets in the database, per organization by `source` + `external_id`, with crash-safe deletion. */
import type { Ticket } from '../../protocol/index.js';
import type { Migration } from '../store/migrate.js';
import type { Sql } from '../store/sql.js';
import type { TicketInput } from '../helpdesks/types.js';
import type { TicketStore } from './types.js';

export const ticketMigrations: Migration[] = [
  {
    component: 'tickets',
    version: 1,
    description: 'synced tickets and sync cursors',
    up: `
      CREATE TABLE tickets (
        org_id TEXT NOT NULL,
        source TEXT NOT NULL,
        external_id TEXT NOT NULL,
        title TEXT NOT NULL,
        status TEXT NOT NULL,
        url TEXT,
        customer_email TEXT,
        customer_name TEXT,
        body TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        deleting INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (org_id, source, external_id)
      );
      CREATE TABLE ticket_sync_cursors (
        org_id TEXT NOT NULL,
        source TEXT NOT NULL,
        cursor TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (org_id, source)
      );
    `,
  },
  {
    component: 'tickets',
    version: 2,
    description: 'deleted tickets the next sync asks the helpdesk about again',
    up: `
      CREATE TABLE ticket_refetch (
        org_id TEXT NOT NULL,
        source TEXT NOT NULL,
        external_id TEXT NOT NULL,
        deleted_at TEXT NOT NULL,
        PRIMARY KEY (org_id, source, external_id)
      );
    `,
  },
];

interface TicketRow {
  source: string;
  external_id: string;
  title: string;
  status: string;
  url: string | null;
  customer_email: string | null;
  customer_name: string | null;
  created_at: string;
  updated_at: string;
}

function toTicket(row: TicketRow): Ticket {
  return {
    source: row.source,
    external_id: row.external_id,
    title: row.title,
    status: row.status,
    url: row.url,
    customer_email: row.customer_email,
    customer_name: row.customer_name,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface SqlTicketStoreOptions {
  /** Removes what was derived from a ticket (its knowledge-base entries). May throw; deletion is then retried. */
  forget: (orgId: string, source: string, externalId: string) => Promise<void>;
  /** Indexes a ticket's text when it is upserted. */
  index?: (orgId: string, ticket: TicketInput) => Promise<void>;
}

const COLUMNS = 'source, external_id, title, status, url, customer_email, customer_name, created_at, updated_at';

/** Times an upsert finishes off a deletion under way and tries again before giving up. */
const UPSERT_TRIES = 3;

export class SqlTicketStore implements TicketStore {
  readonly #sql: Sql;
  readonly #options: SqlTicketStoreOptions;

  constructor(sql: Sql, options: SqlTicketStoreOptions) {
    this.#sql = sql;
    this.#options = options;
  }

  async upsert(orgId: string, ticket: TicketInput): Promise<void> {
    const source = ticket.source.toLowerCase();
    for (let tries = 1; ; tries++) {
      // Never writes into a row being deleted (the condition is checked under the row's lock): a
      // ticket half way through deletion stays deleted, its row is finished off, then imported afresh.
      const written = await this.#sql.run(
        `INSERT INTO tickets (org_id, source, external_id, title, status, url, customer_email, customer_name, body, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (org_id, source, external_id) DO UPDATE SET
           title = excluded.title, status = excluded.status, url = excluded.url, customer_email = excluded.customer_email,
           customer_name = excluded.customer_name, body = excluded.body, updated_at = excluded.updated_at
         WHERE tickets.deleting = 0`,
        [orgId, source, ticket.externalId, ticket.title, ticket.status, ticket.url, ticket.customerEmail, ticket.customerName, ticket.body, ticket.createdAt, ticket.updatedAt],
      );
      if (written > 0) break;
      if (tries === UPSERT_TRIES) throw new Error(`ticket ${source}/${ticket.externalId} is being deleted; try again`);
      await this.remove(orgId, source, ticket.externalId);
    }
    if (!this.#options.index) return;
    await this.#options.index(orgId, { ...ticket, source });
    // A deletion that began while the text was being indexed may have forgotten it before the index
    // had it: what was derived from a ticket no longer there is forgotten again.
    const live = await this.#sql.get('SELECT 1 AS live FROM tickets WHERE org_id = ? AND source = ? AND external_id = ? AND deleting = 0', [orgId, source, ticket.externalId]);
    if (!live) await this.#options.forget(orgId, source, ticket.externalId);
  }

  async get(orgId: string, source: string, externalId: string): Promise<Ticket | null> {
    const row = await this.#sql.get<TicketRow>(`SELECT ${COLUMNS} FROM tickets WHERE org_id = ? AND source = ? AND external_id = ? AND deleting = 0`, [orgId, source, externalId]);
    return row ? toTicket(row) : null;
  }

  async list(orgId: string, options: { source?: string; limit: number; cursor?: string }) {
    // The cursor is the last (source, external_id) seen, so pages stay stable while tickets change.
    let after: [string, string] = ['', ''];
    if (options.cursor) {
      try {
        const decoded = JSON.parse(Buffer.from(options.cursor, 'base64url').toString('utf8')) as unknown;
        if (Array.isArray(decoded) && decoded.length === 2 && decoded.every((v) => typeof v === 'string')) after = decoded as [string, string];
      } catch {
        // An unreadable cursor starts from the beginning.
      }
    }
    const bySource = options.source === undefined ? '' : 'AND source = ?';
    const rows = await this.#sql.all<TicketRow>(
      `SELECT ${COLUMNS} FROM tickets
       WHERE org_id = ? AND deleting = 0 ${bySource} AND (source, external_id) > (?, ?)
       ORDER BY source, external_id LIMIT ?`,
      [orgId, ...(options.source === undefined ? [] : [options.source]), after[0], after[1], options.limit + 1],
    );
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    const nextCursor = rows.length > options.limit && last ? Buffer.from(JSON.stringify([last.source, last.external_id])).toString('base64url') : null;
    return { tickets: page.map(toTicket), nextCursor };
  }

  async remove(orgId: string, source: string, externalId: string): Promise<boolean> {
    // Step 1 hides the ticket from every read at once, and remembers to ask the helpdesk about it on
    // the next sync (an incremental sync would not see an unchanged ticket again); steps 2 and 3 may
    // fail and are finished by a retry. The UPDATE holds the row's lock until the refetch is
    // recorded, so a concurrent upsert sees the ticket either whole or marked.
    const marked = await this.#sql.transaction(async (tx) => {
      const changes = await tx.run('UPDATE tickets SET deleting = 1 WHERE org_id = ? AND source = ? AND external_id = ?', [orgId, source, externalId]);
      if (changes > 0) {
        await tx.run(
          `INSERT INTO ticket_refetch (org_id, source, external_id, deleted_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (org_id, source, external_id) DO UPDATE SET deleted_at = excluded.deleted_at`,
          [orgId, source, externalId, new Date().toISOString()],
        );
      }
      return changes;
    });
    if (marked === 0) return false;
    await this.#options.forget(orgId, source, externalId);
    // Only a row still marked: one imported afresh meanwhile (deleting = 0) stays.
    await this.#sql.run('DELETE FROM tickets WHERE org_id = ? AND source = ? AND external_id = ? AND deleting = 1', [orgId, source, externalId]);
    return true;
  }

  async pendingRefetch(orgId: string, source: string): Promise<string[]> {
    const rows = await this.#sql.all<{ external_id: string }>('SELECT external_id FROM ticket_refetch WHERE org_id = ? AND source = ? ORDER BY deleted_at', [orgId, source]);
    return rows.map((r) => r.external_id);
  }

  async refetched(orgId: string, source: string, externalId: string): Promise<void> {
    await this.#sql.run('DELETE FROM ticket_refetch WHERE org_id = ? AND source = ? AND external_id = ?', [orgId, source, externalId]);
  }

  async getCursor(orgId: string, source: string): Promise<string | null> {
    const row = await this.#sql.get<{ cursor: string | null }>('SELECT cursor FROM ticket_sync_cursors WHERE org_id = ? AND source = ?', [orgId, source]);
    return row?.cursor ?? null;
  }

  async setCursor(orgId: string, source: string, cursor: string | null): Promise<void> {
    await this.#sql.run(
      `INSERT INTO ticket_sync_cursors (org_id, source, cursor, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (org_id, source) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at`,
      [orgId, source, cursor, new Date().toISOString()],
    );
  }
}
