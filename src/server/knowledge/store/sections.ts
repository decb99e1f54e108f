/**
 * @module The knowledge base's tables: documents, their sections (with their sentence
 * embeddings), and a version per organization that every change moves, so each process knows
 * when to rebuild its index.
 */
import { setImmediate } from 'node:timers/promises';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Migration } from '../../store/migrate.js';
import type { Sql } from '../../store/sql.js';
import { passageOfText } from '../ingest/passage.js';
import type { Section, SectionRow, StoredSection } from '../ingest/sections.js';
import { passageOfMarkdown } from '../ingest/stored-passage.js';
import { toBytes } from '../ranking/embeddings.js';
import type { Passage } from '../text/passage.js';

export type { SectionRow, StoredSection } from '../ingest/sections.js';

/** Rows `sections` reads between two turns of the event loop. */
const ROWS_PER_TURN = 2_000;

/** How many sections' passages stay parsed (see `LoadedSection`): a few hundred answers' hits. */
const PARSED_PASSAGES = 2_000;
/** The passages parsed lately, least recent first. */
const parsedPassages = new Map<LoadedSection, Passage>();

/** The bytes of a chunk `PassagePacker` packs passages into. */
const PACKED_CHUNK = 1 << 20;

/**
 * Deflates one load's passages into shared chunks of `PACKED_CHUNK` bytes, each passage a view of
 * its bytes: a buffer of its own per passage costs a backing store of its own, several times the
 * bytes it holds. A chunk goes when no section of the load holds a view of it.
 */
export class PassagePacker {
  #chunk = Buffer.alloc(0);
  #used = 0;

  pack(json: string): Uint8Array {
    // Level 1: a passage deflates in tens of microseconds, and the best level saves a tenth more.
    const deflated = deflateRawSync(json, { level: 1 });
    if (this.#used + deflated.length > this.#chunk.length) {
      this.#chunk = Buffer.allocUnsafe(Math.max(PACKED_CHUNK, deflated.length));
      this.#used = 0;
    }
    deflated.copy(this.#chunk, this.#used);
    this.#used += deflated.length;
    return this.#chunk.subarray(this.#used - deflated.length, this.#used);
  }
}

/** A passage packed by `PassagePacker`, as it was stored. */
export const unpackPassage = (packed: Uint8Array): Passage => JSON.parse(inflateRawSync(packed).toString('utf8')) as Passage;

/**
 * A section as the index holds it: its passage kept as the JSON it was stored as, deflated
 * (`PassagePacker`), and read when an answer, an excerpt or the decision reads it (the last
 * `PARSED_PASSAGES` are kept parsed). Parsed up front, 50,000 sections' passages took half as
 * much memory again as the whole index, millions of small objects that every collection of the
 * heap walks, for the ten hits a question reads; as JSON text, a passage is four to five times its
 * section's text (its blocks as written and as read, its sentences and its terms), and deflated
 * about a fifth of that. A section stored before the passage model is read from its Markdown
 * once, when loaded. The passage is a getter: a copy made by spreading the section has none.
 */
class LoadedSection implements StoredSection {
  readonly id: number;
  readonly docKey: string;
  readonly kind: Section['kind'];
  readonly title: string;
  readonly context: string;
  readonly url: string;
  readonly body: string;
  readonly code: string;
  readonly lang: string;
  readonly #packed: Uint8Array | null;
  readonly #read: Passage | null;

  constructor(section: Omit<StoredSection, 'passage'>, json: string | null, packer: PassagePacker) {
    ({ id: this.id, docKey: this.docKey, kind: this.kind, title: this.title, context: this.context, url: this.url, body: this.body, code: this.code, lang: this.lang } = section);
    this.#packed = json ? packer.pack(json) : null;
    this.#read = json ? null : storedPassage(null, section);
  }

