/** @module Dense retrieval by sign scan and exact rescoring, against exact cosine over every vector. */
import { describe, expect, it } from 'vitest';
import { DenseIndex } from '../../../src/server/knowledge/ranking/dense-index.js';
import { cosine } from '../../../src/server/knowledge/ranking/embeddings.js';

function random(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** Vectors around a few centres, as sentence embeddings of a knowledge base cluster by topic. */
function vectors(n: number, next: () => number): Int8Array[] {
  const centres = Array.from({ length: 20 }, () => Array.from({ length: 512 }, () => next() * 2 - 1));
  return Array.from({ length: n }, () => {
    const centre = centres[Math.floor(next() * centres.length)]!;
    return Int8Array.from(centre, (c) => Math.round(Math.max(-1, Math.min(1, c + (next() - 0.5) * 0.8)) * 127));
  });
}

describe('DenseIndex', () => {
  it('finds the nearest vectors as exact cosine over all of them does (the best always, at least 9 of the best 10 on average)', () => {
    const next = random(7);
    const all = vectors(3_000, next);
    const withGaps = all.map((v, i) => (i % 10 === 3 ? null : v));
    const index = new DenseIndex(withGaps);
    expect(index.size).toBe(2_700);
    // Each section's vector is read back from the index's own copy; a section with none has none.
    expect(withGaps.map((_, i) => index.vector(i))).toEqual(withGaps);
    let recall = 0;
    for (let q = 0; q < 20; q++) {
      // A question near some sections, as a question is near the sections that answer it.
      const near = all[Math.floor(next() * all.length)]!;
      const question = Int8Array.from(near, (c) => Math.max(-127, Math.min(127, Math.round(c + (next() - 0.5) * 200))));
      const exact = withGaps
        .map((v, i) => ({ index: i, cosine: v ? cosine(question, v) : -2 }))
        .sort((a, b) => b.cosine - a.cosine || a.index - b.index)
        .slice(0, 10);
      const found = index.nearest(question, 10);
      expect(found[0]).toEqual({ index: exact[0]!.index, cosine: expect.closeTo(exact[0]!.cosine, 6) });
      // What is found is scored exactly, and in order.
      for (const h of found) expect(h.cosine).toBeCloseTo(cosine(question, all[h.index]!), 6);
      expect(found.map((h) => h.cosine)).toEqual([...found.map((h) => h.cosine)].sort((a, b) => b - a));
      recall += found.filter((h) => exact.some((e) => e.index === h.index)).length / 10;
    }
    expect(recall / 20).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps to the sections it is told to, and answers nothing for an empty index or a question of another size', () => {
    const all = vectors(500, random(3));
    const index = new DenseIndex(all);
    expect(index.nearest(all[0]!, 5, (i) => i % 2 === 1).every((h) => h.index % 2 === 1)).toBe(true);
    expect(index.nearest(all[1]!, 1)[0]).toEqual({ index: 1, cosine: expect.closeTo(1, 6) });
    expect(new DenseIndex([null, null]).nearest(all[0]!, 5)).toEqual([]);
    expect(index.nearest(new Int8Array(10), 5)).toEqual([]);
  });

  it('stays linear when every vector has the same signs (the worst case of the sign scan: all are rescored)', () => {
    const same = Array.from({ length: 20_000 }, (_, i) => Int8Array.from({ length: 512 }, (_, k) => 1 + ((i * 31 + k) % 100)));
    const index = new DenseIndex(same);
    const question = Int8Array.from({ length: 512 }, (_, k) => 1 + (k % 100));
    const hits = index.nearest(question, 5);
    expect(hits).toHaveLength(5);
    expect(hits[0]!.cosine).toBeGreaterThanOrEqual(hits[4]!.cosine);
  });
});
