/**
 * The streamed reply (src/server/answers/streamed-reply.ts): however the model's text is cut into
 * pieces, the pieces passed on joined are the final content, equal to the reply made final at
 * once, and to the regular-expression rules this replaced (kept here as the reference); the
 * marker is never passed on; and the work is linear on the worst input.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mapCitations, NOT_ANSWERED } from '../../src/server/answers/index.js';
import { StreamedReply } from '../../src/server/answers/streamed-reply.js';
import type { Source } from '../../src/protocol/index.js';

const SOURCES: Source[] = [1, 2, 3].map((n) => ({ title: `S${n}`, url: `https://docs.example.com/${n}` }));

/** The rules before streaming (whole reply, trimmed), as the reference. */
function reference(text: string): { content: string; notAnswered: boolean } {
  const reply = text.trim();
  if (reply.includes(NOT_ANSWERED) && reply.startsWith(NOT_ANSWERED)) {
    return { content: reply.split(NOT_ANSWERED).join('').replace(/\s*\[\d{1,2}\]/g, '').trim(), notAnswered: true };
  }
  const order: number[] = [];
  for (const m of reply.matchAll(/\[(\d{1,2})\]/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= SOURCES.length && !order.includes(n)) order.push(n);
  }
  const content = reply.replace(/\[(\d{1,2})\]/g, (_m, d: string) => {
    const position = order.indexOf(Number(d));
    return position >= 0 ? `[${position + 1}]` : '';
  });
  return { content: content.replace(/(?<![ \t])[ \t]+([.,;:])/g, '$1').trim(), notAnswered: false };
}

/** `text` cut at `cuts` and pushed piece by piece: the pieces passed on, and the end. */
function streamed(text: string, cuts: number[]) {
  const reply = new StreamedReply(SOURCES);
  const out: string[] = [];
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (text.length + 1))].sort((a, b) => a - b)) {
    out.push(reply.push(text.slice(at, cut)));
    at = cut;
  }
  out.push(reply.push(text.slice(at)));
  const end = reply.end();
  out.push(end.text);
  return { out, end };
}

const PIECES = ['[', ']', '1', '2', '3', '9', '12', ' ', '  ', '\t', '\n', '.', ',', ';', ':', 'a', 'word', NOT_ANSWERED, '[[NOT_', 'ANSWERED]]', 'é', '😀'];

describe('a streamed reply', () => {
  it('is final as streamed, however it is cut, and equals the reply made final at once', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 10 }), (parts, cuts) => {
        const text = parts.join('');
        const { out, end } = streamed(text, cuts);
        expect(out.join('')).toBe(end.content);
        // Cut or whole, the same content.
        expect(end.content).toBe(streamed(text, []).end.content);
        // The marker is never passed on once it was whole in the text.
        if (!text.replaceAll(NOT_ANSWERED, '').includes(NOT_ANSWERED)) for (const piece of out) expect(piece).not.toContain(NOT_ANSWERED);
      }),
      { numRuns: 2_000 },
    );
  });

  it('drops the same markers however the text is cut, even where dropping one leaves letters that spell another', () => {
    const text = `ANSWERED]][[NOT_${NOT_ANSWERED}ANSWERED]]`;
    const whole = streamed(text, []).end.content;
    for (let cut = 0; cut <= text.length; cut++) for (let second = cut; second <= text.length; second += 3) expect(streamed(text, [cut, second]).end.content).toBe(whole);
    expect(whole).toBe(`ANSWERED]][[NOT_ANSWERED]]`);
  });

  it('follows the rules it replaced on replies with the marker at most at the start', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.constantFrom(...PIECES.filter((p) => !p.includes('NOT'))), { maxLength: 40 }), (marked, parts) => {
        const text = (marked ? NOT_ANSWERED : '') + parts.join('');
        const { end } = streamed(text, [3, 7, 11]);
        const expected = reference(text);
        expect(end.content).toBe(expected.content);
        expect(end.notAnswered).toBe(expected.notAnswered);
      }),
      { numRuns: 2_000 },
    );
  });

  it('renumbers citations as they first appear, and keeps only the sources cited', () => {
    expect(mapCitations('A [3]. B [1][3]. C [9].', SOURCES)).toEqual({ content: 'A [1]. B [2][1]. C.', sources: [SOURCES[2], SOURCES[0]] });
    const { out } = streamed('A [3]. B [1][3]. C [9].', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(out.join('')).toBe('A [1]. B [2][1]. C.');
  });

  it('holds only what could still change: text that cannot start a citation or the marker goes out at once', () => {
    const reply = new StreamedReply(SOURCES);
    expect(reply.push('Open')).toBe('Open');
    expect(reply.push(' Settings [')).toBe(' Settings');
    expect(reply.push('1] now')).toBe(' [1] now');
    expect(reply.push(' [[NOT_')).toBe('');
    expect(reply.push('X')).toBe(' [[NOT_X');
  });

  it('does linear work on the worst input, piece by piece or whole', () => {
    const worst = (n: number) => ['[[NOT_ANSWERED', ' '.repeat(50), '[1', '[', '\t.'].join('').repeat(n);
    /** CPU time (this thread's, user and system), so other processes on the machine do not count. */
    const time = (text: string, piece: number) => {
      const started = process.cpuUsage();
      const reply = new StreamedReply(SOURCES);
      for (let i = 0; i < text.length; i += piece) reply.push(text.slice(i, i + piece));
      reply.end();
      const { user, system } = process.cpuUsage(started);
      return (user + system) / 1000;
    };
    // The best of three runs each: a collection in one run is not the algorithm's.
    const best = (text: string, piece: number) => Math.min(time(text, piece), time(text, piece), time(text, piece));
    for (const piece of [1, 7, 10_000_000]) {
      const small = Math.max(best(worst(500), piece), 2);
      const large = best(worst(4_000), piece);
      // Eight times the input: about eight times the work (quadratic would be sixty-four).
      expect(large / small, `pieces of ${piece}`).toBeLessThan(24);
    }
  });
});
