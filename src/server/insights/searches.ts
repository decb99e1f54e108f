/**
 * @module What visitors search for (`GET /v0/search`) and what found nothing, for the insights
 * report. Kept bounded: one row per organization, UTC day and normalized query (its count, how many
 * found nothing, the last result count and page), at most `MAX_QUERIES_PER_DAY` queries a day per
 * organization, the rest counted together in one row of the day.
 */
import type { Migration } from '../store/migrate.js';
import type { Sql } from '../store/sql.js';

export const searchMigrations: Migration[] = [
  {
    component: 'insight-searches',
    version: 1,
    description: "searches per organization, day and normalized query, for the insights report's top and zero-result searches",
    up: `
      CREATE TABLE insight_searches (
        org_id TEXT NOT NULL,
        day TEXT NOT NULL,
        query TEXT NOT NULL,
        searches INTEGER NOT NULL,
        zero_results INTEGER NOT NULL,
        last_results INTEGER NOT NULL,
        last_page_url TEXT,
        last_at TEXT NOT NULL,
        PRIMARY KEY (org_id, day, query)
      );
    `,
  },
];

/** Distinct queries kept per organization and day; a search for another one that day counts in the `OTHER` row. */
export const MAX_QUERIES_PER_DAY = 1_000;
/** The query of the row counting the day's searches past `MAX_QUERIES_PER_DAY`. */
export const OTHER = '';
/** Characters of a query kept (the API takes at most 500). */
const QUERY_CHARS = 200;
/** Characters of the page a search came from kept. */
const PAGE_CHARS = 2_000;

/** A query as the report groups it: NFKC, lowercase, blanks collapsed, clipped; '' for nothing. (The report masks email addresses in it, as in questions.) */
export function normalizeQuery(query: string): string {
  const text = query
    .slice(0, QUERY_CHARS * 2)
    .normalize('NFKC')
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
  return text.slice(0, QUERY_CHARS).trimEnd();
}

/** One search, as the route saw it. */
export interface SearchRecord {
  orgId: string;
  query: string;
  results: number;
  pageUrl?: string | null;
}

/** Records searches for the report. */
export class SearchLog {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one search in its day's row (or the day's `OTHER` row when the day has its fill of queries). */
  async record(search: SearchRecord): Promise<void> {
    const query = normalizeQuery(search.query);
    if (!query) return;
    const at = new Date(this.now()).toISOString();
    const day = at.slice(0, 10);
    const zero = search.results === 0 ? 1 : 0;
    const page = search.pageUrl ? search.pageUrl.slice(0, PAGE_CHARS) : null;
    const values = [zero, search.results, page, at];
    const bump = 'UPDATE insight_searches SET searches = searches + 1, zero_results = zero_results + ?, last_results = ?, last_page_url = ?, last_at = ? WHERE org_id = ? AND day = ? AND query = ?';
    if ((await this.sql.run(bump, [...values, search.orgId, day, query])) > 0) return;
    const kept = (await this.sql.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM insight_searches WHERE org_id = ? AND day = ?', [search.orgId, day]))!;
    const row = Number(kept.n) < MAX_QUERIES_PER_DAY ? query : OTHER;
    await this.sql.run(
      `INSERT INTO insight_searches (org_id, day, query, searches, zero_results, last_results, last_page_url, last_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?)
       ON CONFLICT (org_id, day, query) DO UPDATE SET searches = insight_searches.searches + 1, zero_results = insight_searches.zero_results + excluded.zero_results,
         last_results = excluded.last_results, last_page_url = excluded.last_page_url, last_at = excluded.last_at`,
      [search.orgId, day, row, ...values],
    );
  }
}

/** The report's part on searches. */
export interface SearchInsights {
  /** Searches in the period, and how many found nothing. */
  totals: { searches: number; zero_result_searches: number };
  /** The queries searched most: how often, how many of those found nothing, and the last search's result count. */
  top_searches: { query: string; searches: number; zero_results: number; last_results: number }[];
  /** Queries that found nothing, most often first: pages to write, or words to add to them. */
  zero_result_searches: { query: string; searches: number; last_at: string; last_page_url: string | null }[];
  /** Distinct queries of the period (the lists hold the first ones). */
  search_query_count: number;
}

/**
 * The period's searches, by the UTC days it covers (a search is counted by its day), read from
 * at most `MAX_QUERIES_PER_DAY + 1` rows a day and folded per query.
 */
export async function searchInsights(sql: Sql, options: { orgId: string; since: Date; until: Date; limit: number }): Promise<SearchInsights> {
  const first = options.since.toISOString().slice(0, 10);
  const last = new Date(options.until.getTime() - 1).toISOString().slice(0, 10);
  const rows = await sql.all<{ query: string; searches: number | string; zero_results: number | string; last_results: number | string; last_page_url: string | null; last_at: string }>(
    'SELECT query, searches, zero_results, last_results, last_page_url, last_at FROM insight_searches WHERE org_id = ? AND day >= ? AND day <= ?',
    [options.orgId, first, last],
  );
  const byQuery = new Map<string, { query: string; searches: number; zero_results: number; last_results: number; last_at: string; last_page_url: string | null }>();
  const totals = { searches: 0, zero_result_searches: 0 };
  for (const row of rows) {
    const searches = Number(row.searches);
    const zero = Number(row.zero_results);
    totals.searches += searches;
    totals.zero_result_searches += zero;
    if (row.query === OTHER) continue;
    const entry = byQuery.get(row.query);
    if (!entry) byQuery.set(row.query, { query: row.query, searches, zero_results: zero, last_results: Number(row.last_results), last_at: row.last_at, last_page_url: row.last_page_url });
    else {
      entry.searches += searches;
      entry.zero_results += zero;
      if (row.last_at > entry.last_at) Object.assign(entry, { last_results: Number(row.last_results), last_at: row.last_at, last_page_url: row.last_page_url });
    }
  }
  const all = [...byQuery.values()];
  const byCount = (a: { searches: number; query: string }, b: { searches: number; query: string }) => b.searches - a.searches || a.query.localeCompare(b.query);
  return {
    totals,
    top_searches: [...all].sort(byCount).slice(0, options.limit).map(({ query, searches, zero_results, last_results }) => ({ query, searches, zero_results, last_results })),
    zero_result_searches: all
      .filter((q) => q.zero_results > 0)
      .map((q) => ({ query: q.query, searches: q.zero_results, last_at: q.last_at, last_page_url: q.last_page_url }))
      .sort(byCount)
      .slice(0, options.limit),
    search_query_count: all.length,
  };
}
