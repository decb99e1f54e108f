import { describe, expect, it } from 'vitest';
import { parseFile } from '../../../src/server/knowledge/ingest/parse.js';
import type { SearchHit } from '../../../src/server/knowledge/index.js';
import { relevantHits, toSource } from '../../../src/server/answers/sources.js';

/** The titles of a file's code pieces as the answer cites them. */
function titles(path: string, text: string): string[] {
  const parsed = parseFile(text, path, 'https://github.com/acme/app/blob/main/')!;
  return parsed.sections.map((section, i) => toSource({ index: i, score: 1, coverage: 1, section: { ...section, id: i, docKey: path } } as SearchHit).title);
}

describe('source titles', () => {
  it('never shows the "(continued)" of a long piece\'s later part, and names a piece by its name and what it is', () => {
    const text = ['export function inline(text: string) {', ...Array.from({ length: 100 }, (_, i) => `  step(${i});`), '}'].join('\n');
    expect(titles('src/widget/render-markdown.ts', text)).toEqual(['inline function — src/widget/render-markdown.ts', 'inline — src/widget/render-markdown.ts']);
  });

  it('names a code piece by what its doc comment says, with its file, and by its name when it has none', () => {
    const text = [
      '/** @module The proxy between the widget and the API: holds the token, checks every request. */',
      '',
      '/** Creates the proxy: a fetch handler `(Request) => Promise<Response>` for Node, Hono or Next.js. */',
      'export function createSupportProxy(options) {',
      '  return handler(options);',
      '}',
      '',
      'export const MAX_BODY = 256 * 1024;',
    ].join('\n');
    expect(titles('src/proxy/handler.ts', text)).toEqual([
      'The proxy between the widget and the API — src/proxy/handler.ts',
      'Creates the proxy — src/proxy/handler.ts',
      'MAX_BODY constant — src/proxy/handler.ts',
    ]);
  });

  it("reads Rust doc comments and Python docstrings, drops doc links' brackets, and shortens a long first sentence at a word or a clause, never inside a parenthesis", () => {
    const rust = [
      '/// A [`DiffExecutor`] wraps a primary executor, forwarding its methods, and a secondary one that runs after it.',
      'pub struct DiffExecutor<A, B> {',
      '    primary: A,',
      '}',
    ].join('\n');
    expect(titles('src/executors/differential.rs', rust)).toEqual(['A DiffExecutor wraps a primary executor, forwarding its methods, and… — src/executors/differential.rs']);
    const ts = ['/** Whether a section is embedded at all (prose: docs and tickets, not code). */', 'export function isEmbedded(section) {', '  return true;', '}'].join('\n');
    expect(titles('src/answers/embeddings.ts', ts)).toEqual(['Whether a section is embedded at all — src/answers/embeddings.ts']);
    const linked = ['/** Reads a [robots.txt](https://www.rfc-editor.org/rfc/rfc9309) file as `robots-parser` does. */', 'export function robots(text) {', '  return text;', '}'].join('\n');
    expect(titles('src/crawl/robots.ts', linked)).toEqual(['Reads a robots.txt file as robots-parser does — src/crawl/robots.ts']);
    const python = ['def refund(order):', '    """Refund an order in full. Partial refunds go through support."""', '    return order.refund()'].join('\n');
    expect(titles('shop/orders.py', python)).toEqual(['Refund an order in full — shop/orders.py']);
  });

  it("reads Go's // doc comments, and names by symbol or file a piece whose comment is a licence header or a note", () => {
    const go = ['// Copyright 2024 Acme Inc. Licensed under the MIT licence.', 'package refunds', '', '// Refund returns the order\'s payment in full.', 'func Refund(o Order) error {', '  return o.Pay.Reverse()', '}', '', '// retry twice', 'func retry(f func() error) error {', '  return f()', '}'].join('\n');
    expect(titles('refunds/refund.go', go)).toEqual(['refunds/refund.go', "Refund returns the order's payment in full — refunds/refund.go", 'retry function — refunds/refund.go']);
  });

  it('keeps a doc section titled by its heading and page', () => {
    expect(titles('docs/proxy.md', '# The proxy\n\nIntro.\n\n## Mounting\n\nMount it.')).toEqual(['The proxy', 'Mounting — The proxy']);
  });
});

