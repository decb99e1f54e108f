/**
 * @module An in-memory BM25F index over sections: fields title, context (page title and parent
 * headings), body and code, each with its own weight and length normalisation.
 */
import { setImmediate } from 'node:timers/promises';
import { isEverydayWord, specificity } from '../text/specificity.js';
import { LRUCache } from 'lru-cache';
import { isQuestionFraming, stem, tokenize, words, wordSpans } from '../text/text.js';
import { Int32Chunks } from './int32-chunks.js';
import { drain, stepped } from './steps.js';
import { TypoIndex } from './typos.js';

export interface IndexedSection {
  id: number;
  title: string;
  context: string;
  body: string;
  code: string;
}

const FIELDS = ['title', 'context', 'body', 'code'] as const;
/** How much a term in each field counts, and how much field length dampens it. */
const WEIGHT = [4.0, 2.0, 1.0, 0.5];
const B = [0.2, 0.4, 0.9, 0.75];
const K1 = 2.0;
/** Up to how much a section's score grows when the question names every word of its heading. */
const HEADING_BONUS = 0.5;
/** How much a question-framing word of the query counts (see isQuestionFraming). */
const FRAMING_WEIGHT = 0.5;
/** How much a word of the latest earlier user turn counts in a follow-up (each turn before it 0.7 times less). */
const HISTORY_WEIGHT = 0.6;

/**
 * Most words of one text `terms` reads (a question is clipped before, see index.ts; this bounds
 * every caller): a question names its subject in far fewer.
 */
export const MAX_QUERY_WORDS = 300;
/**
 * Most words of one text read as misspellings (the first unknown ones): each costs about a
 * thousand lookups (a few tenths of a millisecond), and a question has far fewer.
 */
export const MAX_RESPELLED_WORDS = 12;
/** Longest word read as a misspelling, in letters: English words are shorter, and the edits of a word grow with its length. */
const MAX_RESPELLED_CHARS = 20;
/** How many misspelled words, section pairs and headings each index keeps (least recently used dropped first). */
const CACHE_SIZE = 5_000;

/** What a misspelled word is read as: the term of the word it means, and that word when it is one of everyday English (null: a name, a stem, or the word as written). */
interface Respelled {
  term: string;
  word: string | null;
}

/** A posting record: [doc, tf in title, tf in context, tf in body, tf in code]. */
const STRIDE = 1 + FIELDS.length;

export interface Hit {
  /** Position in the array the index was built from. */
  index: number;
  score: number;
  /** Share of the query's weight (idf) that this section matched, 0..1. */
  coverage: number;
}

/** The numbers a search reads: terms, their postings, field lengths and their averages. */
interface Postings {
  termIds: Map<string, number>;
  offsets: Int32Array;
  postings: Int32Array;
  lengths: Float32Array[];
  avg: number[];
  /** Section n's adjacent-word pairs (see `pairKey`) are `pairs[pairStarts[n] .. pairStarts[n + 1])`, sorted; empty without phrases. */
  pairStarts: Int32Array;
  pairs: Int32Array;
}

/**
 * One number for two adjacent terms (by their numbers): a 32-bit hash, which two different pairs
 * of one section share about once in tens of millions of lookups, costing a phrase bonus at worst.
 */
const pairKey = (a: number, b: number) => Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca6b);

/**
 * Builds the postings section by section: `add` numbers each section's terms and keeps its distinct
 * terms with their counts per field in flat typed arrays; `finish` lays the postings out term by
 * term in one Int32Array.
 */
class PostingsBuilder {
  readonly #termIds = new Map<string, number>();
  readonly #lengths: Float32Array[];
  readonly #totals = FIELDS.map(() => 0);
  readonly #docStart: Int32Array;
  readonly #rowTerms = new Int32Chunks();
  readonly #rowCounts = new Int32Chunks();
  #rows = 0;
  /** Per term, the last section it was seen in and its row there. */
  #lastDoc = new Int32Array(1 << 12).fill(-1);
  #slotOf = new Int32Array(1 << 12);
  readonly #pairStarts: Int32Array;
  readonly #pairs = new Int32Chunks();
  #pairCount = 0;

  constructor(
    readonly size: number,
    readonly phrases: boolean,
  ) {
    this.#lengths = FIELDS.map(() => new Float32Array(size));
    this.#docStart = new Int32Array(size + 1);
    this.#pairStarts = new Int32Array(size + 1);
  }

