/** @module Synced helpdesk tickets in SQLite, per organization by `source` + `external_id`, with crash-safe deletion. */
import type { Ticket } from '../../protocol/index.js';
import type { Db, Migration } from '../store/database.js';
import type { TicketInput, TicketStore } from './types.js';

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

export interface SqliteTicketStoreOptions {
  /** Removes what was derived from a ticket (its knowledge-base entries). May throw; deletion is then retried. */
  forget: (orgId: string, source: string, externalId: string) => Promise<void>;
  /** Indexes a ticket's text when it is upserted. */
  index?: (orgId: string, ticket: TicketInput) => Promise<void>;
}

const COLUMNS = 'source, external_id, title, status, url, customer_email, customer_name, created_at, updated_at';

export class SqliteTicketStore implements TicketStore {
  readonly #db: Db;
  readonly #options: SqliteTicketStoreOptions;

  constructor(db: Db, options: SqliteTicketStoreOptions) {
    this.#db = db;
    this.#options = options;
  }

  async upsert(orgId: string, ticket: TicketInput): Promise<void> {
    const source = ticket.source.toLowerCase();
    // A ticket half way through deletion stays deleted: its row is finished off, then imported afresh.
    const pending = this.#db.prepare('SELECT deleting FROM tickets WHERE org_id = ? AND source = ? AND external_id = ?').get(orgId, source, ticket.externalId) as
      | { deleting: number }
      | undefined;
    if (pending?.deleting) await this.remove(orgId, source, ticket.externalId);
    this.#db
      .prepare(
        `INSERT INTO tickets (org_id, source, external_id, title, status, url, customer_email, customer_name, body, created_at, updated_at)
         VALUES (@orgId, @source, @externalId, @title, @status, @url, @customerEmail, @customerName, @body, @createdAt, @updatedAt)
         ON CONFLICT (org_id, source, external_id) DO UPDATE SET
           title = excluded.title, status = excluded.status, url = excluded.url, customer_email = excluded.customer_email,
           customer_name = excluded.customer_name, body = excluded.body, updated_at = excluded.updated_at`,
      )
      .run({ orgId, ...ticket, source });
    await this.#options.index?.(orgId, { ...ticket, source });
  }

  async get(orgId: string, source: string, externalId: string): Promise<Ticket | null> {
    const row = this.#db
      .prepare(`SELECT ${COLUMNS} FROM tickets WHERE org_id = ? AND source = ? AND external_id = ? AND deleting = 0`)
      .get(orgId, source, externalId) as TicketRow | undefined;
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
    const rows = this.#db
      .prepare(
        `SELECT ${COLUMNS} FROM tickets
         WHERE org_id = ? AND deleting = 0 AND (? IS NULL OR source = ?) AND (source, external_id) > (?, ?)
         ORDER BY source, external_id LIMIT ?`,
      )
      .all(orgId, options.source ?? null, options.source ?? null, after[0], after[1], options.limit + 1) as TicketRow[];
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    const nextCursor = rows.length > options.limit && last ? Buffer.from(JSON.stringify([last.source, last.external_id])).toString('base64url') : null;
    return { tickets: page.map(toTicket), nextCursor };
  }

  async remove(orgId: string, source: string, externalId: string): Promise<boolean> {
    // Step 1 hides the ticket from every read at once, and remembers to ask the helpdesk about it on
    // the next sync (an incremental sync would not see an unchanged ticket again); steps 2 and 3 may
    // fail and are finished by a retry.
    const marked = this.#db.transaction(() => {
      const changes = this.#db
        .prepare('UPDATE tickets SET deleting = 1 WHERE org_id = ? AND source = ? AND external_id = ?')
        .run(orgId, source, externalId).changes;
      if (changes > 0) {
        this.#db
          .prepare('INSERT OR REPLACE INTO ticket_refetch (org_id, source, external_id, deleted_at) VALUES (?, ?, ?, ?)')
          .run(orgId, source, externalId, new Date().toISOString());
      }
      return changes;
    })();
    if (marked === 0) return false;
    await this.#options.forget(orgId, source, externalId);
    this.#db.prepare('DELETE FROM tickets WHERE org_id = ? AND source = ? AND external_id = ? AND deleting = 1').run(orgId, source, externalId);
    return true;
  }

  async pendingRefetch(orgId: string, source: string): Promise<string[]> {
    const rows = this.#db.prepare('SELECT external_id FROM ticket_refetch WHERE org_id = ? AND source = ? ORDER BY deleted_at').all(orgId, source) as { external_id: string }[];
    return rows.map((r) => r.external_id);
  }

  async refetched(orgId: string, source: string, externalId: string): Promise<void> {
    this.#db.prepare('DELETE FROM ticket_refetch WHERE org_id = ? AND source = ? AND external_id = ?').run(orgId, source, externalId);
  }

  async getCursor(orgId: string, source: string): Promise<string | null> {
    const row = this.#db.prepare('SELECT cursor FROM ticket_sync_cursors WHERE org_id = ? AND source = ?').get(orgId, source) as { cursor: string | null } | undefined;
    return row?.cursor ?? null;
  }

  async setCursor(orgId: string, source: string, cursor: string | null): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO ticket_sync_cursors (org_id, source, cursor, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (org_id, source) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at`,
      )
      .run(orgId, source, cursor, new Date().toISOString());
  }
}