  get passage(): Passage {
    if (this.#read) return this.#read;
    let passage = parsedPassages.get(this);
    if (passage) parsedPassages.delete(this);
    else passage = unpackPassage(this.#packed!);
    parsedPassages.set(this, passage);
    if (parsedPassages.size > PARSED_PASSAGES) parsedPassages.delete(parsedPassages.keys().next().value!);
    return passage;
  }
}

/** The knowledge base's own tables (the sources' are in sources/source-registry.ts). */
export const sectionMigrations: Migration[] = [
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
  {
    component: 'kb',
    version: 4,
    description: "each section's passage model (blocks and sentences, JSON); every document is parsed again by its next ingest or sync",
    // A document's hash is what lets an ingest skip it: cleared, the next ingest or sync parses every
    // document again and stores its passage. Until then a section's passage is read from its body.
    up: `ALTER TABLE kb_sections ADD COLUMN passage TEXT;
      UPDATE kb_documents SET hash = '';`,
  },
  {
    component: 'kb',
    version: 5,
    description: "code pieces' doc comments read as Markdown; each source file is parsed again by its next ingest or sync",
    // Until then a code piece's passage is read from its stored comment and code, as Markdown.
    up: `UPDATE kb_sections SET passage = NULL WHERE kind = 'code';
      UPDATE kb_documents SET hash = '' WHERE EXISTS (
        SELECT 1 FROM kb_sections s WHERE s.org_id = kb_documents.org_id AND s.doc_key = kb_documents.doc_key AND s.kind = 'code');`,
  },
];

/** A section's passage as written by its parser (doc pages and code pieces), else read from its text (a ticket, a plain-text page). */
export const passageFor = (section: Section): Passage => section.passage ?? passageOfText(section.body, section.code, '', section.lang);

/** The passage stored with a section, or, for a section stored before the model, read from its body (once per index build or page read). */
export function storedPassage(json: string | null, section: Omit<Section, 'passage'>): Passage {
  if (json) return JSON.parse(json) as Passage;
  return section.kind === 'ticket' ? passageOfText(section.body, section.code, '', section.lang) : passageOfMarkdown(section.body, section.code, '', section.lang);
}

/** What is stored of a document beside its sections. */
export interface DocumentInfo {
  /** The ingested folder, `url:<site>` or `ticket:<source>`: what a sync of that source replaces. */
  root: string;
  relPath: string;
  /** Of what was parsed (with its base URL); an unchanged hash skips the document. */
  hash: string;
  title: string;
}

/** What a crawl remembers of a page, to ask the site only for changes next time. */
export interface PageCache {
  etag: string | null;
  lastModified: string | null;
  links: string[];
}

/** Sentence embeddings to store with a document's sections (one per section, null for none), and what made them. */
export interface SectionVectors {
  vectors: (Int8Array | null)[];
  by: string | null;
}

/** Rows per INSERT when a document's sections are written (13 parameters each, well under both engines' limits). */
const SECTION_BATCH = 50;

/** The knowledge base's rows: every read and write of `kb_documents`, `kb_sections` and `kb_versions`. */
export class SectionStore {
  /** The database, for the sources' registry and the embeddings, which share its transactions. */
  readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** The stored hash and root of a document; undefined when it is not stored. */
  async document(orgId: string, docKey: string): Promise<{ hash: string; root: string } | undefined> {
    return this.sql.get<{ hash: string; root: string }>('SELECT hash, root FROM kb_documents WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
  }

  /**
   * How many of a document's sections were stored before the passage model (kb migration 4): an
   * ingest that writes the document again re-parses them into passages, and says so.
   */
  async sectionsBeforePassages(orgId: string, docKey: string): Promise<number> {
    return (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM kb_sections WHERE org_id = ? AND doc_key = ? AND passage IS NULL', [orgId, docKey]))!.n;
  }

  /** The documents stored under a root, with what their crawl remembered (pages of a docs site). */
  async documentsUnder(orgId: string, root: string): Promise<({ docKey: string; relPath: string; hash: string } & PageCache)[]> {
    const rows = await this.sql.all<{ doc_key: string; rel_path: string; hash: string; etag: string | null; last_modified: string | null; links: string | null }>(
      'SELECT doc_key, rel_path, hash, etag, last_modified, links FROM kb_documents WHERE org_id = ? AND root = ?',
      [orgId, root],
    );
    return rows.map((d) => ({ docKey: d.doc_key, relPath: d.rel_path, hash: d.hash, etag: d.etag, lastModified: d.last_modified, links: d.links ? (JSON.parse(d.links) as string[]) : [] }));
  }

  /** Remembers what a crawl learnt of a page (its validators and links). */
  async setPageCache(orgId: string, docKey: string, page: PageCache, tx: Sql = this.sql): Promise<void> {
    await tx.run('UPDATE kb_documents SET etag = ?, last_modified = ?, links = ? WHERE org_id = ? AND doc_key = ?', [page.etag, page.lastModified, JSON.stringify(page.links), orgId, docKey]);
  }

  /** Replaces a document and its sections in one transaction; `page` remembers a crawled page's validators too. */
  async write(orgId: string, docKey: string, doc: DocumentInfo, sections: Section[], vectors: SectionVectors, page?: PageCache): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await this.replace(tx, orgId, docKey, doc, sections, vectors);
      if (page) await this.setPageCache(orgId, docKey, page, tx);
    });
  }

  /** Replaces a document and its sections within the transaction `tx`. */
  async replace(tx: Sql, orgId: string, docKey: string, doc: DocumentInfo, sections: Section[], { vectors, by }: SectionVectors): Promise<void> {
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
        `INSERT INTO kb_sections (org_id, doc_key, ord, kind, title, context, url, body, code, lang, embedding, embedding_by, passage) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        batch.flatMap((s, i) => {
          const vector = vectors[start + i];
          return [orgId, docKey, start + i, s.kind, s.title, s.context, s.url, s.body, s.code, s.lang, vector ? toBytes(vector) : null, vector ? by : null, JSON.stringify(passageFor(s))];
        }),
      );
    }
  }

  /** Removes a document and its sections (within `tx`, else in a transaction of its own); true when it was stored. */
  async remove(orgId: string, docKey: string, tx?: Sql): Promise<boolean> {
    if (!tx) return this.sql.transaction((own) => this.remove(orgId, docKey, own));
    const removed = await tx.run('DELETE FROM kb_documents WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
    await tx.run('DELETE FROM kb_sections WHERE org_id = ? AND doc_key = ?', [orgId, docKey]);
    return removed > 0;
  }

  /** Marks the organization's knowledge base changed: every process rebuilds its index on its next question. */
  async bump(orgId: string, tx: Sql = this.sql): Promise<void> {
    await tx.run('INSERT INTO kb_versions (org_id, version) VALUES (?, 1) ON CONFLICT (org_id) DO UPDATE SET version = kb_versions.version + 1', [orgId]);
  }

  /**
   * The version of the organization's knowledge base, moved by every change whichever process made
   * it: one read of a primary key, made before each question so an index built from older rows is rebuilt.
   */
  async version(orgId: string): Promise<number> {
    return (await this.sql.get<{ version: number }>('SELECT version FROM kb_versions WHERE org_id = ?', [orgId]))?.version ?? 0;
  }

  /** Every section of the organization with its embedding, documents in byte order and sections in page order. */
  async sections(orgId: string): Promise<SectionRow[]> {
    const rows = await this.sql.all<{ id: number; doc_key: string; kind: Section['kind']; title: string; context: string; url: string; body: string; code: string; lang: string; embedding: Uint8Array | null; embedding_by: string | null; passage: string | null }>(
      // Documents in byte order on both engines (PostgreSQL's default collation may follow a locale), so both build the same index.
      `SELECT id, doc_key, kind, title, context, url, body, code, lang, embedding, embedding_by, passage FROM kb_sections WHERE org_id = ?
       ORDER BY doc_key${this.sql.dialect === 'postgres' ? ' COLLATE "C"' : ''}, ord`,
      [orgId],
    );
    // A few thousand rows at a time, letting other requests go between (a section stored before the
    // passage model is parsed here: 50,000 at once would hold the event loop for a second or more).
    const out: SectionRow[] = [];
    const packer = new PassagePacker();
    for (const [i, r] of rows.entries()) {
      const section = { id: r.id, docKey: r.doc_key, kind: r.kind, title: r.title, context: r.context, url: r.url, body: r.body, code: r.code, lang: r.lang };
      out.push({ section: new LoadedSection(section, r.passage, packer), embedding: r.embedding, embeddingBy: r.embedding_by });
      if (i % ROWS_PER_TURN === ROWS_PER_TURN - 1) await setImmediate();
    }
    return out;
  }

  /** How many documents and sections the organization has, and how many of its prose sections (doc and ticket) have a vector made by `embedderId`. */
  async stats(orgId: string, embedderId: string | null): Promise<{ documents: number; sections: number; prose: number; embedded: number }> {
    const documents = (await this.sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM kb_documents WHERE org_id = ?', [orgId]))!.n;
    const counts = (await this.sql.get<{ sections: number; prose: number; embedded: number }>(
      `SELECT COUNT(*) AS sections, COUNT(CASE WHEN kind <> 'code' THEN 1 END) AS prose,
         COUNT(CASE WHEN kind <> 'code' AND embedding IS NOT NULL AND embedding_by = ? THEN 1 END) AS embedded
       FROM kb_sections WHERE org_id = ?`,
      [embedderId ?? '', orgId],
    ))!;
    return { documents, sections: counts.sections, prose: counts.prose, embedded: counts.embedded };
  }
}
