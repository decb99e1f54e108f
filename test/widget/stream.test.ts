/**
 * Where a streamed answer is cut between whole blocks (rendered as Markdown) and the block being
 * written (plain text): blank lines end blocks, except inside a code fence; fed piece by piece it
 * cuts where it would cut the whole text; and a long answer with no line break costs one scan.
 */
import { describe, expect, it } from 'vitest';
import { BlockCutter } from '../../src/widget/controllers/stream.js';

/** The cut of `text` fed in `pieces` pieces of equal length. */
function cutInPieces(text: string, pieces: number): number[] {
  const cutter = new BlockCutter();
  const size = Math.ceil(text.length / pieces);
  const cuts: number[] = [];
  for (let end = size; end < text.length + size; end += size) cuts.push(cutter.feed(text.slice(0, Math.min(end, text.length))));
  return cuts;
}

describe('the streamed answer cutter', () => {
  it('cuts after the last blank line, never inside a code fence', () => {
    expect(new BlockCutter().feed('One paragraph')).toBe(0);
    expect(new BlockCutter().feed('One.\n\nTwo is being writ')).toBe('One.\n\n'.length);
    const fenced = 'Run:\n\n```sh\nacme one\n\nacme two\n```\n\nDone';
    expect(new BlockCutter().feed(fenced)).toBe(fenced.indexOf('Done'));
    // The fence is still open: the blank line inside it is not an end.
    const open = 'Run:\n\n```sh\nacme one\n\nacme tw';
    expect(new BlockCutter().feed(open)).toBe('Run:\n\n'.length);
    expect(new BlockCutter().feed('~~~\na\n\nb')).toBe(0);
  });

  it('cuts a text fed piece by piece where it cuts the whole, and never moves back', () => {
    const text = 'First **bold** part.\n\n- a list\n- of items\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\nLast words';
    for (const pieces of [1, 3, 7, text.length]) {
      const cuts = cutInPieces(text, pieces);
      expect(cuts.at(-1)).toBe(new BlockCutter().feed(text));
      for (let i = 1; i < cuts.length; i++) expect(cuts[i]).toBeGreaterThanOrEqual(cuts[i - 1]!);
    }
  });

  it('reads each character once however the answer comes: 8 MB with no line break in 80,000 pieces, then 2 MB of blank lines', () => {
    const started = performance.now();
    const long = 'x'.repeat(8_000_000);
    expect(cutInPieces(long, 80_000).at(-1)).toBe(0);
    const blanks = '\n'.repeat(2_000_000);
    expect(cutInPieces(blanks, 20_000).at(-1)).toBe(1);
    // Quadratic, the first alone would scan 80,000 × 4 MB on average (seconds even at memory speed), not this bound.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
