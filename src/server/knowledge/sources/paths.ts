/** @module Ingesting files and folders: walked, each file parsed by its kind, stored when it changed, dropped when gone. */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { isIndexedFile, parseFile } from '../ingest/parse.js';
import type { IngestOptions, IngestReport, IngestTarget } from './report.js';

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

/** Ingests files and folders; unchanged files are skipped, changed ones replaced, deleted ones dropped; true when anything changed. */
export async function ingestPaths({ store, embeddings }: IngestTarget, orgId: string, roots: string[], options: IngestOptions, report: IngestReport): Promise<boolean> {
  const baseUrl = options.baseUrl ?? '';
  const plan: { file: string; root: string; rel: string }[] = [];
  for (const root of roots) {
    const info = await stat(root);
    if (info.isDirectory()) {
      const files: string[] = [];
      await walk(root, files);
      for (const file of files) plan.push({ file, root, rel: relative(dirname(root), file).split(sep).join('/') });
    } else plan.push({ file: root, root, rel: basename(root) });
  }
  const seenByRoot = new Map<string, Set<string>>();
  let done = 0;
  let embedded = false;
  for (const { file, root, rel } of plan) {
    options.onProgress?.(done, plan.length, rel);
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
    const text = buffer.toString('utf8');
    const hash = createHash('sha256').update(baseUrl).update('\0').update(rel).update('\0').update(text).digest('hex');
    const existing = await store.document(orgId, docKey);
    if (existing?.hash === hash) {
      report.unchanged++;
      if (await embeddings.fillDocument(orgId, docKey, options.embedCode)) embedded = true;
      continue;
    }
    const parsed = parseFile(text, rel, baseUrl);
    if (!parsed) continue;
    // Embedded before the transaction: the model takes tens of milliseconds per section.
    const vectors = await embeddings.sections(parsed.sections, options.embedCode);
    await store.write(orgId, docKey, { root, relPath: rel, hash, title: parsed.title }, parsed.sections, vectors);
    report.sections += parsed.sections.length;
    if (existing) report.updated++;
    else report.added++;
  }
  options.onProgress?.(plan.length, plan.length, '');
  // Files under an ingested folder that are gone now are dropped.
  for (const [root, seen] of seenByRoot) {
    for (const { docKey } of await store.documentsUnder(orgId, root)) {
      if (!seen.has(docKey) && (await store.remove(orgId, docKey))) report.removed++;
    }
  }
  return Boolean(report.added || report.updated || report.removed || embedded);
}
