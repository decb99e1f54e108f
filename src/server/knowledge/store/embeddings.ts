/**
 * @module The sentence embeddings of stored sections: made at ingest for doc and ticket
 * sections, later (in the background) for code pieces and for anything stored without this
 * embedder's vector; and a question's, for ranking. Every use of the embedder goes through here.
 */
import { setImmediate } from 'node:timers/promises';
import type { Section } from '../ingest/sections.js';
import { EmbeddingQueueFullError, EmbeddingUnavailableError } from '../ranking/embedding-pool.js';
import { BATCH, sectionText, toBytes, type Embedder, type EmbeddingStatus, type EmbedRequest } from '../ranking/embeddings.js';
import type { SectionStore, SectionVectors } from './sections.js';

/** What `SectionEmbeddings.embedPending` embeds at once, and how it is stopped. */
export interface EmbedPendingOptions {
  /** Sections read, embedded and written at once (the only ones held in memory). @default the model thread's own batch (16) */
  batch?: number;
  /** Stops the run between batches (what was written stays). */
  signal?: AbortSignal;
}

/** The embedding work left for later: what the server's background embedding runs (see background-embedding.ts). */
export interface PendingEmbeddings {
  /** Embeds sections without a vector of the current embedder (code pieces after `kb ingest`), a batch at a time; how many it embedded. */
  embedPending(orgId?: string, options?: EmbedPendingOptions): Promise<number>;
  /** The organizations with sections waiting for `embedPending`, and how many each. */
  pending(): Promise<{ orgId: string; sections: number }[]>;
}

/** The condition on `kb_sections` of a section with no vector of the embedder given as the next parameter. */
const UNEMBEDDED = '(embedding IS NULL OR embedding_by IS NULL OR embedding_by <> ?)';

/** Whether the process has warned that the embedder failed (once a process). */
let warned = false;

/** The knowledge base's embedding work, over its section store; with a null embedder every method is a no-op and ranking is by words. */
export class SectionEmbeddings implements PendingEmbeddings {
  readonly #store: SectionStore;
  readonly #embedder: Embedder | null;

  constructor(store: SectionStore, embedder: Embedder | null) {
    this.#store = store;
    this.#embedder = embedder;
  }

  /** What makes this knowledge base's vectors (see `Embedder.id`); null without an embedder. */
  get id(): string | null {
    return this.#embedder?.id ?? null;
  }

