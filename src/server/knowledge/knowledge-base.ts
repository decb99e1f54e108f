/** @module The organization's knowledge base: ingestion of docs and code into the database, and a cached search index per organization. */
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve, sep } from 'node:path';
import type { Migration } from '../store/migrate.js';
import type { Sql } from '../store/sql.js';
import { CODE_LANGUAGES, parseCode } from './ingest/code.js';
import { parseHtml } from './ingest/html.js';
import { parseMarkdown } from './ingest/markdown.js';
import { parseText } from './ingest/text.js';
import type { ParsedFile, Section } from './ingest/sections.js';
import { DenseIndex } from './ranking/dense-index.js';
import { listSources, recordSync, rootOf, sourceMigrations, type KnowledgeSource, type SourceFailure, type SourceOptions } from './sources/source-registry.js';
import { keepReason } from './sources/sync-guard.js';
import { crawl, CrawlError, type CrawlOptions, type CrawlProgress, type KnownPage } from './crawl/crawler.js';
import { BATCH, cosine, fromBytes, sectionText, toBytes, type Embedder } from './ranking/embeddings.js';
import { SearchIndex, type Hit } from './ranking/search-index.js';

export const kbMigrations: Migration[] = [
  {
    component: 'kb',
    version: 1,
    description: 'knowledge-base documents and sections',
    up: `
      CREATE TABLE kb_documents (
        org_id TEXT NOT NULL,
        doc_key TEXT NOT NULL,
        root TEXT NOT NULL,
        rel_path TEXT NOT NULL,
        hash TEXT NOT NULL,
        title TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (org_id, doc_key)
      );
      CREATE INDEX kb_documents_root ON kb_documents (org_id, root);
      CREATE TABLE kb_sections (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        org_id TEXT NOT NULL,
        doc_key TEXT NOT NULL,
        ord INTEGER NOT NULL,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        context TEXT NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        code TEXT NOT NULL,
        lang TEXT NOT NULL
      );
      CREATE INDEX kb_sections_doc ON kb_sections (org_id, doc_key);
      CREATE TABLE kb_versions (org_id TEXT PRIMARY KEY, version INTEGER NOT NULL);
    `,
  },
  {
    component: 'kb',
    version: 2,
    description: 'sentence embeddings of doc and ticket sections',
    up: 'ALTER TABLE kb_sections ADD COLUMN embedding BLOB;',
  },
  {
    component: 'kb',
    version: 3,
    description: 'what made each sentence embedding (see Embedder.id)',
    up: 'ALTER TABLE kb_sections ADD COLUMN embedding_by TEXT;',
  },
  ...sourceMigrations,
];

export interface StoredSection extends Section {
  id: number;
  docKey: string;
}

export interface SearchHit extends Hit {
  section: StoredSection;
  /**
   * For a heading with no text of its own (the next heading follows at once), the section right
   * after it on its page: what a reader finds under that heading, and what is quoted for it.
   */
  under?: StoredSection;
  /** Cosine of the question's sentence embedding with the section's, when both have one (see embeddings.ts). */
  similarity?: number;
}

/** What the knowledge base knows of a term (as `tokenize` returns it). */
export interface Vocabulary {
  /** Whether any section holds the term. */
  has(term: string): boolean;
  /** The terms of a text, misspelled words read as the words they most likely mean (see `SearchIndex.terms`). */
  terms(text: string): string[];
}

export interface SearchOptions {
  /** Earlier user turns: their words count less. */
  history?: string[];
  /** @default 10 */
  limit?: number;
  /** Synced tickets too (private to the organization's agents). @default false */
  includeTickets?: boolean;
  /** The question's sentence embedding: the best doc sections are reordered by what they mean too (see `SEMANTIC_RERANK`). */
  vector?: Int8Array | null;
}

/** One organization's knowledge base at one version. */
export interface KnowledgeSnapshot {
  search(query: string, options?: SearchOptions): SearchHit[];
  vocabulary: Vocabulary;
}

export interface IngestOptions extends Omit<SourceOptions, 'baseUrl'> {
  /** Prefix of every source URL without frontmatter `url`: base URL + path relative to the ingested folder's parent. */
  baseUrl?: string;
  onProgress?(done: number, total: number, file: string): void;
  /** A docs site's crawl as it goes. */
  onCrawlProgress?(progress: CrawlProgress & { site: string }): void;
  /** Crawl settings beside the source's own (concurrency, timeouts, retries; tests' stand-in `fetch`). */
  crawl?: Omit<CrawlOptions, 'known' | 'onProgress' | keyof SourceOptions>;
  /** Replace a docs site's pages even where the sync guard would keep them (`kb sync --accept`). */
  accept?: boolean;
  /**
   * Embed code pieces now too (`kb ingest --embed-code`). By default they are stored without a
   * vector and a server embeds them in the background (see `KnowledgeStore.embedPending`): the
   * model takes tens of milliseconds a piece, and a project's source has thousands of them.
   */
  embedCode?: boolean;
}

/** What `KnowledgeStore.embedPending` embeds at once, and how it is stopped. */
export interface EmbedPendingOptions {
  /** Sections read, embedded and written at once (the only ones held in memory). @default the model thread's own batch (16) */
  batch?: number;
  /** Stops the run between batches (what was written stays). */
  signal?: AbortSignal;
}

