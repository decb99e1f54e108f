/** @module Ingesting a docs site: crawled (asking only for changes), its pages stored under `url:<page>`, a sync that looks broken refused. */
import { crawl, CrawlError, type KnownPage } from '../crawl/crawler.js';
import { IngestError, type IngestOptions, type IngestReport, type IngestTarget } from './report.js';
import { recordSync, rootOf, type SourceFailure, type SourceOptions } from './source-registry.js';
import { keepReason } from './sync-guard.js';

/** Crawls a docs site and stores its pages under `url:<page>`; true when anything changed. */
export async function ingestSite({ store, embeddings }: IngestTarget, orgId: string, site: string, options: IngestOptions, report: IngestReport): Promise<boolean> {
  const sql = store.sql;
  const sourceOptions: SourceOptions = {};
  for (const key of ['include', 'exclude', 'maxPages', 'contentSelector', 'excludeSelectors'] as const) if (options[key] !== undefined) (sourceOptions as Record<string, unknown>)[key] = options[key];
  const root = rootOf('url', site);
  const stored = await store.documentsUnder(orgId, root);
  // A page whose hash was cleared (kb migration 4: stored before the passage model) is fetched whole, not asked whether it changed, so it is parsed again.
  const known = new Map<string, KnownPage>(stored.map((d) => [d.relPath, d.hash ? { etag: d.etag, lastModified: d.lastModified, links: d.links } : { etag: null, lastModified: null, links: d.links }]));
  let result;
  try {
    result = await crawl(site, { ...options.crawl, ...sourceOptions, known, onProgress: options.onCrawlProgress ? (p) => options.onCrawlProgress!({ ...p, site }) : undefined });
  } catch (error) {
    if (!(error instanceof CrawlError)) throw error;
    await recordSync(sql, orgId, { source: site, kind: 'url', options: sourceOptions, syncedAt: new Date().toISOString(), status: 'failed', failures: [{ url: site, reason: error.message }] });
    throw new IngestError(error.message);
  }
  report.pages += result.pages.length;
  report.requests += result.requests;
  const failures: SourceFailure[] = result.failed.map((f) => ({ url: f.url, reason: f.reason }));
  for (const f of failures) report.failed.push({ source: site, ...f });

  // A sync that finds far fewer pages, or mostly empty or alike ones, keeps the previous pages (see sync-guard.ts).
  const reason = options.accept ? null : await keepReason(sql, orgId, site, result.pages, stored);
  if (reason) {
    report.failed.push({ source: site, url: site, reason });
    await recordSync(sql, orgId, { source: site, kind: 'url', options: sourceOptions, syncedAt: new Date().toISOString(), status: 'kept', failures: [{ url: site, reason }, ...failures] });
    return false;
  }

  let changed = false;
  const seen = new Set<string>();
  let done = 0;
  for (const page of result.pages) {
    options.onProgress?.(done++, result.pages.length, page.url);
    const docKey = `url:${page.url}`;
    seen.add(docKey);
    const existing = await store.document(orgId, docKey);
    const cache = { etag: page.etag, lastModified: page.lastModified, links: page.links };
    if (page.notModified || existing?.hash === page.hash) {
      report.unchanged++;
      await store.setPageCache(orgId, docKey, cache);
      if (await embeddings.fillDocument(orgId, docKey, options.embedCode)) changed = true;
      continue;
    }
    const vectors = await embeddings.sections(page.parsed.sections, options.embedCode, orgId);
    if (existing) report.reparsed += await store.sectionsBeforePassages(orgId, docKey);
    await store.write(orgId, docKey, { root, relPath: page.url, hash: page.hash, title: page.parsed.title }, page.parsed.sections, vectors, cache);
    report.sections += page.parsed.sections.length;
    if (existing) report.updated++;
    else report.added++;
    changed = true;
  }
  // Pages that failed for now (a timeout, a 500) or were not reached (--max-pages) stay; gone ones (404, 410, in no sitemap or link) go.
  const gone = new Set(result.gone.map((url) => `url:${url}`));
  for (const f of result.failed) if (!gone.has(`url:${f.url}`)) seen.add(`url:${f.url}`);
  for (const s of result.skipped) if (s.reason.startsWith('over --max-pages')) seen.add(`url:${s.url}`);
  for (const { docKey } of stored) {
    if (!seen.has(docKey) && (await store.remove(orgId, docKey))) {
      report.removed++;
      changed = true;
    }
  }
  await recordSync(sql, orgId, { source: site, kind: 'url', options: sourceOptions, syncedAt: new Date().toISOString(), status: failures.length > 0 ? 'partial' : 'ok', failures, accepted: options.accept });
  return changed;
}
