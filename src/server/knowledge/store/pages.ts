/**
 * @module One page of an organization's knowledge base as it was indexed: its title and its
 * sections in page order, found by the page's URL (the MCP tool `read_page` reads it). Tickets
 * are never pages.
 */
import type { Sql } from '../../store/sql.js';
import type { StoredSection } from '../ingest/sections.js';
import { storedPassage } from './sections.js';

export interface IndexedPage {
  /** The page's address, without a fragment. */
  url: string;
  title: string;
  /** In page order, each as its passage (see text/passage.ts); the first may be the page's opening (no heading of its own). */
  sections: Pick<StoredSection, 'title' | 'context' | 'url' | 'kind' | 'passage'>[];
}

/**
 * The page at `url`, as search results give it (a fragment, `#install`, is ignored; a trailing
 * slash may differ), or null when the organization's knowledge base holds no such page.
 *
 * @example
 * const page = await indexedPage(sql, 'acme', 'https://docs.acme.dev/cli/install#windows');
 * page?.sections.map((s) => s.title); // ['Install the CLI', 'macOS', 'Windows']
 */
export async function indexedPage(sql: Sql, orgId: string, url: string): Promise<IndexedPage | null> {
  const address = withoutFragment(url);
  if (!address) return null;
  const alternate = address.endsWith('/') ? address.slice(0, -1) : `${address}/`;
  for (const candidate of [address, alternate]) {
    // The page's opening has the page's URL; each heading's section the URL and `#anchor`.
    const anchored = `${candidate}#`;
    const row = await sql.get<{ doc_key: string }>(
      `SELECT doc_key FROM kb_sections WHERE org_id = ? AND kind <> 'ticket' AND (url = ? OR substr(url, 1, ?) = ?) ORDER BY doc_key LIMIT 1`,
      [orgId, candidate, [...anchored].length, anchored],
    );
    if (!row) continue;
    const doc = await sql.get<{ title: string }>('SELECT title FROM kb_documents WHERE org_id = ? AND doc_key = ?', [orgId, row.doc_key]);
    const rows = await sql.all<{ title: string; context: string; url: string; body: string; code: string; lang: string; kind: StoredSection['kind']; passage: string | null }>(
      'SELECT title, context, url, body, code, lang, kind, passage FROM kb_sections WHERE org_id = ? AND doc_key = ? ORDER BY ord',
      [orgId, row.doc_key],
    );
    const sections = rows.map(({ passage, ...section }) => ({ title: section.title, context: section.context, url: section.url, kind: section.kind, passage: storedPassage(passage, section) }));
    return { url: candidate, title: doc?.title ?? sections[0]?.title ?? candidate, sections };
  }
  return null;
}

/** `url` without its fragment. */
function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}