  add(doc: number, section: IndexedSection): void {
    this.#docStart[doc] = this.#rows;
    // The numbers of the title's terms then the text's, in order, for the adjacent pairs.
    const sequence: number[] = [];
    FIELDS.forEach((field, f) => {
      const terms = tokenize(field === 'body' ? uniqueLines(section.body) : section[field]);
      this.#lengths[f]![doc] = terms.length;
      this.#totals[f]! += terms.length;
      for (const term of terms) {
        let id = this.#termIds.get(term);
        if (id === undefined) {
          id = this.#termIds.size;
          this.#termIds.set(term, id);
          if (id >= this.#lastDoc.length) {
            this.#lastDoc = grow(this.#lastDoc, id + 1, -1);
            this.#slotOf = grow(this.#slotOf, id + 1, 0);
          }
        }
        if (this.#lastDoc[id] !== doc) {
          this.#lastDoc[id] = doc;
          this.#slotOf[id] = this.#rows;
          this.#rowTerms.reserve(this.#rows + 1);
          this.#rowCounts.reserve(4 * (this.#rows + 1));
          this.#rowTerms.set(this.#rows++, id);
        }
        this.#rowCounts.increment(4 * this.#slotOf[id]! + f);
        if (this.phrases && (field === 'title' || field === 'body')) sequence.push(id);
      }
    });
    this.#addPairs(doc, sequence);
  }

  /** The section's distinct adjacent pairs, sorted, for the phrase bonus (see `SearchIndex.search`). */
  #addPairs(doc: number, sequence: number[]): void {
    this.#pairStarts[doc] = this.#pairCount;
    if (sequence.length < 2) return;
    const keys = new Int32Array(sequence.length - 1);
    for (let i = 0; i + 1 < sequence.length; i++) keys[i] = pairKey(sequence[i]!, sequence[i + 1]!);
    keys.sort();
    this.#pairs.reserve(this.#pairCount + keys.length);
    for (let i = 0; i < keys.length; i++) if (i === 0 || keys[i] !== keys[i - 1]) this.#pairs.set(this.#pairCount++, keys[i]!);
  }

  /** The postings, made at once. */
  finish(): Postings {
    return drain(this.finishing());
  }

  /**
   * The postings, made in steps: `SearchIndex.build` lets the event loop turn at each `yield`
   * (filling 50,000 sections' postings at once held it half a second).
   */
  *finishing(): Generator<void, Postings> {
    const rows = this.#rows;
    const rowTerms = this.#rowTerms;
    const docStart = this.#docStart;
    docStart[this.size] = rows;
    const terms = this.#termIds.size;
    const offsets = new Int32Array(terms + 1);
    for (let r = 0; r < rows; r++) {
      offsets[rowTerms.get(r) + 1]! += STRIDE;
      if (r % ROWS_PER_TURN === ROWS_PER_TURN - 1) yield;
    }
    for (let t = 0; t < terms; t++) offsets[t + 1]! += offsets[t]!;
    const postings = new Int32Array(rows * STRIDE);
    const fill = offsets.slice(0, terms);
    let stepStart = 0;
    for (let doc = 0; doc < this.size; doc++) {
      for (let r = docStart[doc]!; r < docStart[doc + 1]!; r++) {
        const term = rowTerms.get(r);
        const at = fill[term]!;
        fill[term] = at + STRIDE;
        postings[at] = doc;
        for (let f = 0; f < 4; f++) postings[at + 1 + f] = this.#rowCounts.get(4 * r + f);
      }
      // A step ends after `FILLED_PER_TURN` records, however few documents hold them (a page index's are long).
      if (docStart[doc + 1]! - stepStart >= FILLED_PER_TURN) {
        stepStart = docStart[doc + 1]!;
        yield;
      }
    }
    const avg = this.#totals.map((t) => (this.size ? t / this.size || 1 : 1));
    this.#pairStarts[this.size] = this.#pairCount;
    const pairs = yield* this.#pairs.joined(this.#pairCount);
    return { termIds: this.#termIds, offsets, postings, lengths: this.#lengths, avg, pairStarts: this.#pairStarts, pairs };
  }
}

