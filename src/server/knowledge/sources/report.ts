/** @module What an ingest is given and what it reports, shared by the ingestion of folders and of docs sites. */
import type { CrawlOptions, CrawlProgress } from '../crawl/crawler.js';
import type { SectionEmbeddings } from '../store/embeddings.js';
import type { SectionStore } from '../store/sections.js';
import type { SourceOptions } from './source-registry.js';

export interface IngestOptions extends Omit<SourceOptions, 'baseUrl'> {
  /** Prefix of every source URL without frontmatter `url`: base URL + path relative to the ingested folder's parent. */
  baseUrl?: string;
  /** Files done of the total, the one under way, and sections written so far. */
  onProgress?(done: number, total: number, file: string, sections?: number): void;
  /** A docs site's crawl as it goes. */
  onCrawlProgress?(progress: CrawlProgress & { site: string }): void;
  /** Crawl settings beside the source's own (concurrency, timeouts, retries; tests' stand-in `fetch`). */
  crawl?: Omit<CrawlOptions, 'known' | 'onProgress' | keyof SourceOptions>;
  /** Replace a docs site's pages even where the sync guard would keep them (`kb sync --accept`). */
  accept?: boolean;
  /**
   * Embed code pieces now too (`kb ingest --embed-code`). By default they are stored without a
   * vector and a server embeds them in the background (see `SectionEmbeddings.embedPending`): the
   * model takes tens of milliseconds a piece, and a project's source has thousands of them.
   */
  embedCode?: boolean;
}

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
  /** Of the sections replaced, those stored before the passage model: parsed again into passages (see store/sections.ts, kb migration 4). */
  reparsed: number;
  skipped: { path: string; reason: string }[];
}

/** An empty report, to add to. */
export const emptyReport = (): IngestReport => ({ files: 0, pages: 0, requests: 0, failed: [], added: 0, updated: 0, unchanged: 0, removed: 0, sections: 0, reparsed: 0, skipped: [] });

/** Thrown for paths that cannot be ingested at all (missing, unreadable), and docs sites that cannot be crawled (a bad URL, no answer, robots.txt forbidding it). */
export class IngestError extends Error {
  override name = 'IngestError';
}

/** Where ingestion writes: the section store and the embeddings of what it stores. */
export interface IngestTarget {
  store: SectionStore;
  embeddings: SectionEmbeddings;
}
