/**
 * @module Ranking: each organization's indexes (words, pages, meaning), built from its stored
 * sections on the first question after a change and kept per version, and the one ranking of
 * sections for a question that answers, search and MCP all use.
 */
import { setImmediate } from 'node:timers/promises';
import type { SectionRow, StoredSection } from '../ingest/sections.js';
import { loadSpecificity } from '../text/specificity.js';
import { asksForCode } from '../text/code-question.js';
import { anchorTexts } from './anchors.js';
import { DenseIndex, type DenseHit } from './dense-index.js';
import { pageBoost, pagePlace } from './page-boost.js';
import { cosine, fromBytes } from './embeddings.js';
import { SearchIndex, type Hit, type IndexedSection } from './search-index.js';

/** A ranked section. */
export interface SearchHit extends Hit {
  section: StoredSection;
  /**
   * For a heading with no text of its own (the next heading follows at once), the section right
   * after it on its page: what a reader finds under that heading, and what is quoted for it.
   */
  under?: StoredSection;
  /** Cosine of the question's sentence embedding with the section's, when both have one (see embeddings.ts; a query is embedded only when its words are weak, see `Ranking.search`, or its vector is given). */
  similarity?: number;
}

/** What the knowledge base knows of a term (as `tokenize` returns it). */
export interface Vocabulary {
  /** Whether any section holds the term. */
  has(term: string): boolean;
  /** How many sections hold the term. */
  sectionsWith(term: string): number;
  /** The terms of a text, misspelled words read as the words they most likely mean (see `SearchIndex.terms`). */
  terms(text: string): string[];
  /** What a question's sentence embedding reads: the text as typed and, when it has misspelled words, the text with them written as the words they mean, each embedded on its own (see `SearchIndex.readings`). */
  readings(text: string): string[];
}

export interface SearchOptions {
  /** Earlier user turns: their words count less. */
  history?: string[];
  /** @default 10 */
  limit?: number;
  /** Synced tickets too (private to the organization's agents). @default false */
  includeTickets?: boolean;
  /**
   * The question's sentence embedding, or one per reading of it (see `Vocabulary.readings`: a
   * section is as near as the nearest reading): the best doc sections are reordered by what they
   * mean too (see `SEMANTIC_RERANK`). @default the knowledge base's embeddings of the query's
   * readings when its words match less than `SEMANTIC_RERANK.belowCoverage` of it, else none
   */
  vector?: Int8Array | readonly Int8Array[] | null;
  /** The page the reader is on: its sections and its neighbours' rank higher (see page-boost.ts). */
  pageUrl?: string;
}

/** One organization's knowledge base at one version. */
export interface KnowledgeSnapshot {
  search(query: string, options?: SearchOptions): SearchHit[];
  vocabulary: Vocabulary;
}

/** Sections read for the index between two turns of the event loop while it is built (a few milliseconds' work). */
const SECTIONS_PER_TURN = 2_000;

/** How much the page's relevance adds to a section's (both normalised to the best hit). */
const PAGE_WEIGHT = 0.2;
/** Support questions are answered from docs first; code wins when it is clearly the better match, or when the question names code. */
const CODE_PRIOR = 0.5;
/** A doc section matching as much of the question as a code section goes first from this share of its score on. */
const DOCS_FIRST_RATIO = 0.2;
/**
 * The semantic rerank: for a question with a sentence embedding, the best `candidates` doc
 * sections by their words are reordered by `words × (score / best doc score) + cosine(question,
 * section)`, in the places doc sections hold among the hits (code keeps its places: reordered by
 * meaning, code ranked worse). The chat embeds every question, so what a whole question means
 * reorders what its words found (DuckDuckGo gold shown 0.750 → 0.850, Plausible 0.667 → 0.683,
 * docs 0.980 → 0.990; see docs/benchmarks.md); search embeds a query only when its words match
 * less than `belowCoverage` of its weight (see `Ranking.search`), so a query in the docs' own
 * words costs no embedding. Normalised-score fusion, measured against reciprocal-rank fusion and
 * min-max normalised cosines (see docs/engine.md).
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

/** One organization's indexes, built from its sections at one version. */
interface LoadedIndex {
  version: number;
  index: SearchIndex;
  sections: StoredSection[];
  pages: SearchIndex;
  pageOf: Int32Array;
  /** Source files with their code, read for a code piece's page (see `#build`). */
  files: SearchIndex;
  /** Each section's source file in `files`; -1 for a doc or ticket section. */
  fileOf: Int32Array;
  /** 1 for each synced ticket: dense retrieval skips them unless asked (read per candidate, so a typed array rather than 50,000 objects). */
  tickets: Uint8Array;
  /** Each section's sentence embedding (none for code, and for sections stored without one), for dense retrieval and the rerank. */
  dense: DenseIndex;
}

