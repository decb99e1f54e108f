/** @module The organization's sources (folders, files and docs sites): remembered with how each was ingested and how its last sync went. */
import type { Migration } from '../../store/migrate.js';
import type { Sql } from '../../store/sql.js';
import type { SiteRoutes } from './site-routes.js';
import { notePages, syncGuardMigrations } from './sync-guard.js';

export const sourceMigrations: Migration[] = [
  {
    component: 'kb-sources',
    version: 1,
    description: "the organization's knowledge-base sources, and what a crawl keeps of each page",
    up: `
      CREATE TABLE kb_sources (
        org_id TEXT NOT NULL,
        source TEXT NOT NULL,
        kind TEXT NOT NULL,
        options TEXT NOT NULL,
        added_at TEXT NOT NULL,
        synced_at TEXT,
        status TEXT NOT NULL,
        pages INTEGER NOT NULL,
        sections INTEGER NOT NULL,
        failures TEXT NOT NULL,
        sync_after BIGINT,
        PRIMARY KEY (org_id, source)
      );
      ALTER TABLE kb_documents ADD COLUMN etag TEXT;
      ALTER TABLE kb_documents ADD COLUMN last_modified TEXT;
      ALTER TABLE kb_documents ADD COLUMN links TEXT;
    `,
  },
  ...syncGuardMigrations,
];

/** How a source is ingested again by `kb sync` (the options it was first ingested with). */
export interface SourceOptions {
  baseUrl?: string;
  /** A docs site's content folder: its pages are stored at the routes the site serves them. */
  routes?: SiteRoutes;
  include?: string[];
  exclude?: string[];
  maxPages?: number;
  contentSelector?: string;
  excludeSelectors?: string[];
}

export interface SourceFailure {
  url: string;
  reason: string;
}

export interface KnowledgeSource {
  /** An absolute path, or a docs site's start URL. */
  source: string;
  kind: 'path' | 'url';
  options: SourceOptions;
  addedAt: string;
  /** When it was last ingested, or null before the first time. */
  syncedAt: string | null;
  /**
   * `ok`; `partial` when some pages failed; `kept` when a sync found too little, or pages empty or
   * all alike, and the previous pages were kept (until a healthy sync or `kb sync --accept`);
   * `failed` when it could not run.
   */
  status: 'never' | 'ok' | 'partial' | 'kept' | 'failed';
  pages: number;
  sections: number;
  /** The last sync's failures (the first 20), or why it could not run. */
  failures: SourceFailure[];
}

/** Failures kept per source: enough to act on, bounded whatever the site does. */
const MAX_FAILURES = 20;

/** Where a source's documents are stored (`kb_documents.root`). */
export const rootOf = (kind: KnowledgeSource['kind'], source: string): string => (kind === 'url' ? `url:${source}` : source);

/**
 * Records a sync of a source (added the first time); a docs site's healthy or accepted sync is
 * noted for the sync guard (see sync-guard.ts).
 */
export async function recordSync(sql: Sql, orgId: string, entry: Omit<KnowledgeSource, 'addedAt' | 'pages' | 'sections'> & { accepted?: boolean }): Promise<void> {
  const root = rootOf(entry.kind, entry.source);
  const counts = (await sql.get<{ pages: number; sections: number }>(
    `SELECT COUNT(DISTINCT d.doc_key) AS pages, COUNT(s.id) AS sections FROM kb_documents d LEFT JOIN kb_sections s ON s.org_id = d.org_id AND s.doc_key = d.doc_key
     WHERE d.org_id = ? AND d.root = ?`,
    [orgId, root],
  ))!;
  await sql.run(
    `INSERT INTO kb_sources (org_id, source, kind, options, added_at, synced_at, status, pages, sections, failures) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, source) DO UPDATE SET kind = excluded.kind, options = excluded.options, synced_at = excluded.synced_at,
       status = excluded.status, pages = excluded.pages, sections = excluded.sections, failures = excluded.failures`,
    [orgId, entry.source, entry.kind, JSON.stringify(entry.options), new Date().toISOString(), entry.syncedAt, entry.status, Number(counts.pages), Number(counts.sections), JSON.stringify(entry.failures.slice(0, MAX_FAILURES))],
  );
  if (entry.kind === 'url' && (entry.status === 'ok' || entry.status === 'partial')) await notePages(sql, orgId, entry.source, Number(counts.pages), { accepted: entry.accepted });
}

/** The organization's sources, in the order they were added. */
export async function listSources(sql: Sql, orgId: string): Promise<KnowledgeSource[]> {
  const rows = await sql.all<{ source: string; kind: KnowledgeSource['kind']; options: string; added_at: string; synced_at: string | null; status: KnowledgeSource['status']; pages: number; sections: number; failures: string }>(
    'SELECT source, kind, options, added_at, synced_at, status, pages, sections, failures FROM kb_sources WHERE org_id = ? ORDER BY added_at, source',
    [orgId],
  );
  return rows.map((r) => ({ source: r.source, kind: r.kind, options: JSON.parse(r.options) as SourceOptions, addedAt: r.added_at, syncedAt: r.synced_at, status: r.status, pages: Number(r.pages), sections: Number(r.sections), failures: JSON.parse(r.failures) as SourceFailure[] }));
}


/**
 * Takes a docs-site source for a background sync when it is due (its `sync_after`, on the
 * database's clock, has passed): one statement, so of several processes exactly one gets it
 * (PostgreSQL re-checks the condition after the first's row lock). The source is held for
 * `holdMs` (a process that dies mid-sync frees it then). True when this process got it.
 */
export async function claimSiteSync(sql: Sql, orgId: string, source: string, holdMs: number): Promise<boolean> {
  const claimed = await sql.run(
    "UPDATE kb_sources SET sync_after = clock_ms() + ? WHERE org_id = ? AND source = ? AND kind = 'url' AND COALESCE(sync_after, 0) <= clock_ms()",
    [holdMs, orgId, source],
  );
  return claimed > 0;
}

/** Sets when a docs-site source is next due, `everyMs` from now on the database's clock. */
export async function scheduleSiteSync(sql: Sql, orgId: string, source: string, everyMs: number): Promise<void> {
  await sql.run('UPDATE kb_sources SET sync_after = clock_ms() + ? WHERE org_id = ? AND source = ?', [everyMs, orgId, source]);
}

/** Docs-site sources, for the background sync. */
export async function siteSources(sql: Sql): Promise<{ orgId: string; source: string }[]> {
  return (await sql.all<{ org_id: string; source: string }>("SELECT org_id, source FROM kb_sources WHERE kind = 'url' ORDER BY org_id, source")).map((r) => ({ orgId: r.org_id, source: r.source }));
}

/** Forgets a source: its registry entry and the sync guard's record of its sizes (its pages are the caller's). */
export async function forgetSource(sql: Sql, orgId: string, source: string): Promise<void> {
  await sql.run('DELETE FROM kb_source_pages WHERE org_id = ? AND source = ?', [orgId, source]);
  await sql.run('DELETE FROM kb_sources WHERE org_id = ? AND source = ?', [orgId, source]);
}
