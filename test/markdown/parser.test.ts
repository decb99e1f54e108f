/** The widget's Markdown parser: each defect issue 28 and issue 25 found, and its worst inputs. */
import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from '../../src/widget/markdown.js';

describe('blocks', () => {
  it('breaks a line at two trailing spaces and at a trailing backslash', () => {
    expect(parseMarkdown('one  \ntwo\\\nthree\nfour')).toEqual([{ t: 'p', c: ['one', { t: 'br' }, 'two', { t: 'br' }, 'three four'] }]);
  });

  it('keeps a loose list one list', () => {
    expect(parseMarkdown('1. one\n\n2. two\n\n3. three')).toEqual([
      { t: 'list', ordered: true, start: 1, items: [[{ t: 'p', c: ['one'] }], [{ t: 'p', c: ['two'] }], [{ t: 'p', c: ['three'] }]] },
    ]);
  });

  it('keeps a fenced block indented under an item inside the item, and the list going', () => {
    expect(parseMarkdown('- Install:\n\n  ```sh\n  npm i x\n  ```\n- Run it')).toEqual([
      {
        t: 'list',
        ordered: false,
        start: 1,
        items: [[{ t: 'p', c: ['Install:'] }, { t: 'code', lang: 'sh', text: 'npm i x' }], [{ t: 'p', c: ['Run it'] }]],
      },
    ]);
  });

  it('keeps a heading’s closing "#" when it is part of a word', () => {
    expect(parseMarkdown('## Using C#')).toEqual([{ t: 'h', level: 2, c: ['Using C#'] }]);
    expect(parseMarkdown('## Using C ##')).toEqual([{ t: 'h', level: 2, c: ['Using C'] }]);
  });

  it('lets only a list starting at 1 interrupt a paragraph', () => {
    expect(parseMarkdown('It shipped in\n2024. Since then')).toEqual([{ t: 'p', c: ['It shipped in 2024. Since then'] }]);
    expect(parseMarkdown('Steps:\n1. one')[1]).toMatchObject({ t: 'list', ordered: true, start: 1 });
  });

  it('does not close a fence with an info string or a shorter or different marker', () => {
    expect(parseMarkdown('```\na\n```js\nb\n~~~\n```')).toEqual([{ t: 'code', lang: '', text: 'a\n```js\nb\n~~~' }]);
    expect(parseMarkdown('~~~~\na\n~~~~ text\n~~~\nb\n~~~~~')).toEqual([{ t: 'code', lang: '', text: 'a\n~~~~ text\n~~~\nb' }]);
  });

  it('reads setext headings', () => {
    expect(parseMarkdown('Title\n=====\n\nPart\n---')).toEqual([
      { t: 'h', level: 1, c: ['Title'] },
      { t: 'h', level: 2, c: ['Part'] },
    ]);
  });

  it('reads GFM tables with alignment and escaped pipes', () => {
    expect(parseMarkdown('| a | b |\n|:--|--:|\n| 1 \\| 2 | *x* |')).toEqual([
      { t: 'table', align: ['left', 'right'], head: [['a'], ['b']], rows: [[['1 | 2'], [{ t: 'em', c: ['x'] }]]] },
    ]);
  });
});