describe('Markdown page URLs', () => {
  it('keep the file name under a repository blob URL and drop the extension under a docs site', () => {
    const text = '# Billing\n\nA refund is issued within 14 days.\n';
    expect(parseFile(text, 'docs/billing.md', 'https://github.com/acme/app/blob/main/')!.sections[0]!.url).toBe('https://github.com/acme/app/blob/main/docs/billing.md');
    expect(parseFile(text, 'docs/billing.md', 'https://gitlab.com/acme/app/-/blob/main/')!.sections[0]!.url).toBe('https://gitlab.com/acme/app/-/blob/main/docs/billing.md');
    expect(parseFile(text, 'docs/billing.md', 'https://docs.acme.dev/')!.sections[0]!.url).toBe('https://docs.acme.dev/docs/billing');
  });

  it("link a folder's index page to the folder under a docs site, and keep index.md under a repository", () => {
    const text = '# Guides\n\nEvery guide, by topic.\n';
    expect(parseFile(text, 'docs/guides/index.md', 'https://docs.acme.dev/')!.sections[0]!.url).toBe('https://docs.acme.dev/docs/guides/');
    expect(parseFile(text, 'docs/index.mdx', 'https://docs.acme.dev/')!.sections[0]!.url).toBe('https://docs.acme.dev/docs/');
    expect(parseFile(text, 'index.md', 'https://docs.acme.dev/')!.sections[0]!.url).toBe('https://docs.acme.dev/');
    expect(parseFile(text, 'docs/reindex.md', 'https://docs.acme.dev/')!.sections[0]!.url).toBe('https://docs.acme.dev/docs/reindex');
    expect(parseFile(text, 'docs/guides/index.md', 'https://github.com/acme/app/blob/main/')!.sections[0]!.url).toBe('https://github.com/acme/app/blob/main/docs/guides/index.md');
  });
});

describe('the sections an answer may cite', () => {
  const hit = (url: string, page: string, score: number, coverage: number, similarity?: number, kind: 'doc' | 'code' = 'doc') =>
    ({ index: 0, score, coverage, similarity, section: { id: 0, docKey: page, url, kind, title: url, context: page, body: '', code: '', lang: '' } }) as unknown as SearchHit;

  it('cites a section found by its meaning alone when it is nearer the question than the best hit, never a loose one', () => {
    const hits = [
      hit('troubleshoot#android', 'troubleshoot', 1.1, 0.4, 0.52),
      // Placed by its meaning (no word of the question): nearer than the best hit.
      hit('troubleshoot#plugins-not-synced', 'troubleshoot', 0, 0, 0.63),
      // By meaning too, but farther than the best hit: not cited.
      hit('sync-log', 'status', 0, 0, 0.51),
      // Code keeps to its words.
      hit('src/sync.ts#L1-L9', 'src/sync.ts', 0, 0, 0.7, 'code'),
      // Words from another page matching little of the question: not cited, as before.
      hit('other#x', 'other', 0.5, 0.1, 0.3),
    ];
    expect(relevantHits(hits).map((h) => h.section.url)).toEqual(['troubleshoot#android', 'troubleshoot#plugins-not-synced']);
  });

  it('cites another page’s section that matches few of the question’s words when it is the nearest in meaning, above neutral', () => {
    const hits = [
      hit('domains#countries', 'domains', 1.2, 0.48, 0.37),
      hit('billing#change-the-country', 'billing', 0.7, 0.21, 0.53),
      // Nearer than the best hit, but not nearer than neutral (0.5): not cited.
      hit('countries', 'countries', 0.6, 0.21, 0.49),
    ];
    expect(relevantHits(hits).map((h) => h.section.url)).toEqual(['domains#countries', 'billing#change-the-country']);
  });

  it('cites at most two sections of a page other than the best hit’s, leaving the places to other pages', () => {
    const hits = [
      hit('console#totals', 'console', 1.2, 1, 0.63),
      hit('import#utm', 'import', 0.9, 0.8, 0.66),
      hit('import#visitors', 'import', 0.9, 0.7, 0.64),
      hit('console#missing', 'console', 1, 1, 0.5),
      hit('import#goals', 'import', 0.9, 0.8, 0.51),
      hit('faq#differ', 'faq', 0.7, 0.7, 0.68),
    ];
    expect(relevantHits(hits).map((h) => h.section.url)).toEqual(['console#totals', 'import#utm', 'import#visitors', 'console#missing', 'faq#differ']);
  });
});
