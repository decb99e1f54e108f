/**
 * Sentences are segmented a window at a time (V8's segment iterator is quadratic in the segments
 * of one text): the segments are the ones the segmenter gives the whole text, on every fixture
 * page and the development sets' pages, on long lines of sentences, and in other scripts; and 64,000
 * line breaks or sentences take linear time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { segmentsOf } from '../../../src/server/knowledge/text/passage.js';
import { mainThreadCpuMs } from '../../helpers/main-thread-cpu.js';

const whole = (text: string, lang = 'en') => Array.from(new Intl.Segmenter(lang, { granularity: 'sentence' }).segment(text), (s) => s.segment);

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...markdownUnder(path));
    else if (/\.mdx?$/.test(name)) out.push(path);
  }
  return out;
}

const ROOT = resolve(import.meta.dirname, '../../..');
const BENCH = resolve(ROOT, '../shared/bench');

describe('sentence segments a window at a time', () => {
  it("are the whole text's on every fixture and development page", () => {
    const pages = [...markdownUnder(join(ROOT, 'test/fixtures')), ...markdownUnder(join(ROOT, 'docs'))];
    try {
      pages.push(...markdownUnder(BENCH));
    } catch {
      // The development sets sit beside the project; without them the fixtures stand alone.
    }
    expect(pages.length).toBeGreaterThan(20);
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      expect([...segmentsOf(text, 'en')], page).toEqual(whole(text));
    }
  });

  it("are the whole text's on long lines and in other scripts", () => {
    const sentence = (i: number) => `Sentence ${i} says etc. and e.g. more (see "A." below).  `;
    const lines = [
      Array.from({ length: 200 }, (_, i) => sentence(i)).join(''),
      Array.from({ length: 300 }, (_, i) => `第${i}句です。`).join(''),
      Array.from({ length: 300 }, (_, i) => `Это предложение ${i}. `).join(''),
      Array.from({ length: 150 }, (_, i) => `Run \`npm test\`. npm ${i} starts it! Is it? Yes.\n`).join(''),
    ];
    for (const text of lines) expect([...segmentsOf(text, 'en')]).toEqual(whole(text));
    expect([...segmentsOf(lines[1]!, 'ja')]).toEqual(whole(lines[1]!, 'ja'));
  });

  it('cover the text, a sentence longer than the largest window cut at it', () => {
    const text = `${'word '.repeat(4_000)}. Next.`;
    expect([...segmentsOf(text, 'en')].join('')).toBe(text);
  });

  it.each([
    ['line breaks', '\n'.repeat(64_000)],
    ['sentences', 'Ab. '.repeat(16_000)],
    ['line breaks and sentences', 'Ab.\n'.repeat(16_000)],
    ['long sentences between short ones', `${'x'.repeat(900)}. ${'A? '.repeat(300)}`.repeat(35).slice(0, 64_000)],
  ])('of 64,000 characters of %s take linear time', (_, text) => {
    const before = mainThreadCpuMs();
    const segments = [...segmentsOf(text, 'en')];
    // The whole text at once took 0.6–2.3 s; a window at a time, about 0.1 s.
    expect(mainThreadCpuMs() - before).toBeLessThan(500);
    expect(segments.join('')).toBe(text);
  });
});
