/**
 * The widget's size budget (issues 28 and 38): the first bundle a page loads, the classic script and
 * the ES module alike, Lit included, ≤ 25 KB gzipped; the Markdown renderer and the search are
 * modules next to it, loaded on first use, and not in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildWidget } from '../helpers/build-widget.js';

const BUDGET_BYTES = 25 * 1024;
let out: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-size-'));
  await buildWidget(out);
}, 300_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

const gzipped = (file: string) => gzipSync(readFileSync(join(out, file)), { level: 9 }).length;

describe('the widget bundle', () => {
  it.each(['support-chat.iife.js', 'support-chat.js'])('%s is at most 25 KB gzipped (level 9, as the benchmark measures it)', (file) => {
    expect(readFileSync(join(out, file)).length).toBeGreaterThan(10_000);
    expect(gzipped(file), `${file} is ${(gzipped(file) / 1024).toFixed(1)} KB gzipped`).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('leaves the search and the Markdown renderer to their own modules, loaded on first use', () => {
    const bundle = readFileSync(join(out, 'support-chat.iife.js'), 'utf8');
    for (const [module, marker] of [
      ['search.js', 'search-ask'],
      ['markdown.js', 'copy-button'],
    ] as const) {
      expect(bundle).toContain(`"${module}"`);
      expect(bundle).not.toContain(marker);
      expect(readFileSync(join(out, module), 'utf8')).toContain(marker);
    }
  });

  it("gives the Markdown module's styles the bundle's short names for the panel's custom properties", () => {
    // Each `--sc-*` the module's styles read, in order, and the short name the built module reads there.
    const source = readFileSync(new URL('../../src/widget/markdown.styles.ts', import.meta.url), 'utf8');
    const panel = readFileSync(new URL('../../src/widget/support-chat.styles.ts', import.meta.url), 'utf8');
    const built = readFileSync(join(out, 'markdown.js'), 'utf8');
    const read = [...source.matchAll(/var\((--sc-[\w-]+)\)/g)].map((m) => m[1]!);
    const short = [...built.matchAll(/var\((--s[0-9a-z]+)\)/g)].map((m) => m[1]!);
    expect(read.length).toBeGreaterThan(0);
    expect(short).toHaveLength(read.length);
    for (const file of ['support-chat.iife.js', 'support-chat.js']) {
      const bundle = readFileSync(join(out, file), 'utf8');
      read.forEach((name, i) => {
        // What the panel sets the property from, e.g. `--sc-code-bg: var(--support-chat-code-background, …)`.
        const from = new RegExp(`${name}:\\s*var\\((--support-chat-[\\w-]+)`).exec(panel)?.[1];
        expect(from, name).toBeDefined();
        expect(bundle, `${file}: ${name}`).toContain(`${short[i]}:var(${from},`);
      });
    }
  });
});