/** How much text (characters) `SearchIndex.build` indexes between two turns of the event loop. */
const CHARACTERS_PER_TURN = 100_000;
/** Term records counted, and sections' postings filled, between two turns while `SearchIndex.build` finishes. */
const ROWS_PER_TURN = 500_000;
const FILLED_PER_TURN = 200_000;

export class SearchIndex {
  readonly size: number;
  /** Term → its number; term n's records are `#postings[#offsets[n] .. #offsets[n + 1])`. */
  readonly #termIds: Map<string, number>;
  readonly #offsets: Int32Array;
  readonly #postings: Int32Array;
  /** Per field, each section's term weight over its length normalisation (`WEIGHT / (1 - B + B × length / average)`), made once at build. */
  readonly #fieldWeights: Float64Array[];
  readonly #sections: readonly IndexedSection[];
  readonly #phrases: boolean;
  /** Each section's adjacent-term pairs (title then text), for the phrase bonus: see `Postings`. */
  readonly #pairStarts: Int32Array;
  readonly #pairs: Int32Array;
  /**
   * A search's running scores and matched weights per section, kept between searches (zeroed
   * again for the sections a search touched): a search costs the postings of its terms, not the
   * size of the knowledge base.
   */
  #scores: Float64Array | null = null;
  #matched: Float64Array | null = null;
  /** The distinct terms of the title fields of sections that were candidates lately. */
  readonly #headings = new LRUCache<number, string[]>({ max: CACHE_SIZE, memoMethod: (index) => [...new Set(tokenize(this.#sections[index]!.title))] });
  /**
   * Misspelled words read lately and what they were read as, false for nothing (a question's words
   * are read a few times per answer, and again as earlier turns of the next questions).
   */
  readonly #respelled = new LRUCache<string, Respelled | false>({ max: CACHE_SIZE, memoMethod: (word) => this.#respell(word) ?? false });
  /** The vocabulary's terms, for the words within a few edits of a misspelled one (see typos.ts). */
  readonly #typos: TypoIndex;