/** The condition on `kb_sections` of a section with no vector of the embedder given as the next parameter. */
const UNEMBEDDED = '(embedding IS NULL OR embedding_by IS NULL OR embedding_by <> ?)';

export interface IngestReport {
  files: number;
  /** Pages of docs sites read (304s included). */
  pages: number;
  /** Requests made to docs sites. */
  requests: number;
  /** Pages of docs sites that could not be read, and sources whose sync was refused (the previous pages kept). */
  failed: { source: string; url: string; reason: string }[];
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  sections: number;
  skipped: { path: string; reason: string }[];
}

export interface TicketDocument {
  source: string;
  externalId: string;
  title: string;
  body: string | null;
  url: string | null;
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'coverage', 'vendor', 'target', '__pycache__', '.support-chat', '.next', 'test-results']);
const DOC_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.html', '.htm', '.txt', '.rst']);
const MAX_FILE_BYTES = 1024 * 1024;
/** How much the page's relevance adds to a section's (both normalised to the best hit). */
const PAGE_WEIGHT = 0.2;
/** Support questions are answered from docs first; code wins when it is clearly the better match. */
const CODE_PRIOR = 0.5;
/** A doc section matching as much of the question as a code section goes first from this share of its score on. */
const DOCS_FIRST_RATIO = 0.2;
/**
 * The semantic rerank, for questions in other words than the docs': when the best hit matches
 * less than `belowCoverage` of the question's weight, the best `candidates` doc sections by their
 * words are reordered by `words × (score / best doc score) + cosine(question, section)`, in the
 * places doc sections hold among the hits (code keeps its places: reordered by meaning, code
 * ranked worse). A question in the docs' own words keeps its ranking: reordered too, the demo's
 * "Where is the data stored?" led with the widget's `data-*` attributes. Normalised-score fusion,
 * measured against reciprocal-rank fusion and min-max normalised cosines (see docs/engine.md).
 */
const SEMANTIC_RERANK = { candidates: 50, words: 1, belowCoverage: 0.5 };

/**
 * Dense retrieval, the first stage beside the words: the sections (docs, tickets and code) whose
 * sentence embeddings are nearest the question's join the candidates with no score of their
 * words, so "money back" reaches "Refunds" though they share no word; the semantic rerank then
 * places the doc sections by their cosine. Chosen on the development sets together (see docs/engine.md).
 */
const DENSE_CANDIDATES = 20;
/**
 * The least cosine a section found by its meaning alone needs to join: nearer than the neutral
 * point of the decision's meaning signal (`MEANING_NEUTRAL`), so a question about nothing the
 * knowledge base holds still finds nothing.
 */
const DENSE_MIN_COSINE = 0.5;
/**
 * When the words match less than `SEMANTIC_RERANK.belowCoverage` of the question, the `count`
 * doc sections nearest in meaning (at `DENSE_MIN_COSINE` or nearer) are placed second, fourth and
 * sixth unless already among the first five: a reply that is not sure shows the pages nearest by
 * words and the pages nearest by meaning side by side, as the five related pages.
 */
const NEAREST_SHOWN = { count: 3, firstPlaces: 5 };

/** Whether a hit takes part in the semantic rerank: a doc or ticket section with a vector (code keeps its places). */
const reranked = (section: StoredSection, vector: Int8Array | null) => section.kind !== 'code' && vector !== null;

/**
 * The doc and ticket hits reordered by what they mean as well as by their words (see
 * `SEMANTIC_RERANK`); unchanged when a candidate has no vector yet (a knowledge base ingested
 * without embeddings ranks by its words until `kb ingest` is run again).
 */
function semanticRerank<T extends { index: number; score: number; coverage: number; section: StoredSection }>(hits: T[], question: Int8Array, vectors: (Int8Array | null)[]): T[] {
  const slots: number[] = [];
  for (let i = 0; i < hits.length && slots.length < SEMANTIC_RERANK.candidates; i++) if (hits[i]!.section.kind !== 'code') slots.push(i);
  if (slots.length < 2 || hits[0]!.coverage >= SEMANTIC_RERANK.belowCoverage || slots.some((i) => !reranked(hits[i]!.section, vectors[hits[i]!.index] ?? null))) return hits;
  const best = hits[slots[0]!]!.score || 1;
  const reordered = slots
    .map((i) => ({ hit: hits[i]!, score: (SEMANTIC_RERANK.words * hits[i]!.score) / best + cosine(question, vectors[hits[i]!.index]!) }))
    .sort((a, b) => b.score - a.score);
  const out = [...hits];
  slots.forEach((slot, k) => (out[slot] = reordered[k]!.hit));
  return out;
}

/**
 * The hits with the `nearest` sections (by meaning, best first) placed second, fourth, sixth…
 * unless already among the first `NEAREST_SHOWN.firstPlaces` (see `NEAREST_SHOWN`).
 */
export function showNearest<T extends { index: number }>(hits: T[], nearest: T[]): T[] {
  const shown = new Set(hits.slice(0, NEAREST_SHOWN.firstPlaces).map((h) => h.index));
  const missing = nearest.filter((h) => !shown.has(h.index));
  if (missing.length === 0) return hits;
  const moved = new Set(missing.map((h) => h.index));
  const rest = hits.filter((h) => !moved.has(h.index));
  const out: T[] = [];
  let m = 0, r = 0;
  while (m < missing.length || r < rest.length) {
    if ((out.length % 2 === 1 && m < missing.length) || r >= rest.length) out.push(missing[m++]!);
    else out.push(rest[r++]!);
  }
  return out;
}

