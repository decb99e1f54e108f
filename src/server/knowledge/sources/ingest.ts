/**
 * @module Ingestion: files, folders and docs sites into the knowledge base, each remembered as a
 * source, and every source ingested again on `sync`.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ingestPaths } from './paths.js';
import { emptyReport, IngestError, type IngestOptions, type IngestReport, type IngestTarget } from './report.js';
import { ingestSite } from './sites.js';
import { forgetSource, listSources, recordSync, rootOf, type KnowledgeSource, type SourceOptions } from './source-registry.js';

/** What `sync` is given: ingest options (a source's own come from the registry), and which sources. */
export type SyncOptions = Omit<IngestOptions, keyof SourceOptions> & {
  /** Only sources of these kinds (the background sync reads docs sites only). */
  kinds?: KnowledgeSource['kind'][];
  /** Only this source. */
  only?: string;
};

const isUrl = (input: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(input);

/**
 * Ingests files, folders and docs sites (by URL): unchanged files and pages are skipped, changed
 * ones replaced, gone ones dropped; each source is remembered for `sync`.
 */
export async function ingest(target: IngestTarget, orgId: string, inputs: string[], options: IngestOptions = {}): Promise<IngestReport> {
  const report = emptyReport();
  const paths = inputs.filter((input) => !isUrl(input));
  const sites = inputs.filter(isUrl);
  // Every input is checked before anything is written: a typo in the last one changes nothing.
  const roots: string[] = [];
  for (const input of paths) {
    try {
      await stat(resolve(input));
    } catch {
      throw new IngestError(`cannot read "${input}": no such file or directory`);
    }
    roots.push(resolve(input));
  }
  for (const site of sites) {
    let url: URL;
    try {
      url = new URL(site);
    } catch {
      throw new IngestError(`"${site}" is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new IngestError(`"${site}" is not an http(s) URL`);
  }
  const sql = target.store.sql;
  let changed = false;
  if (roots.length > 0) {
    changed = (await ingestPaths(target, orgId, roots, options, report)) || changed;
    const sourceOptions: SourceOptions = { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), ...(options.routes ? { routes: options.routes } : {}) };
    for (const root of roots) await recordSync(sql, orgId, { source: root, kind: 'path', options: sourceOptions, syncedAt: new Date().toISOString(), status: 'ok', failures: [] });
  }
  for (const site of sites) changed = (await ingestSite(target, orgId, site, options, report)) || changed;
  if (changed) await target.store.bump(orgId);
  return report;
}

/**
 * Ingests every remembered source again with the options it was added with (`kinds` limits it:
 * the background sync reads docs sites only). A source that fails is reported, and the others still run.
 */
export async function sync(target: IngestTarget, orgId: string, options: SyncOptions = {}): Promise<IngestReport & { sources: number }> {
  const sql = target.store.sql;
  const total: IngestReport & { sources: number } = { sources: 0, ...emptyReport() };
  for (const source of await listSources(sql, orgId)) {
    if (options.kinds && !options.kinds.includes(source.kind)) continue;
    if (options.only !== undefined && source.source !== options.only) continue;
    total.sources++;
    try {
      const report = await ingest(target, orgId, [source.source], { ...options, ...source.options });
      for (const key of ['files', 'pages', 'requests', 'added', 'updated', 'unchanged', 'removed', 'sections', 'reparsed'] as const) total[key] += report[key];
      total.failed.push(...report.failed);
      total.skipped.push(...report.skipped);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      total.failed.push({ source: source.source, url: source.source, reason });
      await recordSync(sql, orgId, { ...source, syncedAt: new Date().toISOString(), status: 'failed', failures: [{ url: source.source, reason }] });
    }
  }
  return total;
}

/**
 * Removes a remembered source and every page it brought: `source` as `kb sources` lists it (a
 * folder or file may be named by a relative path). Throws `IngestError` for an unknown source.
 */
export async function removeSource(target: IngestTarget, orgId: string, source: string): Promise<{ source: string; pages: number }> {
  const sql = target.store.sql;
  const known = await listSources(sql, orgId);
  const found = known.find((s) => s.source === source) ?? (isUrl(source) ? undefined : known.find((s) => s.kind === 'path' && s.source === resolve(source)));
  if (!found) {
    const listed = known.length > 0 ? `its sources are ${known.map((s) => s.source).join(', ')}` : 'it has no sources';
    throw new IngestError(`${orgId} has no source "${source}": ${listed}`);
  }
  let pages = 0;
  for (const { docKey } of await target.store.documentsUnder(orgId, rootOf(found.kind, found.source))) if (await target.store.remove(orgId, docKey)) pages++;
  await forgetSource(sql, orgId, found.source);
  await target.store.bump(orgId);
  return { source: found.source, pages };
}
