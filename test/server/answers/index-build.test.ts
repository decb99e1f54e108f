/**
 * A large knowledge base is indexed while the server keeps serving: its first question after a
 * change builds the indexes (words, pages, meaning) over 40,000 sections, and no stretch of that
 * build holds the event loop for long. Measured as the main thread's CPU time between two turns of
 * its event loop (a busy machine does not fail it). Before the build went in steps, filling the
 * postings, reading the sections' run-in labels and copying the vectors each held it 0.3–0.5 s.
 */
import { describe, expect, it } from 'vitest';
import { Ranking, type RankedRows } from '../../../src/server/knowledge/ranking/rank.js';
import { passageOfMarkdown } from '../../../src/server/knowledge/index.js';
import type { SectionRow } from '../../../src/server/knowledge/ingest/sections.js';
import { loadSpecificity } from '../../../src/server/knowledge/text/specificity.js';
import { longestTurn } from '../../helpers/main-thread-cpu.js';

const SECTIONS = 40_000;
const PER_PAGE = 50;

/** Deterministic made-up words, some far more common than others, as a docs site's are. */
function wordsOf(seed: number): () => string {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const vocabulary = Array.from({ length: 20_000 }, () => Array.from({ length: 4 + Math.floor(next() * 8) }, () => letters[Math.floor(next() * 26)]).join(''));
  return () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)]!;
}

/** The rows a store would read: sections of 120 words with a run-in label, half with a vector. */
function rows(): SectionRow[] {
  const word = wordsOf(7);
  // A few passages shared by every section: the build reads bodies and titles, not passages.
  const passage = passageOfMarkdown('Some text.');
  const vector = new Uint8Array(512).map((_, i) => (i * 37) % 256);
  return Array.from({ length: SECTIONS }, (_, i) => {
    const page = Math.floor(i / PER_PAGE);
    const body = `- **${word()}.** ${Array.from({ length: 80 }, word).join(' ')}.\n\n${Array.from({ length: 40 }, word).join(' ')}.`;
    return {
      section: { id: i + 1, docKey: `file:page-${page}.md`, kind: 'doc', title: `${word()} ${word()}`, context: `Page ${page}`, url: `https://docs.test/page-${page}#s${i}`, body, code: '', lang: '', passage },
      embedding: i % 2 ? vector : null,
      embeddingBy: i % 2 ? 'model' : null,
    };
  });
}

describe('the index of a large knowledge base', () => {
  it('is built in steps: no stretch holds the event loop', async () => {
    await loadSpecificity();
    const stored = rows();
    const store: RankedRows = { version: async () => 1, sections: async () => stored };
    const ranking = new Ranking(store, { id: 'model', question: async () => null });
    const { result, longestMs, turns } = await longestTurn(() => ranking.search('acme', stored[123]!.section.title));
    expect(result[0]?.section.id).toBe(124);
    expect(turns).toBeGreaterThan(20);
    // Tens of milliseconds a step; a collection of the heap can add as much again.
    expect(longestMs).toBeLessThan(300);
  }, 120_000);
});
