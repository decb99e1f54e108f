/**
 * @module Whether a docs site's sync may replace its pages. A sync that would leave fewer than
 * half of the most pages the source held in its last 30 days keeps the previous pages (links
 * broken by a redesign, a domain moved, a site shrinking sync after sync); so does one where most
 * pages turned identical (one "maintenance" page answered everywhere) or empty (extraction broken
 * by a new layout). The source then reports `kept` until a healthy sync, or `kb sync --accept`.
 */
import { createHash } from 'node:crypto';
import type { Migration } from '../../store/migrate.js';
import type { Sql } from '../../store/sql.js';

export const syncGuardMigrations: Migration[] = [
  {
    component: 'kb-sources',
    version: 2,
    description: "the most pages each docs site held per day, for the sync guard's 30 days",
    up: `
      CREATE TABLE kb_source_pages (
        org_id TEXT NOT NULL,
        source TEXT NOT NULL,
        day TEXT NOT NULL,
        pages INTEGER NOT NULL,
        PRIMARY KEY (org_id, source, day)
      );
    `,
  },
];

/** The days a source's largest size is remembered over. */
export const GUARD_DAYS = 30;
/** A sync must keep at least this share of the most pages of the last `GUARD_DAYS`. */
export const MIN_KEPT_SHARE = 0.5;
/** …and no more than this share of its pages may be empty, or share one content. */
export const MAX_SUSPECT_SHARE = 0.5;

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** The most pages the source held on any day of the last `GUARD_DAYS`. */
export async function peakPages(sql: Sql, orgId: string, source: string, now = Date.now()): Promise<number> {
  const row = await sql.get<{ peak: number | null }>('SELECT MAX(pages) AS peak FROM kb_source_pages WHERE org_id = ? AND source = ? AND day >= ?', [orgId, source, dayOf(now - GUARD_DAYS * DAY_MS)]);
  return Number(row?.peak ?? 0);
}

/**
 * Notes how many pages the source holds after a sync (the day's most is kept; days past
 * `GUARD_DAYS` go). `accepted` (`kb sync --accept`) forgets the earlier days: the site is this size now.
 */
export async function notePages(sql: Sql, orgId: string, source: string, pages: number, options: { accepted?: boolean; now?: number } = {}): Promise<void> {
  const now = options.now ?? Date.now();
  const before = options.accepted ? dayOf(now + DAY_MS) : dayOf(now - GUARD_DAYS * DAY_MS);
  await sql.run('DELETE FROM kb_source_pages WHERE org_id = ? AND source = ? AND day < ?', [orgId, source, before]);
  await sql.run(
    `INSERT INTO kb_source_pages (org_id, source, day, pages) VALUES (?, ?, ?, ?)
     ON CONFLICT (org_id, source, day) DO UPDATE SET pages = CASE WHEN excluded.pages > kb_source_pages.pages THEN excluded.pages ELSE kb_source_pages.pages END`,
    [orgId, source, dayOf(now), pages],
  );
}

/** A page as a sync found it (see `CrawledPage`). */
export interface SyncedPage {
  url: string;
  hash: string;
  notModified: boolean;
  parsed: { title: string; sections: { title: string; body: string; code: string }[] };
}

/** What a page says, its address aside: one maintenance page answered at every address hashes alike. */
function sayingOf(page: SyncedPage): string {
  const hash = createHash('sha256').update(page.parsed.title);
  for (const s of page.parsed.sections) hash.update('\0').update(s.title).update('\0').update(s.body).update('\0').update(s.code);
  return hash.digest('hex');
}

/**
 * Why a sync that found `pages` must keep the previous pages (`stored`: each page's address and
 * content hash), or null when it may replace them.
 */
export async function keepReason(sql: Sql, orgId: string, source: string, pages: SyncedPage[], stored: { relPath: string; hash: string }[]): Promise<string | null> {
  if (stored.length === 0) return null;
  const most = Math.max(await peakPages(sql, orgId, source), stored.length);
  if (pages.length < most * MIN_KEPT_SHARE) return `found ${pages.length} pages where the site held ${most} in the last ${GUARD_DAYS} days: the previous pages are kept`;
  // Pages that changed in this sync: an unchanged page (a 304, or the same hash) says what it said before.
  const before = new Map(stored.map((s) => [s.relPath, s.hash]));
  const changed = pages.filter((p) => !p.notModified && before.get(p.url) !== p.hash);
  const empty = changed.filter((p) => p.parsed.sections.every((s) => !s.body.trim() && !s.code.trim())).length;
  if (empty > pages.length * MAX_SUSPECT_SHARE) return `${empty} of ${pages.length} pages have no text now (has the site's layout changed? see --content-selector): the previous pages are kept`;
  const alike = new Map<string, number>();
  for (const p of changed) {
    const saying = sayingOf(p);
    alike.set(saying, (alike.get(saying) ?? 0) + 1);
  }
  const same = Math.max(0, ...alike.values());
  if (same >= 2 && same > pages.length * MAX_SUSPECT_SHARE) return `${same} of ${pages.length} pages now say the same thing (a maintenance or error page?): the previous pages are kept`;
  return null;
}