/**
 * Docs before code: the ranked hits merged so that a doc section goes before a code section whenever
 * it matches as much of the question (coverage within 0.05) and scores at least a fifth as much:
 * a support question is answered from the docs that explain, and the code is the last resort.
 */
function docsFirst<T extends { score: number; coverage: number; section: { kind: string } }>(hits: T[]): T[] {
  const docs = hits.filter((h) => h.section.kind !== 'code');
  const code = hits.filter((h) => h.section.kind === 'code');
  if (docs.length === 0 || code.length === 0) return hits;
  const out: T[] = [];
  let d = 0, c = 0;
  while (d < docs.length || c < code.length) {
    const doc = docs[d];
    const piece = code[c];
    const takeDoc = !piece || (doc && (doc.score >= piece.score || (doc.coverage >= piece.coverage - 0.05 && doc.score >= piece.score * DOCS_FIRST_RATIO)));
    if (takeDoc) out.push(docs[d++]!);
    else out.push(code[c++]!);
  }
  return out;
}

/**
 * The bold labels that open list items ("- **CSP.** Works under…" gives "CSP"). Blanks within the
 * line only: `^\s*` crossed line ends, and so read a run of empty lines again from each of them.
 */
export function runInLabels(body: string): string[] {
  return [...body.matchAll(/^[^\S\n]*(?:[-*+]|\d+[.)])[^\S\n]+\*\*([^*\n]{1,40}?)[.:]?\*\*/gm)].map((m) => m[1]!);
}


const isUrl = (input: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(input);

/** Thrown for paths that cannot be ingested at all (missing, unreadable), and docs sites that cannot be crawled (a bad URL, no answer, robots.txt forbidding it). */
export class IngestError extends Error {
  override name = 'IngestError';
}

async function walk(root: string, out: string[]): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = resolve(root, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) await walk(full, out);
    } else if (entry.isFile()) {
      const ext = extname(entry.name).toLowerCase();
      if (DOC_EXTENSIONS.has(ext) || ext in CODE_LANGUAGES) out.push(full);
    }
  }
}

function joinUrl(base: string, path: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  if (!base) return encoded;
  return base.endsWith('/') ? base + encoded : `${base}/${encoded}`;
}

/**
 * A base URL into a repository's file browser (GitHub's and GitLab's `…/blob/BRANCH/`), where a
 * page is its file: Markdown keeps its extension there, as a docs site's does not.
 */
export function servesFiles(baseUrl: string): boolean {
  if (!URL.canParse(baseUrl)) return false;
  return new URL(baseUrl).pathname.split('/').includes('blob');
}

/** Parses one file by its kind; null for kinds we do not index. */
export function parseFile(text: string, relPath: string, baseUrl: string): ParsedFile | null {
  const ext = extname(relPath).toLowerCase();
  const fallbackTitle = basename(relPath, ext);
  if (ext === '.md' || ext === '.markdown' || ext === '.mdx') {
    const page = servesFiles(baseUrl) ? relPath : relPath.slice(0, -ext.length);
    return parseMarkdown(text, { url: joinUrl(baseUrl, page), fallbackTitle, mdx: ext === '.mdx' });
  }
  if (ext === '.html' || ext === '.htm') return parseHtml(text, { url: joinUrl(baseUrl, relPath), fallbackTitle });
  if (ext === '.txt' || ext === '.rst') return parseText(text, { url: joinUrl(baseUrl, relPath), fallbackTitle });
  const lang = CODE_LANGUAGES[ext];
  if (lang) return parseCode(text, { url: joinUrl(baseUrl, relPath), path: relPath, lang });
  return null;
}

interface LoadedIndex {
  version: number;
  index: SearchIndex;
  sections: StoredSection[];
  pages: SearchIndex;
  pageOf: Int32Array;
  /** Each section's sentence embedding (null for code, and for sections stored without one). */
  vectors: (Int8Array | null)[];
  /** The same vectors, for dense retrieval. */
  dense: DenseIndex;
}

/**
 * How much of a ticket is indexed. Ticket text is written by the helpdesk's customers, at any
 * length: every rebuild of the index reads it, and so does every answer that weighs it.
 */
const TICKET_INDEXED_CHARS = { title: 300, body: 20_000 };

/** The start of a text, `max` characters at most, not cutting a character outside the Basic Multilingual Plane in half. */
function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max);
}

/** Rows per INSERT when a document's sections are written (12 parameters each, well under both engines' limits). */
const SECTION_BATCH = 50;

export class KnowledgeStore {
  readonly #sql: Sql;
  readonly #cache = new Map<string, LoadedIndex>();
  /** Indexes being built, per organization: questions arriving meanwhile wait for the same build. */
  readonly #building = new Map<string, { version: number; loaded: Promise<LoadedIndex> }>();
  readonly #embedder: Embedder | null;

  /** `embedder`: what embeds doc sections at ingest and questions at search; null ranks by words alone. */
  constructor(sql: Sql, embedder: Embedder | null) {
    this.#sql = sql;
    this.#embedder = embedder;
  }

