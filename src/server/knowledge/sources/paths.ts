/** @module Ingesting files and folders: walked, each file parsed by its kind, stored when it changed, dropped when gone. */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve, sep } from 'node:path';
import { BATCH } from '../ranking/embeddings.js';
import { isIndexedFile, parseFile } from '../ingest/parse.js';
import type { IngestOptions, IngestReport, IngestTarget } from './report.js';
import { frontMatterOf, isSitePage, routeOf, siteUrl, skippedBy } from './site-routes.js';
import { renderJekyll, type JekyllSite } from '../ingest/jekyll.js';
import { jekyllPublishes, jekyllRoute, jekyllSiteOf } from './jekyll-site.js';
import { isDocusaurusContent } from './docusaurus-site.js';

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'coverage', 'vendor', 'target', '__pycache__', '.support-chat', '.next', 'test-results']);
const MAX_FILE_BYTES = 1024 * 1024;

async function walk(root: string, out: string[]): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = resolve(root, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) await walk(full, out);
    } else if (entry.isFile() && isIndexedFile(entry.name)) out.push(full);
  }
}

/** A file's path inside its Jekyll site's folder: the folder ingested is the site, or a collection of it. */
const pathInSite = (site: { inSite: boolean }, root: string, file: string) => (site.inSite ? relative(root, file) : relative(dirname(root), file)).split(sep).join('/');

/** Ingests files and folders; unchanged files are skipped, changed ones replaced, deleted ones dropped; true when anything changed. */
export async function ingestPaths({ store, embeddings }: IngestTarget, orgId: string, roots: string[], options: IngestOptions, report: IngestReport): Promise<boolean> {
  const baseUrl = options.baseUrl ?? '';
  const routes = options.routes;
  const plan: { file: string; root: string; rel: string }[] = [];
  /** The Jekyll site each folder ingested belongs to, if any: its pages are read as Jekyll renders them. */
  const jekyll = new Map<string, JekyllSite & { inSite: boolean }>();
  /** The folders ingested that are a Docusaurus site's content: their `.md` pages are MDX, as Docusaurus reads them. */
  const mdx = new Set<string>();
  for (const root of roots) {
    const info = await stat(root);
    if (info.isDirectory()) {
      const site = await jekyllSiteOf(root);
      if (site) jekyll.set(root, site);
      if (routes ? routes.generator === 'docusaurus' && routes.mdx !== false : await isDocusaurusContent(root)) mdx.add(root);
      const files: string[] = [];
      await walk(root, files);
      for (const file of files) {
        // A docs site's content folder: its pages alone (not its static folder), by their path inside it.
        const inSite = relative(root, file).split(sep).join('/');
        if (routes && (!isSitePage(routes, inSite) || skippedBy(routes, inSite))) continue;
        if (site && !jekyllPublishes(site.config, pathInSite(site, root, file), !site.inSite)) continue;
        plan.push({ file, root, rel: routes ? inSite : relative(dirname(root), file).split(sep).join('/') });
      }
    } else plan.push({ file: root, root, rel: basename(root) });
  }
  const seenByRoot = new Map<string, Set<string>>();
  let done = 0;
  let embedded = false;
  // Files are embedded several at once (the embedding pool has a thread per core) and written one
  // at a time, in order: `writes` is the chain of writes, `inFlight` those not yet awaited with
  // their sections. The window counts sections, not files: two batches per thread stay queued
  // whether pages are long or short, so no thread waits while the next file is parsed.
  const window = embeddings.parallelism * BATCH * 2;
  let writes: Promise<void> = Promise.resolve();
  let failed = false;
  const inFlight: { written: Promise<void>; sections: number }[] = [];
  let queued = 0;
  for (const { file, root, rel } of plan) {
    if (failed) break;
    options.onProgress?.(done, plan.length, rel, report.sections);
    done++;
    const docKey = `file:${file}`;
    if (!seenByRoot.has(root)) seenByRoot.set(root, new Set());
    seenByRoot.get(root)!.add(docKey);
    let buffer: Buffer;
    try {
      const info = await stat(file);
      if (info.size > MAX_FILE_BYTES) {
        report.skipped.push({ path: rel, reason: 'larger than 1 MB' });
        continue;
      }
      buffer = await readFile(file);
    } catch (error) {
      report.skipped.push({ path: rel, reason: error instanceof Error ? error.message : 'unreadable' });
      continue;
    }
    if (buffer.includes(0)) {
      report.skipped.push({ path: rel, reason: 'binary' });
      continue;
    }
    report.files++;
    const written = buffer.toString('utf8');
    // A Jekyll page (a Markdown file with front matter in a Jekyll site): its Liquid rendered.
    const site = jekyll.get(root);
    const isJekyllPage = site !== undefined && ['.md', '.markdown'].includes(extname(file).toLowerCase()) && written.startsWith('---');
    // Its front matter, read once: Liquid's `page`, and what a route may be set by (rendering keeps it as written).
    const front = routes || isJekyllPage ? frontMatterOf(written) : {};
    const text = isJekyllPage ? await renderJekyll(written, site, front) : written;
    // On a docs site (a Jekyll site too) a page is stored at its route (which its front matter may set).
    const route = routes ? routeOf(routes, rel, front) : isJekyllPage ? jekyllRoute(site.config, pathInSite(site, root, file), front) : undefined;
    const pageUrl = route === undefined ? undefined : siteUrl(route, options.baseUrl);
    const asMdx = mdx.has(root);
    // How the page is read is part of its hash: a kramdown page read before its extension tags were syntax is read again.
    const hash = createHash('sha256').update(baseUrl).update('\0').update(pageUrl ?? rel).update('\0').update(isJekyllPage && site.kramdown ? 'kramdown+extensions\0' : '').update(asMdx ? 'mdx\0' : '').update(text).digest('hex');
    const existing = await store.document(orgId, docKey);
    if (existing?.hash === hash) {
      report.unchanged++;
      if (await embeddings.fillDocument(orgId, docKey, options.embedCode)) embedded = true;
      continue;
    }
    const parsed = parseFile(text, rel, baseUrl, pageUrl, { kramdown: isJekyllPage && site.kramdown, mdx: asMdx });
    if (!parsed) continue;
    // Embedded before the transaction: the model takes tens of milliseconds per section.
    const vectors = embeddings.sections(parsed.sections, options.embedCode, orgId);
    writes = writes.then(async () => {
      if (existing) report.reparsed += await store.sectionsBeforePassages(orgId, docKey);
      await store.write(orgId, docKey, { root, relPath: rel, hash, title: parsed.title }, parsed.sections, await vectors);
      report.sections += parsed.sections.length;
      if (existing) report.updated++;
      else report.added++;
    });
    inFlight.push({ written: writes.catch(() => void (failed = true)), sections: parsed.sections.length });
    queued += parsed.sections.length;
    while (queued >= window) {
      const oldest = inFlight.shift()!;
      await oldest.written;
      queued -= oldest.sections;
    }
  }
  // A write that failed rejects here.
  await writes;
  options.onProgress?.(plan.length, plan.length, '', report.sections);
  // Files under an ingested folder that are gone now are dropped.
  for (const [root, seen] of seenByRoot) {
    for (const { docKey } of await store.documentsUnder(orgId, root)) {
      if (!seen.has(docKey) && (await store.remove(orgId, docKey))) report.removed++;
    }
  }
  return Boolean(report.added || report.updated || report.removed || embedded);
}