/** A question's embeddings, one per reading of it (see `Vocabulary.readings`). */
type Readings = readonly Int8Array[];

/** The embeddings of a question's readings (see `Vocabulary.readings`), those `embed` could make (none without an embedder). */
export async function embedReadings(texts: readonly string[], embed: (text: string, orgId?: string) => Promise<Int8Array | null>, orgId?: string): Promise<Int8Array[]> {
  return (await Promise.all(texts.map((text) => embed(text, orgId)))).filter((vector) => vector !== null);
}

/** A search option's embedding as readings: none, one, or one per reading. */
function readingsOf(vector: Int8Array | readonly Int8Array[] | null | undefined): Readings {
  if (!vector) return [];
  return vector instanceof Int8Array ? [vector] : vector;
}

/** How near a section's vector is to a question read one or more ways: the best cosine of its readings. */
function nearness(question: Readings, vector: Int8Array): number {
  let best = -1;
  for (const reading of question) best = Math.max(best, cosine(reading, vector));
  return best;
}

/** The `k` sections nearest any reading of the question, each at its best cosine, nearest first (see `DenseIndex.nearest`). */
function nearestOf(dense: DenseIndex, question: Readings, k: number, accept?: (index: number) => boolean): DenseHit[] {
  if (question.length === 1) return dense.nearest(question[0]!, k, accept);
  const best = new Map<number, number>();
  for (const reading of question) for (const hit of dense.nearest(reading, k, accept)) best.set(hit.index, Math.max(best.get(hit.index) ?? -1, hit.cosine));
  return [...best].map(([index, cosine]) => ({ index, cosine })).sort((a, b) => b.cosine - a.cosine).slice(0, k);
}

/** Whether a hit takes part in the semantic rerank: a doc or ticket section with a vector (code keeps its places). */
const reranked = (section: StoredSection, vector: Int8Array | null) => section.kind !== 'code' && vector !== null;

/**
 * The doc and ticket hits reordered by what they mean as well as by their words (see
 * `SEMANTIC_RERANK`); unchanged when a candidate has no vector yet (a knowledge base ingested
 * without embeddings ranks by its words until `kb ingest` is run again).
 */