  /**
   * The sentence embeddings of sections (see `sectionText`); null without an embedder, or when it
   * fails, and for code pieces unless `code` (they are embedded in the background: `embedPending`).
   */
  async #embed(sections: Section[], code = false): Promise<(Int8Array | null)[]> {
    const embedded = sections.flatMap((s, i) => (code || s.kind !== 'code' ? [i] : []));
    const vectors = (embedded.length > 0 ? await this.#vectors(embedded.map((i) => sectionText(sections[i]!))) : null) ?? [];
    const out: (Int8Array | null)[] = sections.map(() => null);
    embedded.forEach((at, i) => (out[at] = vectors[i] ?? null));
    return out;
  }

  /**
   * Embeds the stored sections of a document that have no vector of this embedder's yet (stored
   * before embeddings, without an embedder, or by another model); code pieces only when `code`
   * (else `embedPending` does). True when it stored any.
   */
  async #embedMissing(orgId: string, docKey: string, code = false): Promise<boolean> {
    if (!this.#embedder) return false;
    const rows = await this.#sql.all<{ id: number; kind: Section['kind']; title: string; context: string; body: string; code: string }>(
      `SELECT id, kind, title, context, body, code FROM kb_sections
       WHERE org_id = ? AND doc_key = ? AND ${UNEMBEDDED}${code ? '' : " AND kind <> 'code'"} ORDER BY ord`,
      [orgId, docKey, this.#embedder.id],
    );
    const vectors = rows.length > 0 ? await this.#vectors(rows.map(sectionText)) : null;
    if (!vectors) return false;
    await this.#sql.transaction(async (tx) => {
      for (const [i, row] of rows.entries()) await tx.run('UPDATE kb_sections SET embedding = ?, embedding_by = ? WHERE id = ?', [toBytes(vectors[i]!), this.#embedder!.id, row.id]);
    });
    return true;
  }

