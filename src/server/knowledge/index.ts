/**
 * @module The organization's knowledge base: its sources ingested into the database (sources/,
 * parsed by ingest/, sites fetched by crawl/), stored with their sentence embeddings (store/),
 * and ranked for a question (ranking/rank.ts). `createKnowledgeBase` puts them together.
 */
import type { Migration } from '../store/migrate.js';
import type { Sql } from '../store/sql.js';
import { loadSpecificity } from './text/specificity.js';
import { Ranking, type KnowledgeSnapshot, type SearchHit, type SearchOptions, type Vocabulary } from './ranking/rank.js';
import { sentenceEncoder, type Embedder, type EmbeddingStatus } from './ranking/embeddings.js';
import { cachedQuestions } from './ranking/question-cache.js';
import { ingest, removeSource, sync, type SyncOptions } from './sources/ingest.js';
import type { IngestOptions, IngestReport } from './sources/report.js';
import { listSources, sourceMigrations, type KnowledgeSource } from './sources/source-registry.js';
import { SectionEmbeddings, type PendingEmbeddings } from './store/embeddings.js';
import { sectionMigrations, SectionStore } from './store/sections.js';
import { TicketIndex, type TicketDocument } from './store/tickets.js';

export type { KnowledgeSnapshot, SearchHit, SearchOptions, Vocabulary } from './ranking/rank.js';
export type { EmbedPendingOptions, PendingEmbeddings } from './store/embeddings.js';
export type { EmbeddingStatus } from './ranking/embeddings.js';
export { EmbeddingPool, resolvePoolSize } from './ranking/embedding-pool.js';
export type { StoredSection } from './store/sections.js';
export type { TicketDocument } from './store/tickets.js';
export type { KnowledgeSource } from './sources/source-registry.js';
export type { SyncOptions } from './sources/ingest.js';
export type { SiteGenerator, SiteRoutes } from './sources/site-routes.js';
export { renderDocPage, type RenderDocPageOptions } from './ingest/doc-page.js';
export { IngestError, type IngestOptions, type IngestReport } from './sources/report.js';
export type { Embedder } from './ranking/embeddings.js';
export { MAX_QUERY_WORDS } from './ranking/search-index.js';
export { embedReadings, runInLabels } from './ranking/rank.js';
export { isQuestionFraming, sentences, tokenize } from './text/text.js';
export { asksForCode } from './text/code-question.js';
export { specificity } from './text/specificity.js';
export { blockquote, codeBlock, DOC_TAG, fence, isRunOn, LONGEST_SENTENCE, passagePlain, passageTerms, splitSentences, termsByLine, withTerms, type BlockKind, type Passage, type PassageBlock } from './text/passage.js';
export { passageOfMarkdown } from './ingest/stored-passage.js';
export { searchDocs, type Ranking, type SearchDocsOptions, type SearchResult } from './search.js';
export { indexedPage, type IndexedPage } from './store/pages.js';
export { BackgroundEmbedding } from './store/background-embedding.js';
export { SiteSync } from './sources/site-sync.js';

/** The knowledge base's tables: documents, sections and versions, and the sources' registry. */
export const kbMigrations: Migration[] = [...sectionMigrations, ...sourceMigrations];

/** One knowledge base over one database: what the CLI, the server's jobs, answers, search and MCP use. */
export interface KnowledgeBase extends PendingEmbeddings {
  /** Files, folders and docs sites (by URL), remembered as the organization's sources. */
  ingest(orgId: string, paths: string[], options?: IngestOptions): Promise<IngestReport>;
  /** The organization's sources and their last sync. */
  sources(orgId: string): Promise<KnowledgeSource[]>;
  /** Removes a remembered source (as `sources` lists it) and its pages; `IngestError` when there is no such source. */
  removeSource(orgId: string, source: string): Promise<{ source: string; pages: number }>;
  /** Ingests the organization's sources again (`kinds: ['url']`: its docs sites only). */
  sync(orgId: string, options?: SyncOptions): Promise<IngestReport & { sources: number }>;
  /** Ranked sections for a query (see ranking/rank.ts); tickets only when asked for. */
  search(orgId: string, query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /** The organization's index as it is now, to search more than once for one answer. */
  snapshot(orgId: string): Promise<KnowledgeSnapshot>;
  /** A question's sentence embedding, for `SearchOptions.vector`, embedded in the organization's turn (see ranking/embedding-pool.ts); null without an embedder. */
  embedQuestion(question: string, orgId?: string): Promise<Int8Array | null>;
  /** What the organization's knowledge base knows of a term (as the tokenizer returns it). */
  vocabulary(orgId: string): Promise<Vocabulary>;
  /** Indexes a synced ticket (for the organization's agents). */
  indexTicket(orgId: string, ticket: TicketDocument): Promise<void>;
  /** Removes everything derived from a ticket. */
  forgetTicket(orgId: string, source: string, externalId: string): Promise<void>;
  /** How many documents and sections the organization has, and how many of its prose sections (doc and ticket) have their sentence embedding. */
  stats(orgId: string): Promise<{ documents: number; sections: number; prose: number; embedded: number }>;
  /** Whether sentence embeddings work now (`off` without an embedder; `down` when the model could not start). */
  embeddingStatus(): EmbeddingStatus;
  /** Starts the embedder if not yet; its status once it is up or has given up (a server checks it at start). */
  warmEmbeddings(): Promise<EmbeddingStatus>;
  /**
   * Loads what ranking reads besides the knowledge base (the everyday-word table, seconds of work a
   * slice at a time), so a server's first question does not wait on it.
   */
  warmRanking(): Promise<void>;
}

export interface KnowledgeBaseOptions {
  /** The database, migrated with `kbMigrations` (part of src/server/schema.ts). */
  sql: Sql;
  /**
   * What embeds doc sections at ingest and questions at search, for the semantic rerank; null
   * ranks by words alone. @default the Universal Sentence Encoder, on a thread of the process (see ranking/embeddings.ts)
   */
  embedder?: Embedder | null;
}

/** The knowledge base over a database. */
export function createKnowledgeBase(options: KnowledgeBaseOptions): KnowledgeBase {
  const store = new SectionStore(options.sql);
  const embeddings = new SectionEmbeddings(store, options.embedder !== undefined ? options.embedder : sentenceEncoder);
  const question = cachedQuestions((text, orgId) => embeddings.question(text, orgId));
  const ranking = new Ranking(store, embeddings, question);
  const tickets = new TicketIndex(store, embeddings);
  const target = { store, embeddings };
  return {
    ingest: (orgId, paths, ingestOptions) => ingest(target, orgId, paths, ingestOptions),
    sources: (orgId) => listSources(options.sql, orgId),
    sync: (orgId, syncOptions) => sync(target, orgId, syncOptions),
    removeSource: (orgId, source) => removeSource(target, orgId, source),
    search: (orgId, query, searchOptions) => ranking.search(orgId, query, searchOptions),
    snapshot: (orgId) => ranking.snapshot(orgId),
    embedQuestion: question,
    vocabulary: (orgId) => ranking.vocabulary(orgId),
    indexTicket: (orgId, ticket) => tickets.index(orgId, ticket),
    forgetTicket: (orgId, source, externalId) => tickets.forget(orgId, source, externalId),
    stats: (orgId) => store.stats(orgId, embeddings.id),
    embedPending: (orgId, embedOptions) => embeddings.embedPending(orgId, embedOptions),
    pending: () => embeddings.pending(),
    embeddingStatus: () => embeddings.status(),
    warmEmbeddings: () => embeddings.warm(),
    warmRanking: () => loadSpecificity(),
  };
}