describe('inlines', () => {
  it('nests strong inside emphasis', () => {
    expect(parseInline('*a **b** c*')).toEqual([{ t: 'em', c: ['a ', { t: 'strong', c: ['b'] }, ' c'] }]);
    expect(parseInline('***a***')).toEqual([{ t: 'em', c: [{ t: 'strong', c: ['a'] }] }]);
  });

  it('decodes named and numeric character references, but not in code', () => {
    expect(parseInline('&amp; &mdash; &#35; &#x1F600; &nope; `&amp;`')).toEqual(['& — # 😀 &nope; ', { t: 'code', text: '&amp;' }]);
  });

  it('keeps underscores inside words', () => {
    expect(parseInline('snake_case_name and __init__')).toEqual(['snake_case_name and ', { t: 'strong', c: ['init'] }]);
  });

  it('reads links with parentheses, titles and escapes, and autolinks', () => {
    expect(parseInline('[a](https://x.y/a_(b) "t") <https://z.w> <me@x.io> [b](<https://q.r/a b>)')).toEqual([
      { t: 'link', href: 'https://x.y/a_(b)', c: ['a'] },
      ' ',
      { t: 'link', href: 'https://z.w', c: ['https://z.w'] },
      ' ',
      { t: 'link', href: 'mailto:me@x.io', c: ['me@x.io'] },
      ' ',
      { t: 'link', href: 'https://q.r/a b', c: ['b'] },
    ]);
  });
});

/**
 * Linearity without a wall-clock threshold: parsing one input of size 8n must take about as long as
 * parsing eight inputs of size n (linear: a ratio near 1; quadratic: near 8). Best of five runs each.
 */
function growth(shape: (n: number) => string, n = 2_000): number {
  const small = shape(n);
  const large = shape(8 * n);
  const best = (run: () => void) => {
    let min = Infinity;
    for (let round = 0; round < 5; round++) {
      const start = performance.now();
      run();
      min = Math.min(min, performance.now() - start);
    }
    return min;
  };
  // Load on the machine only ever raises a ratio, so the lowest of three measurements is the truest.
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio >= 3; attempt++) {
    const eight = best(() => {
      for (let k = 0; k < 8; k++) parseMarkdown(small);
    });
    ratio = Math.min(ratio, best(() => parseMarkdown(large)) / eight);
  }
  return ratio;
}

describe('worst inputs', () => {
  const shapes: Record<string, (n: number) => string> = {
    'unclosed emphasis "*a " (issue 28)': (n) => '*a '.repeat(n / 3),
    '"* " after a word (issue 25, findClose)': (n) => `x ${'* '.repeat(n / 2)}`,
    'unclosed underscores': (n) => '_a '.repeat(n / 3),
    'alternating openers': (n) => '*_'.repeat(n / 2) + 'a',
    'closers only': (n) => 'a*'.repeat(n / 2),
    'nested emphasis': (n) => `${'*'.repeat(n / 2)}a${'*'.repeat(n / 2)}`,
    'unclosed brackets': (n) => '['.repeat(n),
    'link tails without a close': (n) => '[a]('.repeat(n / 4),
    'titles without a close': (n) => '[a](b "'.repeat(n / 7),
    'nested images': (n) => `${'!['.repeat(n / 6)}a${'](b)'.repeat(n / 6)}`,
    'backtick runs of every length': (n) => Array.from({ length: Math.sqrt(n) }, (_, k) => `${'`'.repeat(k + 1)}a`).join(''),
    'unclosed code spans': (n) => '`a``'.repeat(n / 4),
    'angle brackets': (n) => '<a'.repeat(n / 2),
    'ampersands': (n) => '&aaaaaa'.repeat(n / 7),
    'trailing spaces': (n) => `a${' '.repeat(n)}\nb`,
    'quote markers': (n) => '>'.repeat(n),
    'quote lines': (n) => '> a\n'.repeat(n / 4),
    'list markers': (n) => `${'- '.repeat(n / 2)}a`,
    'nested list lines': (n) => Array.from({ length: n / 10 }, (_, k) => `${' '.repeat(2 * (k % 9))}- a`).join('\n'),
    'lazy lines': (n) => '- a\nb\n'.repeat(n / 6),
    'fences': (n) => '```\n'.repeat(n / 4),
    'table rows': (n) => `|a|b|\n|-|-|\n${'|x|y|\n'.repeat(n / 6)}`,
  };
  for (const [name, shape] of Object.entries(shapes)) {
    it(`stays linear: ${name}`, () => {
      expect(growth(shape)).toBeLessThan(3);
    });
  }
});
