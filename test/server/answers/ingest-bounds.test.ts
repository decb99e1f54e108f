import { describe, expect, it } from 'vitest';
import { parseCode } from '../../../src/server/knowledge/ingest/code.js';
import { parseMarkdown } from '../../../src/server/knowledge/ingest/markdown.js';
import { leastTime as time } from '../../helpers/least-time.js';
import { mainThreadCpuMs } from '../../helpers/main-thread-cpu.js';

describe('source code with hostile lines costs time linear in its length', () => {
  // A page four times as long may take about four times as long; a quadratic cost takes sixteen.
  const shapes: Record<string, [string, (n: number) => string]> = {
    'a C++ line of scoped names': ['cpp', (n) => 'x:'.repeat(n / 2)],
    'a C line of one long name': ['c', (n) => `int ${'x'.repeat(n)}`],
    'a Java line of one long name': ['java', (n) => `public ${'x '.repeat(n / 2)}`],
    'a C# line of one long name': ['csharp', (n) => `public ${'x '.repeat(n / 2)}`],
  };
  it.each(Object.keys(shapes))('%s', (name) => {
    const [lang, shape] = shapes[name]!;
    const read = (n: number) => () => parseCode(shape(n), { url: 'u', path: 'x', lang });
    const small = time(read(5_000));
    const large = time(read(20_000));
    expect(large, `${name}: ${small.toFixed(0)} ms → ${large.toFixed(0)} ms`).toBeLessThan(Math.max(8 * small, 200));
  });

  it('still finds the declarations of ordinary lines', () => {
    const parsed = parseCode('#include <x>\n\nint main(int argc, char **argv) {\n  return 0;\n}\n', { url: 'u', path: 'main.c', lang: 'c' });
    expect(parsed.sections.map((s) => s.title)).toContain('main');
  });
});

/** Fences of `:::…` opening one inside the other, widest first, `n` characters in all. */
function nestedFences(n: number): string {
  const lines: string[] = [];
  for (let width = 3, length = 0; length + width + 2 <= n; length += width + 2, width++) lines.unshift(`${':'.repeat(width)}a\n`);
  return lines.join('');
}

describe('container directives (admonitions) with hostile lines cost time linear in their length', () => {
  // A page four times as long may take about four times as long; a quadratic cost takes sixteen.
  const shapes: Record<string, (n: number) => string> = {
    'unclosed openers, each inside the last': (n) => ':::a\n'.repeat(n / 5),
    'unclosed openers in a quote': (n) => '> :::a\n'.repeat(n / 7),
    'unclosed openers in list items': (n) => '- :::a\n  '.repeat(n / 9),
    'openers and closers': (n) => ':::a\nx\n:::\n'.repeat(n / 12),
    'nested fences, widest first': nestedFences,
    'one long name': (n) => `:::${'a'.repeat(n)}`,
    'a Docusaurus title of [': (n) => `:::tip ${'['.repeat(n)}`,
    'a label of [': (n) => `:::tip[${'['.repeat(n)}`,
    'titles of backslashes': (n) => `:::tip ${'\\'.repeat(100)}\n`.repeat(n / 108),
    'attributes never closed': (n) => `:::a{${'b='.repeat(n / 2)}`,
  };
  it.each(Object.keys(shapes))('%s', (name) => {
    const shape = shapes[name]!;
    for (const mdx of [false, true]) {
      const read = (n: number) => () => parseMarkdown(shape(n), { url: 'u', fallbackTitle: 'f', mdx });
      // The least of three runs: a run slowed by other tests on the machine (a quote of openers read
      // as MDX went 69 → 562 ms, 8.1 ×, beside the PostgreSQL suite; 5–6 × alone) is not the cost.
      const small = time(read(8_000), 3);
      const large = time(read(32_000), 3);
      expect(large, `${name}${mdx ? ' (MDX)' : ''}: ${small.toFixed(0)} ms → ${large.toFixed(0)} ms`).toBeLessThan(Math.max(8 * small, 400));
    }
  }, 120_000);

  it('reads 20,000 unclosed openers, a 60,000-character name or title and deeply nested fences in seconds of CPU time, not minutes', () => {
    for (const text of [':::a\n'.repeat(20_000), `:::${'a'.repeat(60_000)}`, `:::tip ${'['.repeat(60_000)}`, nestedFences(60_000)]) {
      const before = mainThreadCpuMs();
      parseMarkdown(text, { url: 'u', fallbackTitle: 'f' });
      expect(mainThreadCpuMs() - before).toBeLessThan(4_000);
    }
  });
});