  /**
   * Embeds the sections (of the organization, or of every one) that have no vector of this
   * embedder's: code pieces stored by `kb ingest`, and anything stored without an embedder or by
   * another model. A batch at a time (read, embedded, written in its own short transaction), so it
   * never holds more than a batch and questions go between batches; each organization that got
   * vectors has its version moved once at the end (or when stopped), so its index is rebuilt with
   * them. Returns how many sections it embedded.
   *
   * Several processes may run it at once: a vector is written only where none of this embedder's
   * is yet, and the same text always gets the same vector, so the worst is a batch embedded twice.
   * A section replaced meanwhile is a new row: the old one's vector lands nowhere.
   */
  async embedPending(orgId?: string, options: EmbedPendingOptions = {}): Promise<number> {
    const embedder = this.#embedder;
    if (!embedder) return 0;
    const batch = Math.max(1, Math.floor(options.batch ?? BATCH));
    const touched = new Set<string>();
    let embedded = 0;
    let after = 0;
    try {
      while (!options.signal?.aborted) {
        // In id order from where the last batch ended: a section the model fails on is not read forever.
        const rows = await this.#sql.all<{ id: number; org_id: string; kind: Section['kind']; title: string; context: string; body: string; code: string }>(
          `SELECT id, org_id, kind, title, context, body, code FROM kb_sections
           WHERE id > ?${orgId === undefined ? '' : ' AND org_id = ?'} AND ${UNEMBEDDED} ORDER BY id LIMIT ${batch}`,
          orgId === undefined ? [after, embedder.id] : [after, orgId, embedder.id],
        );
        if (rows.length === 0) break;
        after = rows.at(-1)!.id;
        const vectors = await this.#vectors(rows.map(sectionText));
        if (!vectors) break;
        await this.#sql.transaction(async (tx) => {
          for (const [i, row] of rows.entries()) {
            const written = await tx.run(`UPDATE kb_sections SET embedding = ?, embedding_by = ? WHERE id = ? AND ${UNEMBEDDED}`, [toBytes(vectors[i]!), embedder.id, row.id, embedder.id]);
            if (written > 0) {
              embedded++;
              touched.add(row.org_id);
            }
          }
        });
        await setImmediate();
      }
    } finally {
      for (const org of touched) await this.#bump(this.#sql, org);
    }
    return embedded;
  }

  /** The organizations with sections that have no vector of this embedder's, and how many each (none without an embedder). */
  async pending(): Promise<{ orgId: string; sections: number }[]> {
    if (!this.#embedder) return [];
    const rows = await this.#sql.all<{ org_id: string; n: number }>(`SELECT org_id, COUNT(*) AS n FROM kb_sections WHERE ${UNEMBEDDED} GROUP BY org_id ORDER BY org_id`, [this.#embedder.id]);
    return rows.map((r) => ({ orgId: r.org_id, sections: Number(r.n) }));
  }

  /** Marks the organization's knowledge base changed: every process rebuilds its index on its next question. */
  async #bump(tx: Sql, orgId: string): Promise<void> {
    await tx.run('INSERT INTO kb_versions (org_id, version) VALUES (?, 1) ON CONFLICT (org_id) DO UPDATE SET version = kb_versions.version + 1', [orgId]);
  }

  /**
   * The version of the organization's knowledge base, moved by every change whichever process made
   * it: one read of a primary key, made before each question so an index built from older rows is rebuilt.
   */
  async version(orgId: string): Promise<number> {
    return (await this.#sql.get<{ version: number }>('SELECT version FROM kb_versions WHERE org_id = ?', [orgId]))?.version ?? 0;
  }

  async #replace(tx: Sql, orgId: string, docKey: string, doc: { root: string; relPath: string; hash: string; title: string }, sections: Section[], vectors: (Int8Array | null)[]): Promise<void> {
    // The document row first: its lock orders two processes replacing the same document, so the
    // second deletes the first's sections rather than adding to them.
    await tx.run(
      `INSERT INTO kb_documents (org_id, doc_key, root, rel_path, hash, title, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, doc_key) DO UPDATE SET root = excluded.root, rel_path = excluded.rel_path, hash = excluded.hash,
         title = excluded.title, updated_at = excluded.updated_at`,
      [orgId, docKey, doc.root, doc.relPath, doc.hash, doc.title, new Date().toISOString()],
    );
    await tx.run('DELETE FROM kb_sections WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
    for (let start = 0; start < sections.length; start += SECTION_BATCH) {
      const batch = sections.slice(start, start + SECTION_BATCH);
      await tx.run(
        `INSERT INTO kb_sections (org_id, doc_key, ord, kind, title, context, url, body, code, lang, embedding, embedding_by) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        batch.flatMap((s, i) => {
          const vector = vectors[start + i];
          return [orgId, docKey, start + i, s.kind, s.title, s.context, s.url, s.body, s.code, s.lang, vector ? toBytes(vector) : null, vector ? this.#embedder!.id : null];
        }),
      );
    }
  }

  async #remove(tx: Sql, orgId: string, docKey: string): Promise<boolean> {
    const removed = await tx.run('DELETE FROM kb_documents WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
    await tx.run('DELETE FROM kb_sections WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
    return removed > 0;
  }

  /**
   * Ingests files, folders and docs sites (by URL): unchanged files and pages are skipped, changed
   * ones replaced, gone ones dropped; each source is remembered for `sync`.
   */
  async ingest(orgId: string, inputs: string[], options: IngestOptions = {}): Promise<IngestReport> {
    const report: IngestReport = { files: 0, pages: 0, requests: 0, failed: [], added: 0, updated: 0, unchanged: 0, removed: 0, sections: 0, skipped: [] };
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
    let changed = false;
    if (roots.length > 0) {
      changed = (await this.#ingestPaths(orgId, roots, options, report)) || changed;
      const sourceOptions: SourceOptions = options.baseUrl ? { baseUrl: options.baseUrl } : {};
      for (const root of roots) await recordSync(this.#sql, orgId, { source: root, kind: 'path', options: sourceOptions, syncedAt: new Date().toISOString(), status: 'ok', failures: [] });
    }
    for (const site of sites) changed = (await this.#ingestSite(orgId, site, options, report)) || changed;
    if (changed) await this.#bump(this.#sql, orgId);
    return report;
  }

  /** The organization's sources with their last sync (see `kb sources`). */
  async sources(orgId: string): Promise<KnowledgeSource[]> {
    return listSources(this.#sql, orgId);
  }

  /**
   * Ingests every remembered source again with the options it was added with (`kinds` limits it:
   * the background sync reads docs sites only). A source that fails is reported, and the others still run.
   */
  async sync(orgId: string, options: Omit<IngestOptions, keyof SourceOptions> & { kinds?: KnowledgeSource['kind'][]; only?: string } = {}): Promise<IngestReport & { sources: number }> {
    const total: IngestReport & { sources: number } = { sources: 0, files: 0, pages: 0, requests: 0, failed: [], added: 0, updated: 0, unchanged: 0, removed: 0, sections: 0, skipped: [] };
    for (const source of await listSources(this.#sql, orgId)) {
      if (options.kinds && !options.kinds.includes(source.kind)) continue;
      if (options.only !== undefined && source.source !== options.only) continue;
      total.sources++;
      try {
        const report = await this.ingest(orgId, [source.source], { ...options, ...source.options });
        for (const key of ['files', 'pages', 'requests', 'added', 'updated', 'unchanged', 'removed', 'sections'] as const) total[key] += report[key];
        total.failed.push(...report.failed);
        total.skipped.push(...report.skipped);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        total.failed.push({ source: source.source, url: source.source, reason });
        await recordSync(this.#sql, orgId, { ...source, syncedAt: new Date().toISOString(), status: 'failed', failures: [{ url: source.source, reason }] });
      }
    }
    return total;
  }

  /** Crawls a docs site and stores its pages under `url:<page>`; true when anything changed. */
  async #ingestSite(orgId: string, site: string, options: IngestOptions, report: IngestReport): Promise<boolean> {
    const sourceOptions: SourceOptions = {};
    for (const key of ['include', 'exclude', 'maxPages', 'contentSelector', 'excludeSelectors'] as const) if (options[key] !== undefined) (sourceOptions as Record<string, unknown>)[key] = options[key];
    const root = rootOf('url', site);
    const stored = await this.#sql.all<{ doc_key: string; rel_path: string; hash: string; etag: string | null; last_modified: string | null; links: string | null }>(
      'SELECT doc_key, rel_path, hash, etag, last_modified, links FROM kb_documents WHERE org_id = ? AND root = ?',
      [orgId, root],
    );
    const known = new Map<string, KnownPage>(stored.map((d) => [d.rel_path, { etag: d.etag, lastModified: d.last_modified, links: d.links ? (JSON.parse(d.links) as string[]) : [] }]));
    let result;
    try {
      result = await crawl(site, { ...options.crawl, ...sourceOptions, known, onProgress: options.onCrawlProgress ? (p) => options.onCrawlProgress!({ ...p, site }) : undefined });
    } catch (error) {
      if (!(error instanceof CrawlError)) throw error;
      await recordSync(this.#sql, orgId, { source: site, kind: 'url', options: sourceOptions, syncedAt: new Date().toISOString(), status: 'failed', failures: [{ url: site, reason: error.message }] });
      throw new IngestError(error.message);
    }
    report.pages += result.pages.length;
    report.requests += result.requests;
    const failures: SourceFailure[] = result.failed.map((f) => ({ url: f.url, reason: f.reason }));
    for (const f of failures) report.failed.push({ source: site, ...f });

    // A sync that finds far fewer pages, or mostly empty or identical ones, keeps the previous pages (see sync-guard.ts).
    const reason = options.accept ? null : await keepReason(this.#sql, orgId, site, result.pages, stored);
    if (reason) {
      report.failed.push({ source: site, url: site, reason });
      await recordSync(this.#sql, orgId, { source: site, kind: 'url', options: sourceOptions, syncedAt: new Date().toISOString(), status: 'kept', failures: [{ url: site, reason }, ...failures] });
      return false;
    }

    let changed = false;
    const seen = new Set<string>();
    let done = 0;
    for (const page of result.pages) {
      options.onProgress?.(done++, result.pages.length, page.url);
      const docKey = `url:${page.url}`;
      seen.add(docKey);
      const existing = await this.#sql.get<{ hash: string; root: string }>('SELECT hash, root FROM kb_documents WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
      if (page.notModified || existing?.hash === page.hash) {
        report.unchanged++;
        await this.#sql.run('UPDATE kb_documents SET etag = ?, last_modified = ?, links = ? WHERE org_id = ? AND doc_key = ?', [page.etag, page.lastModified, JSON.stringify(page.links), orgId, docKey]);
        if (await this.#embedMissing(orgId, docKey, options.embedCode)) changed = true;
        continue;
      }
      const vectors = await this.#embed(page.parsed.sections, options.embedCode);
      await this.#sql.transaction(async (tx) => {
        await this.#replace(tx, orgId, docKey, { root, relPath: page.url, hash: page.hash, title: page.parsed.title }, page.parsed.sections, vectors);
        await tx.run('UPDATE kb_documents SET etag = ?, last_modified = ?, links = ? WHERE org_id = ? AND doc_key = ?', [page.etag, page.lastModified, JSON.stringify(page.links), orgId, docKey]);
      });
      report.sections += page.parsed.sections.length;
      if (existing) report.updated++;
      else report.added++;
      changed = true;
    }
    // Pages that failed for now (a timeout, a 500) or were not reached (--max-pages) stay; gone ones (404, 410, in no sitemap or link) go.
    const gone = new Set(result.gone.map((url) => `url:${url}`));
    for (const f of result.failed) if (!gone.has(`url:${f.url}`)) seen.add(`url:${f.url}`);
    for (const s of result.skipped) if (s.reason.startsWith('over --max-pages')) seen.add(`url:${s.url}`);
    for (const { doc_key } of stored) {
      if (!seen.has(doc_key) && (await this.#sql.transaction((tx) => this.#remove(tx, orgId, doc_key)))) {
        report.removed++;
        changed = true;
      }
    }
    await recordSync(this.#sql, orgId, { source: site, kind: 'url', options: sourceOptions, syncedAt: new Date().toISOString(), status: failures.length > 0 ? 'partial' : 'ok', failures, accepted: options.accept });
    return changed;
  }

  /** Ingests files and folders; unchanged files are skipped, changed ones replaced, deleted ones dropped; true when anything changed. */
  async #ingestPaths(orgId: string, roots: string[], options: IngestOptions, report: IngestReport): Promise<boolean> {
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
      const existing = await this.#sql.get<{ hash: string }>('SELECT hash FROM kb_documents WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
      if (existing?.hash === hash) {
        report.unchanged++;
        if (await this.#embedMissing(orgId, docKey, options.embedCode)) embedded = true;
        continue;
      }
      const parsed = parseFile(text, rel, baseUrl);
      if (!parsed) continue;
      // Embedded before the transaction: the model takes tens of milliseconds per section.
      const vectors = await this.#embed(parsed.sections, options.embedCode);
      await this.#sql.transaction((tx) => this.#replace(tx, orgId, docKey, { root, relPath: rel, hash, title: parsed.title }, parsed.sections, vectors));
      report.sections += parsed.sections.length;
      if (existing) report.updated++;
      else report.added++;
    }
    options.onProgress?.(plan.length, plan.length, '');
    // Files under an ingested folder that are gone now are dropped.
    for (const [root, seen] of seenByRoot) {
      const rows = await this.#sql.all<{ doc_key: string }>('SELECT doc_key FROM kb_documents WHERE org_id = ? AND root = ?', [orgId, root]);
      for (const { doc_key } of rows) {
        if (!seen.has(doc_key) && (await this.#sql.transaction((tx) => this.#remove(tx, orgId, doc_key)))) report.removed++;
      }
    }
    return Boolean(report.added || report.updated || report.removed || embedded);
  }

  /**
   * Indexes a synced ticket's text under `ticket:<source>:<external_id>`: its title and the start
   * of its body (see `TICKET_INDEXED_CHARS`; the ticket store keeps the whole text).
   */
  async indexTicket(orgId: string, ticket: TicketDocument): Promise<void> {
    const docKey = `ticket:${ticket.source}:${ticket.externalId}`;
    const title = clipText(ticket.title, TICKET_INDEXED_CHARS.title);
    const section: Section = { title, context: `${ticket.source} ticket`, url: ticket.url ?? '', body: clipText(ticket.body ?? '', TICKET_INDEXED_CHARS.body), code: '', lang: '', kind: 'ticket' };
    const vectors = await this.#embed([section]);
    await this.#sql.transaction(async (tx) => {
      await this.#replace(tx, orgId, docKey, { root: `ticket:${ticket.source}`, relPath: ticket.externalId, hash: '', title }, [section], vectors);
      await this.#bump(tx, orgId);
    });
  }

  /** Removes everything derived from a ticket. */
  async forgetTicket(orgId: string, source: string, externalId: string): Promise<void> {
    await this.#sql.transaction(async (tx) => {
      if (await this.#remove(tx, orgId, `ticket:${source}:${externalId}`)) await this.#bump(tx, orgId);
    });
  }

  /**
   * The organization's indexes, built on the first question after a change. The build yields to the
   * event loop as it goes (see `SearchIndex.build`), so a server keeps answering other requests
   * while a large knowledge base is indexed.
   */
  async #load(orgId: string): Promise<LoadedIndex> {
    const version = await this.version(orgId);
    const cached = this.#cache.get(orgId);
    if (cached && cached.version === version) return cached;
    const building = this.#building.get(orgId);
    if (building && building.version === version) return building.loaded;
    const loaded = this.#build(orgId, version);
    this.#building.set(orgId, { version, loaded });
    try {
      const entry = await loaded;
      if ((this.#cache.get(orgId)?.version ?? -1) < entry.version) this.#cache.set(orgId, entry);
      return entry;
    } finally {
      if (this.#building.get(orgId)?.loaded === loaded) this.#building.delete(orgId);
    }
  }

  async #build(orgId: string, version: number): Promise<LoadedIndex> {
    const rows = await this.#sql.all<{ id: number; doc_key: string; kind: Section['kind']; title: string; context: string; url: string; body: string; code: string; lang: string; embedding: Uint8Array | null; embedding_by: string | null }>(
      // Documents in byte order on both engines (PostgreSQL's default collation may follow a locale), so both build the same index.
      `SELECT id, doc_key, kind, title, context, url, body, code, lang, embedding, embedding_by FROM kb_sections WHERE org_id = ?
       ORDER BY doc_key${this.#sql.dialect === 'postgres' ? ' COLLATE "C"' : ''}, ord`,
      [orgId],
    );
    const sections: StoredSection[] = rows.map((r) => ({ id: r.id, docKey: r.doc_key, kind: r.kind, title: r.title, context: r.context, url: r.url, body: r.body, code: r.code, lang: r.lang }));
    // Only vectors this engine's embedder made can be compared with its questions'.
    const vectors = rows.map((r) => (this.#embedder && r.embedding_by === this.#embedder.id ? fromBytes(r.embedding) : null));
    // A second index over whole pages: a section on the right page ranks above a look-alike elsewhere.
    const pageIds = new Map<string, number>();
    const pageOf = new Int32Array(sections.length);
    const pageTexts: { id: number; title: string; context: string; body: string; code: string }[] = [];
    sections.forEach((section, i) => {
      let page = pageIds.get(section.docKey);
      if (page === undefined) {
        page = pageTexts.length;
        pageIds.set(section.docKey, page);
        pageTexts.push({ id: page, title: section.context.split(' › ')[0] ?? '', context: '', body: '', code: '' });
      }
      const text = pageTexts[page]!;
      text.context += ` ${section.title}`;
      text.body += ` ${section.body}`;
      pageOf[i] = page;
    });
    // A heading is read with the headings above it: "Examples" under "Use XML tags" is about XML
    // tags. Doc sections are indexed with their heading path in the title field (code keeps its
    // symbol names alone there); what is shown keeps the section's own title.
    // Bold run-in labels of a list ("- **CSP.** Works under…") name what their items are about, as
    // sub-headings would: they are read with the heading.
    const indexed = sections.map((s) => (s.kind === 'code' ? s : { ...s, title: [s.title, s.context, ...runInLabels(s.body)].filter(Boolean).join(' ') }));
    const index = await SearchIndex.build(indexed);
    const pages = await SearchIndex.build(pageTexts, { phrases: false });
    return { version, index, sections, pages, pageOf, vectors, dense: new DenseIndex(vectors) };
  }

  /** Ranked sections for a query; tickets only when asked for (they are private to the organization's agents). */
  async search(orgId: string, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const vector = options.vector !== undefined ? options.vector : await this.embedQuestion(query);
    return this.#search(await this.#load(orgId), query, { ...options, vector });
  }

  /** A question's sentence embedding, for `SearchOptions.vector`; null without an embedder. */
  async embedQuestion(question: string): Promise<Int8Array | null> {
    return question.trim() ? ((await this.#vectors([question]))?.[0] ?? null) : null;
  }

  /**
   * The embedder's vectors for some texts; null without an embedder, or when it fails (the model
   * cannot be loaded, say): the knowledge base then ranks by words, stores sections without
   * vectors (the next `kb ingest` embeds them), and the process warns once.
   */
  async #vectors(texts: string[]): Promise<Int8Array[] | null> {
    if (!this.#embedder) return null;
    try {
      return await this.#embedder.embed(texts);
    } catch (error) {
      if (!KnowledgeStore.#warned) {
        KnowledgeStore.#warned = true;
        process.emitWarning(`sentence embeddings are unavailable (${error instanceof Error ? error.message : String(error)}): ranking by words alone`, { code: 'SUPPORT_CHAT_EMBEDDINGS' });
      }
      return null;
    }
  }

  static #warned = false;

  /**
   * The organization's knowledge base as it is now, to search and read its vocabulary more than
   * once for one answer after one check that the index is current.
   */
  async snapshot(orgId: string): Promise<KnowledgeSnapshot> {
    const loaded = await this.#load(orgId);
    return { search: (query, options = {}) => this.#search(loaded, query, options), vocabulary: this.#vocabulary(loaded) };
  }

  #search(loaded: LoadedIndex, query: string, options: SearchOptions): SearchHit[] {
    const { index, sections, pages, pageOf, vectors, dense } = loaded;
    const limit = options.limit ?? 10;
    const hits = index.search(query, { history: options.history, limit: Math.max(50, limit * 3) });
    const pageHits = pages.search(query, { history: options.history, limit: 20 });
    const bestSection = hits[0]?.score ?? 1;
    const bestPage = pageHits[0]?.score ?? 1;
    const pageScore = new Map(pageHits.map((h) => [h.index, h.score / bestPage]));
    const ranked = hits
      .map((hit) => ({
        ...hit,
        score: (hit.score / bestSection + PAGE_WEIGHT * (pageScore.get(pageOf[hit.index]!) ?? 0)) * (sections[hit.index]!.kind === 'code' ? CODE_PRIOR : 1),
      }))
      .sort((a, b) => b.score - a.score)
      .map((hit) => ({ ...hit, section: sections[hit.index]! }))
      .filter((hit) => options.includeTickets || hit.section.kind !== 'ticket');
    const merged = docsFirst(ranked);
    const question = options.vector;
    // A heading with no text of its own is read with the section under it (see `SearchHit.under`).
    const withText = <T extends SearchHit>(hit: T): T => {
      const next = sections[hit.index + 1];
      return hit.section.kind === 'doc' && !hit.section.body.trim() && !hit.section.code.trim() && next?.docKey === hit.section.docKey && next.kind === 'doc' ? { ...hit, under: next } : hit;
    };
    if (!question) return merged.slice(0, limit).map(withText);
    // The sections nearest in meaning that the words did not find follow the words' candidates.
    const found = new Set(merged.map((hit) => hit.index));
    const near = dense.nearest(question, DENSE_CANDIDATES + found.size, (i) => options.includeTickets || sections[i]!.kind !== 'ticket').filter((hit) => hit.cosine >= DENSE_MIN_COSINE);
    const asHit = (index: number) => ({ index, score: 0, coverage: 0, section: sections[index]! });
    const joining = near.filter((hit) => !found.has(hit.index)).slice(0, DENSE_CANDIDATES);
    let fused = semanticRerank([...merged, ...joining.map((hit) => asHit(hit.index))], question, vectors);
    if ((fused[0]?.coverage ?? 0) < SEMANTIC_RERANK.belowCoverage) {
      const byIndex = new Map(fused.map((hit) => [hit.index, hit]));
      const nearest = near.filter((hit) => sections[hit.index]!.kind !== 'code').slice(0, NEAREST_SHOWN.count);
      fused = showNearest(fused, nearest.map((hit) => byIndex.get(hit.index) ?? asHit(hit.index)));
    }
    return fused
      .slice(0, limit)
      .map((hit) => {
        const vector = vectors[hit.index];
        return withText(vector ? { ...hit, similarity: cosine(question, vector) } : hit);
      });
  }

  /** Whether the organization's knowledge base holds a term anywhere (as `tokenize` returns it). */
  async vocabulary(orgId: string): Promise<Vocabulary> {
    return this.#vocabulary(await this.#load(orgId));
  }

  #vocabulary({ index }: LoadedIndex): Vocabulary {
    return { has: (term) => index.has(term), terms: (text) => index.terms(text) };
  }

  /** How many documents and sections the organization has, and how many of its prose sections (doc and ticket) have their sentence embedding. */
  async stats(orgId: string): Promise<{ documents: number; sections: number; prose: number; embedded: number }> {
    const documents = (await this.#sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM kb_documents WHERE org_id = ?', [orgId]))!.n;
    const counts = (await this.#sql.get<{ sections: number; prose: number; embedded: number }>(
      `SELECT COUNT(*) AS sections, COUNT(CASE WHEN kind <> 'code' THEN 1 END) AS prose,
         COUNT(CASE WHEN kind <> 'code' AND embedding IS NOT NULL AND embedding_by = ? THEN 1 END) AS embedded
       FROM kb_sections WHERE org_id = ?`,
      [this.#embedder?.id ?? '', orgId],
    ))!;
    return { documents, sections: counts.sections, prose: counts.prose, embedded: counts.embedded };
  }

}