function semanticRerank<T extends { index: number; score: number; coverage: number; section: StoredSection }>(hits: T[], question: Readings, dense: DenseIndex): T[] {
  const slots: number[] = [];
  for (let i = 0; i < hits.length && slots.length < SEMANTIC_RERANK.candidates; i++) if (hits[i]!.section.kind !== 'code') slots.push(i);
  if (slots.length < 2 || slots.some((i) => !reranked(hits[i]!.section, dense.vector(hits[i]!.index)))) return hits;
  const best = hits[slots[0]!]!.score || 1;
  const reordered = slots
    .map((i) => ({ hit: hits[i]!, score: (SEMANTIC_RERANK.words * hits[i]!.score) / best + nearness(question, dense.vector(hits[i]!.index)!) }))
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

/** Ranked sections of one loaded index for a query (see the constants above for each stage). */
function rank(loaded: LoadedIndex, query: string, options: SearchOptions): SearchHit[] {
  return byMeaning(loaded, byWords(loaded, query, options), options, readingsOf(options.vector));
}

/** The first stage: the sections ranked by their words and their pages' (docs before code, the reader's page weighed). */
function byWords(loaded: LoadedIndex, query: string, options: SearchOptions): SearchHit[] {
  const { index, sections, pages, pageOf, files, fileOf } = loaded;
  const limit = options.limit ?? 10;
  const hits = index.search(query, { history: options.history, limit: Math.max(50, limit * 3) });
  const bestSection = hits[0]?.score ?? 1;
  const place = pagePlace(options.pageUrl);
  // A question that names code (an identifier, "the Log class") is asked of the code as much as
  // of the docs: neither goes first by kind.
  const docsBeforeCode = !asksForCode(query);
  // Each page's score over the best page's. A question that names code weighs a code piece by its
  // source file, read by its code among the source files alone (see `#build`).
  const relative = (found: { index: number; score: number }[]) => new Map(found.map((h) => [h.index, h.score / (found[0]?.score || 1)]));
  const pageScores = relative(pages.search(query, { history: options.history, limit: 20 }));
  const byFile = !docsBeforeCode && files.size > 0;
  const fileScores = relative(byFile ? files.search(query, { history: options.history, limit: 20 }) : []);
  const pageScore = (i: number) => (byFile && fileOf[i]! >= 0 ? fileScores.get(fileOf[i]!) : pageScores.get(pageOf[i]!)) ?? 0;
  const ranked = hits
    .map((hit) => ({
      ...hit,
      score:
        (hit.score / bestSection + PAGE_WEIGHT * pageScore(hit.index) + (place ? pageBoost(sections[hit.index]!.url, place) : 0)) *
        (docsBeforeCode && sections[hit.index]!.kind === 'code' ? CODE_PRIOR : 1),
    }))
    .sort((a, b) => b.score - a.score)
    .map((hit) => ({ ...hit, section: sections[hit.index]! }))
    .filter((hit) => options.includeTickets || hit.section.kind !== 'ticket');
  return docsBeforeCode ? docsFirst(ranked) : ranked;
}

/** The second stage: what the question means (dense retrieval and the semantic rerank) over the words' ranking; the words' alone without a vector. */
function byMeaning(loaded: LoadedIndex, merged: SearchHit[], options: SearchOptions, question: Readings): SearchHit[] {
  const { sections, dense } = loaded;
  const limit = options.limit ?? 10;
  // A heading with no text of its own is read with the section under it (see `SearchHit.under`):
  // the next section when it is nested in that heading (its heading path ends with it), never a
  // sibling, which says something else.
  const withText = <T extends SearchHit>(hit: T): T => {
    const next = sections[hit.index + 1];
    const nested = next !== undefined && (next.context === hit.section.title || next.context.endsWith(` › ${hit.section.title}`));
    return hit.section.kind === 'doc' && !hit.section.body.trim() && !hit.section.code.trim() && nested && next.docKey === hit.section.docKey && next.kind === 'doc' ? { ...hit, under: next } : hit;
  };
  if (question.length === 0) return merged.slice(0, limit).map(withText);
  // The sections nearest in meaning that the words did not find follow the words' candidates.
  const found = new Set(merged.map((hit) => hit.index));
  const near = nearestOf(dense, question, DENSE_CANDIDATES + found.size, options.includeTickets ? undefined : (i) => loaded.tickets[i] === 0).filter((hit) => hit.cosine >= DENSE_MIN_COSINE);
  const asHit = (index: number) => ({ index, score: 0, coverage: 0, section: sections[index]! });
  const joining = near.filter((hit) => !found.has(hit.index)).slice(0, DENSE_CANDIDATES);
  let fused = semanticRerank([...merged, ...joining.map((hit) => asHit(hit.index))], question, dense);
  if ((fused[0]?.coverage ?? 0) < SEMANTIC_RERANK.belowCoverage) {
    const byIndex = new Map(fused.map((hit) => [hit.index, hit]));
    const nearest = near.filter((hit) => sections[hit.index]!.kind !== 'code').slice(0, NEAREST_SHOWN.count);
    fused = showNearest(fused, nearest.map((hit) => byIndex.get(hit.index) ?? asHit(hit.index)));
  }
  return fused.slice(0, limit).map((hit) => {
    const vector = dense.vector(hit.index);
    return withText(vector ? { ...hit, similarity: nearness(question, vector) } : hit);
  });
}

/** What the ranking reads of the store (store/sections.ts `SectionStore`): the organization's rows, and the version that says when to read them again. */
export interface RankedRows {
  version(orgId: string): Promise<number>;
  sections(orgId: string): Promise<SectionRow[]>;
}

/** What the ranking asks of the embeddings (store/embeddings.ts `SectionEmbeddings`): a question's vector, and which model made the stored ones. */
export interface QuestionEmbeddings {
  readonly id: string | null;
  question(text: string, orgId?: string): Promise<Int8Array | null>;
}

/**
 * The ranking of one knowledge base: its organizations' indexes, cached per version (one read of
 * the version before each question; a change in any process makes the next question rebuild).
 */
export class Ranking {
  readonly #store: RankedRows;
  readonly #embeddings: QuestionEmbeddings;
  /** A question's embedding (see question-cache.ts: a repeated question is embedded once). */
  readonly #question: (text: string, orgId?: string) => Promise<Int8Array | null>;
  readonly #cache = new Map<string, LoadedIndex>();
  /** Indexes being built, per organization: questions arriving meanwhile wait for the same build. */
  readonly #building = new Map<string, { version: number; loaded: Promise<LoadedIndex> }>();

  constructor(store: RankedRows, embeddings: QuestionEmbeddings, question: (text: string, orgId?: string) => Promise<Int8Array | null> = (text, orgId) => embeddings.question(text, orgId)) {
    this.#store = store;
    this.#embeddings = embeddings;
    this.#question = question;
  }

  /** Ranked sections for a query; tickets only when asked for (they are private to the organization's agents). */
  async search(orgId: string, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    await loadSpecificity();
    const loaded = await this.#load(orgId);
    const words = byWords(loaded, query, options);
    // A search query is embedded only when its meaning moves the ranking most: when the words
    // match less than `SEMANTIC_RERANK.belowCoverage` of it (`NEAREST_SHOWN` applies below that
    // share alone). Above it, a query typed into search keeps the words' ranking and costs no
    // embedding (see docs/benchmarks.md: a query's embedding is most of a search's time).
    const weak = (words[0]?.coverage ?? 0) < SEMANTIC_RERANK.belowCoverage;
    const question = options.vector !== undefined ? readingsOf(options.vector) : weak ? await embedReadings(loaded.index.readings(query), this.#question, orgId) : [];
    return byMeaning(loaded, words, options, question);
  }

  /**
   * The organization's knowledge base as it is now, to search and read its vocabulary more than
   * once for one answer after one check that the index is current.
   */
  async snapshot(orgId: string): Promise<KnowledgeSnapshot> {
    await loadSpecificity();
    const loaded = await this.#load(orgId);
    return { search: (query, options = {}) => rank(loaded, query, options), vocabulary: vocabularyOf(loaded) };
  }

  /** What the organization's knowledge base knows of terms (as `tokenize` returns them). */
  async vocabulary(orgId: string): Promise<Vocabulary> {
    return vocabularyOf(await this.#load(orgId));
  }

  /**
   * The organization's indexes, built on the first question after a change. The build yields to the
   * event loop as it goes (see `SearchIndex.build`), so a server keeps answering other requests
   * while a large knowledge base is indexed.
   */
  async #load(orgId: string): Promise<LoadedIndex> {
    const version = await this.#store.version(orgId);
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
    const rows = await this.#store.sections(orgId);
    // Each section one object literal of one shape, as the index holds 50,000 of them.
    const sections: StoredSection[] = rows.map((r) => r.section);
    // Only vectors this knowledge base's embedder made can be compared with its questions'.
    const embedderId = this.#embeddings.id;
    const vectors = rows.map((r) => (embedderId !== null && r.embeddingBy === embedderId ? fromBytes(r.embedding) : null));
    // A second index over whole pages: a section on the right page ranks above a look-alike
    // elsewhere. A code piece's page is its source file, read by its code in an index of the source
    // files alone: "the test method `issue92()`" finds the file that defines it, which its doc
    // comments never name, and a doc page is not weighed against a file's code.
    const pageIds = new Map<string, number>();
    const pageOf = new Int32Array(sections.length);
    const fileIds = new Map<string, number>();
    const fileOf = new Int32Array(sections.length).fill(-1);
    const fileTexts: WholeText[] = [];
    const tickets = new Uint8Array(sections.length);
    const pageTexts: WholeText[] = [];
    // A heading is read with the headings above it: "Examples" under "Use XML tags" is about XML
    // tags. Doc sections are indexed with their heading path in the title field (code keeps its
    // symbol names alone there); what is shown keeps the section's own title.
    // Bold run-in labels of a list ("- **CSP.** Works under…") name what their items are about, as
    // sub-headings would: they are read with the heading.
    // What the words index reads of each section (its text, not its passage).
    const indexed: IndexedSection[] = [];
    // What other sections' links call a section is read as more of its text (see anchors.ts).
    const anchors = await anchorTexts(sections);
    for (const [i, section] of sections.entries()) {
      const anchor = anchors[i]!;
      const body = anchor ? `${section.body}\n\n${anchor}` : section.body;
      const page = textOf(pageIds, pageTexts, section.docKey, section.context.split(' › ')[0] ?? '');
      const text = pageTexts[page]!;
      text.context += ` ${section.title}`;
      text.body += ` ${section.body}`;
      pageOf[i] = page;
      if (section.kind === 'code') {
        const file = textOf(fileIds, fileTexts, section.docKey, text.title);
        const fileText = fileTexts[file]!;
        fileText.context += ` ${section.title}`;
        fileText.body += ` ${section.body}`;
        fileText.code += ` ${section.code}`;
        fileOf[i] = file;
      }
      if (section.kind === 'ticket') tickets[i] = 1;
      indexed.push(section.kind === 'code' ? section : { ...section, title: [section.title, section.context, ...runInLabels(section.body)].filter(Boolean).join(' '), body });
      // Other requests go between slices of a large knowledge base (50,000 sections at once held the event loop a third of a second).
      if (i % SECTIONS_PER_TURN === SECTIONS_PER_TURN - 1) await setImmediate();
    }
    const index = await SearchIndex.build(indexed);
    const pages = await SearchIndex.build(pageTexts, { phrases: false });
    const files = await SearchIndex.build(fileTexts, { phrases: false });
    return { version, index, sections, pages, pageOf, files, fileOf, tickets, dense: await DenseIndex.build(vectors) };
  }
}

/** A whole page or source file as its index reads it: its sections' titles, text and code run together. */
interface WholeText {
  id: number;
  title: string;
  context: string;
  body: string;
  code: string;
}

/** The id of the page or file `key` in `ids`, its text added to `texts` (empty, under `title`) when it is new. */
function textOf(ids: Map<string, number>, texts: WholeText[], key: string, title: string): number {
  let id = ids.get(key);
  if (id === undefined) {
    id = texts.length;
    ids.set(key, id);
    texts.push({ id, title, context: '', body: '', code: '' });
  }
  return id;
}

function vocabularyOf({ index }: LoadedIndex): Vocabulary {
  return { has: (term) => index.has(term), sectionsWith: (term) => index.sectionsWith(term), terms: (text) => index.terms(text), readings: (text) => index.readings(text) };
}
