/**
 * @module Typos: the words of a knowledge base's vocabulary within a small edit distance of a word
 * it does not know ("pasword" → "password", "exprot" → "export", "conection" → "connect"), found
 * through a Passjoin index (mnemonist) built once per index over the vocabulary's terms, so a
 * lookup costs a few hundred string comparisons whatever the vocabulary's size.
 */
import { PassjoinIndex } from 'mnemonist';

/** Shortest and longest word read as a typo, in letters (shorter words are too often other words; see `MAX_TYPO_CHARS`). */
export const MIN_TYPO_CHARS = 4;
export const MAX_TYPO_CHARS = 20;
/**
 * The edits a word of `length` letters may be away from the word meant: one up to seven letters,
 * two from eight on (a longer word keeps its identity through more slips). A swap of two
 * neighbouring letters counts as one edit.
 */
export const allowedEdits = (length: number) => (length >= 8 ? 2 : 1);
/** The index's own threshold: the most any word is allowed (a swap is two edits to Passjoin's plain Levenshtein). */
const INDEX_EDITS = 2;

/**
 * The optimal-string-alignment distance of two short words (Levenshtein, with a swap of
 * neighbours as one edit), stopping at `limit + 1` once every alignment costs more. Quadratic in
 * the words' lengths, which `MAX_TYPO_CHARS` bounds.
 */
export function editDistance(a: string, b: string, limit = INDEX_EDITS): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const width = b.length + 1;
  let before = new Array<number>(width).fill(0);
  let previous = Array.from({ length: width }, (_, j) => j);
  let current = new Array<number>(width).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      if (d < rowBest) rowBest = d;
    }
    if (rowBest > limit) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/** A vocabulary term near a misspelled word, and how many edits away. */
export interface Near {
  term: string;
  edits: number;
}

/** The vocabulary's terms (letters only, as the tokenizer returns them) indexed for lookups within a few edits. */
export class TypoIndex {
  readonly #index = new PassjoinIndex<string>((a, b) => editDistance(a, b), INDEX_EDITS);

  constructor(terms: Iterable<string>) {
    for (const term of terms) if (term.length >= MIN_TYPO_CHARS - 1 && term.length <= MAX_TYPO_CHARS + 2 && /^[a-z]+$/.test(term)) this.#index.add(term);
  }

  /**
   * The terms within the edits `spellings[0]`'s length allows of any of `spellings` (a word as
   * written and its stem: a typo garbles the stemmer too), nearest first. Empty for a word shorter
   * than `MIN_TYPO_CHARS` or longer than `MAX_TYPO_CHARS`.
   */
  near(spellings: string[]): Near[] {
    const word = spellings[0];
    if (!word || word.length < MIN_TYPO_CHARS || word.length > MAX_TYPO_CHARS) return [];
    const allowed = allowedEdits(word.length);
    const found = new Map<string, number>();
    for (const spelling of new Set(spellings)) {
      if (spelling.length < MIN_TYPO_CHARS - 1) continue;
      for (const term of this.#index.search(spelling)) {
        const edits = editDistance(spelling, term, allowed);
        if (edits <= allowed && edits < (found.get(term) ?? Infinity)) found.set(term, edits);
      }
    }
    return [...found].map(([term, edits]) => ({ term, edits })).sort((a, b) => a.edits - b.edits);
  }
}