  /** Calls the embedder serves at once: an ingest keeps that many documents' sections in flight. */
  get parallelism(): number {
    try {
      return Math.max(1, this.#embedder?.parallelism ?? 1);
    } catch {
      // A pool that cannot be made (a bad SUPPORT_CHAT_EMBEDDING_THREADS) fails its calls, which say why.
      return 1;
    }
  }

  /** Whether sentence embeddings work now (`off` without an embedder). */
  status(): EmbeddingStatus {
    if (!this.#embedder) return { state: 'off', threads: 0, size: 0 };
    return this.#embedder.status?.() ?? { state: 'ready', threads: this.parallelism, size: this.parallelism };
  }

  /** Starts the embedder if not yet; its status once it is up or has given up. */
  async warm(): Promise<EmbeddingStatus> {
    return (await this.#embedder?.warm?.()) ?? this.status();
  }

  /**
   * A question's sentence embedding, embedded ahead of bulk work and fairly with other
   * organizations' questions; null without an embedder, for a blank question, or when the
   * organization has too many waiting (it is then ranked by words).
   */
  async question(text: string, orgId?: string): Promise<Int8Array | null> {
    return text.trim() ? ((await this.#vectors([text], { orgId, priority: 'query' }))?.[0] ?? null) : null;
  }

  /**
   * The sentence embeddings of sections about to be stored (see `sectionText`); none without an
   * embedder, or when it fails, and none for code pieces unless `code` (they are embedded in the
   * background: `embedPending`).
   */
  async sections(sections: Section[], code = false, orgId?: string): Promise<SectionVectors> {
    const embedded = sections.flatMap((s, i) => (code || s.kind !== 'code' ? [i] : []));
    const vectors = (embedded.length > 0 ? await this.#vectors(embedded.map((i) => sectionText(sections[i]!)), { orgId, priority: 'bulk' }) : null) ?? [];
    const out: (Int8Array | null)[] = sections.map(() => null);
    embedded.forEach((at, i) => (out[at] = vectors[i] ?? null));
    return { vectors: out, by: this.id };
  }

  /**
   * Embeds the stored sections of a document that have no vector of this embedder's yet (stored
   * before embeddings, without an embedder, or by another model); code pieces only when `code`
   * (else `embedPending` does). True when it stored any.
   */
  async fillDocument(orgId: string, docKey: string, code = false): Promise<boolean> {
    if (!this.#embedder) return false;
    const sql = this.#store.sql;
    const rows = await sql.all<{ id: number; kind: Section['kind']; title: string; context: string; body: string; code: string }>(
      `SELECT id, kind, title, context, body, code FROM kb_sections
       WHERE org_id = ? AND doc_key = ? AND ${UNEMBEDDED}${code ? '' : " AND kind <> 'code'"} ORDER BY ord`,
      [orgId, docKey, this.#embedder.id],
    );
    const vectors = rows.length > 0 ? await this.#vectors(rows.map(sectionText), { orgId, priority: 'bulk' }) : null;
    if (!vectors) return false;
    const by = this.#embedder.id;
    await sql.transaction(async (tx) => {
      for (const [i, row] of rows.entries()) await tx.run('UPDATE kb_sections SET embedding = ?, embedding_by = ? WHERE id = ?', [toBytes(vectors[i]!), by, row.id]);
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
    const sql = this.#store.sql;
    const batch = Math.max(1, Math.floor(options.batch ?? BATCH));
    const touched = new Set<string>();
    let embedded = 0;
    let after = 0;
    try {
      while (!options.signal?.aborted) {
        // In id order from where the last batch ended: a section the model fails on is not read forever.
        const rows = await sql.all<{ id: number; org_id: string; kind: Section['kind']; title: string; context: string; body: string; code: string }>(
          `SELECT id, org_id, kind, title, context, body, code FROM kb_sections
           WHERE id > ?${orgId === undefined ? '' : ' AND org_id = ?'} AND ${UNEMBEDDED} ORDER BY id LIMIT ${batch}`,
          orgId === undefined ? [after, embedder.id] : [after, orgId, embedder.id],
        );
        if (rows.length === 0) break;
        after = rows.at(-1)!.id;
        const vectors = await this.#vectors(rows.map(sectionText), { orgId: orgId ?? rows[0]!.org_id, priority: 'bulk' });
        if (!vectors) break;
        await sql.transaction(async (tx) => {
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
      for (const org of touched) await this.#store.bump(org);
    }
    return embedded;
  }

  /** The organizations with sections that have no vector of this embedder's, and how many each (none without an embedder). */
  async pending(): Promise<{ orgId: string; sections: number }[]> {
    if (!this.#embedder) return [];
    const rows = await this.#store.sql.all<{ org_id: string; n: number }>(`SELECT org_id, COUNT(*) AS n FROM kb_sections WHERE ${UNEMBEDDED} GROUP BY org_id ORDER BY org_id`, [this.#embedder.id]);
    return rows.map((r) => ({ orgId: r.org_id, sections: Number(r.n) }));
  }

  /**
   * The embedder's vectors for some texts; null without an embedder, or when it fails (the model
   * cannot be loaded, say): the knowledge base then ranks by words, stores sections without
   * vectors (the next `kb ingest` embeds them), and the process warns once. A call refused because
   * its organization has too many waiting is shed the same way, without the warning.
   */
  async #vectors(texts: string[], request: EmbedRequest): Promise<Int8Array[] | null> {
    if (!this.#embedder) return null;
    try {
      return await this.#embedder.embed(texts, request);
    } catch (error) {
      if (error instanceof EmbeddingQueueFullError) return null;
      if (!warned) {
        warned = true;
        const message = error instanceof EmbeddingUnavailableError ? error.message : `sentence embeddings are unavailable (${error instanceof Error ? error.message : String(error)})`;
        process.emitWarning(`${message}: ranking by words alone`, { code: 'SUPPORT_CHAT_EMBEDDINGS' });
      }
      return null;
    }
  }
}