  /** Builds the index at once; `SearchIndex.build` does the same without holding the event loop. */
  constructor(sections: readonly IndexedSection[], options: { phrases?: boolean } = {}, built?: Postings) {
    this.size = sections.length;
    this.#sections = sections;
    this.#phrases = options.phrases ?? true;
    if (!built) {
      const builder = new PostingsBuilder(sections.length, this.#phrases);
      sections.forEach((section, doc) => builder.add(doc, section));
      built = builder.finish();
    }
    this.#termIds = built.termIds;
    this.#offsets = built.offsets;
    this.#postings = built.postings;
    // A plain loop: `Float64Array.from` with a mapping function took 175 ms for 80,000 sections.
    this.#fieldWeights = FIELDS.map((_, f) => {
      const lengths = built.lengths[f]!;
      const weights = new Float64Array(lengths.length);
      for (let doc = 0; doc < lengths.length; doc++) weights[doc] = WEIGHT[f]! / (1 - B[f]! + (B[f]! * lengths[doc]!) / built.avg[f]!);
      return weights;
    });
    this.#pairStarts = built.pairStarts;
    this.#pairs = built.pairs;
    this.#typos = new TypoIndex(this.#termIds.keys());
  }

  /**
   * Builds the index a hundred thousand characters of text at a time (a few tens of milliseconds),
   * letting other work (the server's requests) run in between: a large knowledge base takes
   * seconds to index.
   */
  static async build(sections: readonly IndexedSection[], options: { phrases?: boolean } = {}): Promise<SearchIndex> {
    const builder = new PostingsBuilder(sections.length, options.phrases ?? true);
    let indexed = 0;
    for (let doc = 0; doc < sections.length; doc++) {
      const section = sections[doc]!;
      if (indexed >= CHARACTERS_PER_TURN) {
        await setImmediate();
        indexed = 0;
      }
      builder.add(doc, section);
      indexed += section.title.length + section.context.length + section.body.length + section.code.length;
    }
    return new SearchIndex(sections, options, await stepped(builder.finishing()));
  }

  /** Whether two terms (by their numbers) stand next to each other in a section's title or text. */
  #adjacent(index: number, a: number, b: number): boolean {
    const key = pairKey(a, b);
    let lo = this.#pairStarts[index]!;
    let hi = this.#pairStarts[index + 1]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#pairs[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.#pairStarts[index + 1]! && this.#pairs[lo] === key;
  }

  /** Whether any section holds a term (as `tokenize` returns it). */
  has(term: string): boolean {
    return this.#termIds.has(term);
  }

  /** How many sections hold a term (as `tokenize` returns it). */
  sectionsWith(term: string): number {
    return this.#df(this.#termIds.get(term));
  }

  /**
   * The terms of a question (see `tokenize`), each misspelled word read as the word it most likely
   * means: a word of at least four letters whose term neither the index nor everyday English knows
   * ("dialy", "mutli", "authenticater") is read as the word one edit away (a letter dropped, added,
   * changed, or two swapped) whose term most sections hold. Edits are made to the word as written,
   * before stemming, which would take "mutli" to "mut" and "authenticater" to "authenticat".
   */
  terms(text: string): string[] {
    const out: string[] = [];
    let respellings = 0;
    // Each word or identifier part read as a misspelling counts, whatever the text holds.
    const respell = (word: string) => (respellings++ < MAX_RESPELLED_WORDS ? this.#respelledOnce(word) : null);
    for (const { word, terms } of words(text, MAX_QUERY_WORDS)) {
      if (terms.length > 1) {
        // An identifier: its whole term (unless too long to be one) and its parts' (see `tokenize`).
        const whole = terms[0] === word.toLowerCase().replace(/[-.:]/g, '_') ? terms[0] : null;
        out.push(...(whole !== null && this.#termIds.has(whole) ? terms : this.#respelledIdentifier(whole, whole === null ? terms : terms.slice(1), respell)));
        continue;
      }
      const respelled = this.#misspelled(word, terms) ? respell(word.toLowerCase()) : null;
      if (respelled) out.push(respelled);
      else out.push(...terms);
    }
    return out;
  }

  /**
   * A misspelled identifier's terms ("OomOsberver": `oomosberver`, `oom`, `osberv`) as the index
   * holds the identifier it most likely means: its whole term respelled when the index holds one
   * within the edits its length allows (`oomobserver`), and each part it does not know read as the
   * word it means (`observ`; "getTrget" is `get`, `target`). A part that finds nothing stays as
   * written, unless the whole was found: then it is no word of it.
   */
  #respelledIdentifier(whole: string | null, parts: string[], respell: (word: string) => string | null): string[] {
    const identifier = whole !== null && whole.length <= MAX_RESPELLED_CHARS && /^[a-z]+$/.test(whole) ? respell(whole) : null;
    const read = parts.flatMap((part) => {
      const known = this.#termIds.has(part) ? part : respell(part);
      return known ? [known] : identifier ? [] : [part];
    });
    return [...(identifier ? [identifier] : whole !== null ? [whole] : []), ...read];
  }

  #respelledOnce(word: string): string | null {
    const read = this.#respelled.memo(word);
    return read ? read.term : null;
  }

  /** Whether a word of one term may be a misspelling (`terms` and `readings` read the same ones): the index does not know it, and it is short enough to respell. */
  #misspelled(word: string, terms: string[]): boolean {
    return terms.length === 1 && !this.#termIds.has(terms[0]!) && word.length <= MAX_RESPELLED_CHARS;
  }

  /**
   * What a question's sentence embedding reads: the text as typed and, when it has misspelled words
   * (as `terms` reads them: the first `MAX_RESPELLED_WORDS` unknown ones) that mean words of
   * everyday English, the text again with them written as those words ("bank trasnfer" is "bank
   * transfer"; a name or a word with no such reading stays as written). Each is embedded on its
   * own and a section is as near the question as the nearer of the two: the model's meaning of a
   * misspelled word is often not the word's ("trasnfer"), but sometimes it is, and nearer than
   * the word respelled ("authenticater" is an authenticator, its respelling "authenticate"). See
   * docs/benchmarks.md.
   */
  readings(text: string): string[] {
    let out = '';
    let at = 0;
    let read = 0;
    let respellings = 0;
    for (const { start, end, terms } of wordSpans(text)) {
      if (read++ >= MAX_QUERY_WORDS || respellings >= MAX_RESPELLED_WORDS) break;
      const word = text.slice(start, end);
      if (!this.#misspelled(word, terms)) continue;
      respellings++;
      const meant = this.#respelled.memo(word.toLowerCase());
      if (!meant || !meant.word) continue;
      out += text.slice(at, start) + meant.word;
      at = end;
    }
    out += text.slice(at);
    return at === 0 ? [text] : [`${text}\n${out}`, out];
  }

  /**
   * The term of the known word a misspelled one most likely means (see `terms`): first the words
   * of everyday English one edit away whose terms the index holds (the most sections wins: "mutli"
   * is "multi", "dialy" "daily"), else the index's own terms (its names and jargon) within the
   * edits the word's length allows, as written or stemmed (see typos.ts: "pasword", "exprot",
   * "conection"), the fewest edits then the most sections winning; the word as the index holds it
   * whole when it does ("iphone" for "iPhone"); undefined when there is none. Only everyday words
   * are stemmed, so a question full of unknown words (a pasted log) stays fast.
   */
  #respell(word: string): Respelled | undefined {
    if (this.#termIds.has(word)) return { term: word, word: null };
    if (word.length < 4 || !/^[a-z]+$/.test(word) || specificity(stem(word)) < 1) return undefined;
    let best: Respelled | undefined;
    let bestDf = 0;
    for (const candidate of oneEditAway(word)) {
      if (!isEverydayWord(candidate)) continue;
      const term = stem(candidate);
      const df = this.#df(this.#termIds.get(term));
      if (df > bestDf) [best, bestDf] = [{ term, word: candidate }, df];
    }
    if (best) return best;
    let bestEdits = Infinity;
    for (const { term, edits } of this.#typos.near([word, stem(word)])) {
      const df = this.#df(this.#termIds.get(term));
      if (edits < bestEdits || (edits === bestEdits && df > bestDf)) [best, bestDf, bestEdits] = [{ term, word: isEverydayWord(term) ? term : null }, df, edits];
    }
    return best;
  }

  /** How many sections contain a term, given its number (none for an unknown term). */
  #df(id: number | undefined): number {
    return id === undefined ? 0 : (this.#offsets[id + 1]! - this.#offsets[id]!) / STRIDE;
  }

  #idf(df: number): number {
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /**
   * Ranks sections for a query. `history` (earlier user turns) adds its terms at a lower weight,
   * so a follow-up like "and on Windows?" keeps the topic of the conversation. Earlier turns are
   * read as written, not respelled: respelling every earlier turn again made each answer of a long
   * conversation cost more than the last.
   */
  search(query: string, options: { history?: string[]; limit?: number } = {}): Hit[] {
    const limit = options.limit ?? 10;
    const weights = new Map<string, number>();
    const queryTerms = this.terms(query);
    for (const t of queryTerms) weights.set(t, Math.max(weights.get(t) ?? 0, isQuestionFraming(t) ? FRAMING_WEIGHT : 1));
    const history = options.history ?? [];
    history.forEach((turn, i) => {
      const w = HISTORY_WEIGHT * 0.7 ** (history.length - 1 - i);
      for (const t of tokenize(turn, MAX_QUERY_WORDS)) if (!weights.has(t)) weights.set(t, w);
    });
    if (weights.size === 0 || this.size === 0) return [];

    const scores = (this.#scores ??= new Float64Array(this.size));
    const matched = (this.#matched ??= new Float64Array(this.size));
    // The sections with a score, each once (in the order first reached).
    const touched: number[] = [];
    let totalWeight = 0;
    for (const [term, qw] of weights) {
      const id = this.#termIds.get(term);
      const idf = this.#idf(this.#df(id));
      if (qw >= 1) totalWeight += idf;
      if (id === undefined) continue;
      const posting = this.#postings;
      const [title, context, body, code] = this.#fieldWeights as [Float64Array, Float64Array, Float64Array, Float64Array];
      for (let i = this.#offsets[id]!, end = this.#offsets[id + 1]!; i < end; i += STRIDE) {
        const doc = posting[i]!;
        const weighted = posting[i + 1]! * title[doc]! + posting[i + 2]! * context[doc]! + posting[i + 3]! * body[doc]! + posting[i + 4]! * code[doc]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc] = scores[doc]! + qw * idf * ((weighted * (K1 + 1)) / (weighted + K1));
        if (qw >= 1) matched[doc] = matched[doc]! + idf;
      }
    }
    // Sections matching more of the query rank above those matching one rare word many times.
    // Only the best are kept as hits, ties going to the earlier section.
    const best: Hit[] = [];
    const keep = Math.max(limit, 50);
    for (const doc of touched) {
      const coverage = totalWeight > 0 ? matched[doc]! / totalWeight : 0;
      const score = scores[doc]! * (0.5 + coverage);
      scores[doc] = 0;
      matched[doc] = 0;
      insertBest(best, keep, doc, score, coverage);
    }
    // Adjacent query words that also stand together in a section's title or text are worth a
    // bonus (phrase proximity); checked on the best candidates only, in the pairs the index keeps.
    const pairs: { a: number; b: number; bonus: number }[] = [];
    for (let i = 0; i + 1 < queryTerms.length; i++) {
      const a = this.#termIds.get(queryTerms[i]!);
      const b = this.#termIds.get(queryTerms[i + 1]!);
      // A pair with a term no section holds stands together nowhere.
      if (a === undefined || b === undefined) continue;
      pairs.push({ a, b, bonus: 0.5 * (this.#idf(this.#df(a)) + this.#idf(this.#df(b))) });
    }
    const candidates = best;
    if (this.#phrases && pairs.length > 0) {
      for (const hit of candidates) {
        for (const pair of pairs) if (this.#adjacent(hit.index, pair.a, pair.b)) hit.score += pair.bonus * (0.5 + hit.coverage);
      }
    }
    // A section whose heading (read with its heading path) the question names in full is about
    // what was asked: "Why use examples?" for "what is a benefit of using examples?".
    const asked = new Set(queryTerms);
    for (const hit of candidates) {
      const heading = this.#headingOf(hit.index);
      if (heading.length === 0) continue;
      let named = 0;
      for (const term of heading) if (asked.has(term)) named++;
      hit.score *= 1 + HEADING_BONUS * (named / heading.length);
    }
    return topK(candidates, limit);
  }

  /** The distinct terms of a section's title field (cached for recent candidates). */
  #headingOf(index: number): string[] {
    return this.#headings.memo(index);
  }
}

/** The strings one edit away from a word: a letter dropped, added or changed, or two neighbours swapped. */
function* oneEditAway(word: string): Generator<string> {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail) yield head + tail.slice(1);
    if (tail.length > 1) yield head + tail[1] + tail[0] + tail.slice(2);
    for (const c of letters) {
      if (tail) yield head + c + tail.slice(1);
      yield head + c + tail;
    }
  }
}

/** A copy of `array` at least `min` long (doubling), the new part filled with `value`. */
function grow(array: Int32Array<ArrayBuffer>, min: number, value: number): Int32Array<ArrayBuffer> {
  let length = array.length * 2;
  while (length < min) length *= 2;
  const grown = new Int32Array(length).fill(value);
  grown.set(array);
  return grown;
}

/** Whether `hit` ranks before a section `index` scoring `score`: a higher score, or the same and an earlier section. */
function goesBefore(hit: Hit, score: number, index: number): boolean {
  return hit.score > score || (hit.score === score && hit.index < index);
}

/** Puts a section in `best` (the `k` best so far, by score then section order) if it belongs there. */
function insertBest(best: Hit[], k: number, index: number, score: number, coverage: number): void {
  if (best.length === k && goesBefore(best[k - 1]!, score, index)) return;
  let i = best.length;
  while (i > 0 && !goesBefore(best[i - 1]!, score, index)) i--;
  best.splice(i, 0, { index, score, coverage });
  if (best.length > k) best.pop();
}

function topK(hits: Hit[], k: number): Hit[] {
  if (hits.length <= k * 4) return hits.sort((a, b) => b.score - a.score).slice(0, k);
  // Keep a small sorted buffer instead of sorting every hit.
  const best: Hit[] = [];
  for (const hit of hits) {
    if (best.length === k && hit.score <= best[k - 1]!.score) continue;
    let i = best.length;
    while (i > 0 && best[i - 1]!.score < hit.score) i--;
    best.splice(i, 0, hit);
    if (best.length > k) best.pop();
  }
  return best;
}

/**
 * Prose with each repeated line kept once. Pages exported from documentation sites often repeat
 * the same passage once per tab or language switcher; counted every time, the repeats inflate a
 * section's term counts and length. Code keeps its repeated lines: there they are the code.
 */
export function uniqueLines(text: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const key = line.trim();
    if (key && seen.has(key)) continue;
    seen.add(key);
    out.push(line);
  }
  return out.join('\n');
}
