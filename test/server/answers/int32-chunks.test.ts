/** The index builder's growing integer runs: entries across chunk boundaries read back as written, and join into one array. */
import { describe, expect, it } from 'vitest';
import { Int32Chunks } from '../../../src/server/knowledge/ranking/int32-chunks.js';
import { drain } from '../../../src/server/knowledge/ranking/steps.js';

describe('Int32Chunks', () => {
  it('holds entries across chunk boundaries and joins the first ones into one array', () => {
    const size = 2 * (1 << 20) + 7;
    const run = new Int32Chunks();
    for (let i = 0; i < size; i++) {
      run.reserve(i + 1);
      run.set(i, i ^ 0x5a5a);
    }
    run.increment(1 << 20);
    expect(run.get((1 << 20) - 1)).toBe(((1 << 20) - 1) ^ 0x5a5a);
    expect(run.get(1 << 20)).toBe(((1 << 20) ^ 0x5a5a) + 1);
    const joined = drain(run.joined(size - 3));
    expect(joined.length).toBe(size - 3);
    let same = true;
    for (let i = 0; i < joined.length; i++) same &&= joined[i] === run.get(i);
    expect(same).toBe(true);
    expect(drain(new Int32Chunks().joined(0)).length).toBe(0);
  });
});
