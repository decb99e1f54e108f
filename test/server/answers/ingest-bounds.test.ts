import { describe, expect, it } from 'vitest';
import { parseCode } from '../../../src/server/answers/ingest/code.js';
import { leastTime as time } from '../../helpers/least-time.js';

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
