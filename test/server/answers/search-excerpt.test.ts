/**
 * Search results as a reader sees them (searchDocs over a ranking that returns given sections):
 * plain text without Markdown or HTML, at most 300 characters around the best match, cut at whole
 * words with an ellipsis, the matched words' offsets; and the worst sections (huge, or of the
 * shapes that make Markdown parsing slow) read in bounded time.
 */
import { describe, expect, it } from 'vitest';
import type { SearchHit, StoredSection } from '../../../src/server/knowledge/index.js';
import { searchDocs, type Ranking } from '../../../src/server/knowledge/search.js';
import { passageOfMarkdown } from '../../../src/server/knowledge/ingest/stored-passage.js';
import { passagePlain } from '../../../src/server/knowledge/text/passage.js';

const plainText = (markdown: string) => passagePlain(passageOfMarkdown(markdown));
import { mainThreadCpuMs } from '../../helpers/main-thread-cpu.js';

let ids = 0;
function section(fields: Partial<StoredSection>): StoredSection {
  const base = { id: ++ids, docKey: 'url:https://docs.example/page', title: 'Page', context: 'Page', url: `https://docs.example/page#s${ids}`, body: '', code: '', lang: '', kind: 'doc' as const, ...fields };
  // The passage ingest stores with the section (read here from its Markdown, as for a section stored before the model).
  return { ...base, passage: fields.passage ?? passageOfMarkdown(base.body, base.code) };
}

/** A ranking that answers these sections, in this order, whatever the query. */
const ranking = (sections: StoredSection[]): Ranking => ({
  search: async () => sections.map((s, index): SearchHit => ({ index, score: 1, coverage: 1, section: s })),
});

const marked = (r: { excerpt: string; highlights: [number, number][] }) => r.highlights.map(([a, b]) => r.excerpt.slice(a, b));

describe('search results', () => {
  it('reads Markdown as plain text: no marks, links as their text, tables as their cells, HTML as its text', () => {
    expect(plainText('Run **npm i** and `acme sync`, see [the guide](https://x.example/g) ![a diagram](d.png).\n\n- one\n- two\n\n| Plan | Price |\n| --- | --- |\n| Team | $20 |\n\nA <b>bold</b> word.\n\n<div>a block of HTML</div>')).toBe(
      'Run npm i and acme sync, see the guide a diagram. one two Plan Price Team $20 A bold word. a block of HTML',
    );
  });

  it('cuts a long section at whole words around its best match, with an ellipsis where cut, and marks the matched words', async () => {
    const body = `${'Plans come with a workspace for your whole team and shared folders. '.repeat(8)}To download invoices, open Settings and choose **Billing**. ${'Everything else about teams is said on other pages of this guide. '.repeat(8)}`;
    const [result] = await searchDocs(ranking([section({ title: 'Invoices', context: 'Billing', body })]), 'acme', 'download invoices');
    expect(result!.section).toBe('Invoices');
    expect(result!.title).toBe('Billing');
    expect([...result!.excerpt].length).toBeLessThanOrEqual(300);
    expect(result!.excerpt.startsWith('…')).toBe(true);
    expect(result!.excerpt.endsWith('…')).toBe(true);
    expect(result!.excerpt).toContain('To download invoices, open Settings and choose Billing.');
    expect(marked(result!)).toEqual(['download', 'invoices']);
    // Whole words: each end of the excerpt is a word of the text, not a piece of one.
    const inner = result!.excerpt.slice(1, -1);
    expect(body.replace(/\*\*/g, '')).toContain(` ${inner} `);
  });

  it('takes the excerpt from the block holding the most of the query, however far into a long section it lies', async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} says something about teams and shared folders.`).join('\n\n');
    const body = `${filler}\n\nTo download invoices, open Settings and choose **Billing**.\n\nAnother paragraph about folders.`;
    const [result] = await searchDocs(ranking([section({ title: 'Invoices', context: 'Billing', body })]), 'acme', 'download invoices');
    expect(result!.excerpt).toContain('To download invoices, open Settings and choose Billing.');
    expect(result!.excerpt.startsWith('…')).toBe(true);
    expect(marked(result!)).toEqual(['download', 'invoices']);
  });

  it('keeps a short section whole, and names code by its file and declaration', async () => {
    const results = await searchDocs(
      ranking([
        section({ title: 'Refunds', context: 'Billing', body: 'Refunds are paid within **30 days**.' }),
        section({ kind: 'code', title: 'refundPayment', context: 'src/billing/refunds.ts', url: 'https://git.example/src/billing/refunds.ts#L1-L3', code: 'export function refundPayment(id) {\n  return api.refund(id);\n}' }),
      ]),
      'acme',
      'refund',
    );
    expect(results[0]).toEqual({ url: 'https://docs.example/page#s' + (ids - 1), title: 'Billing', section: 'Refunds', excerpt: 'Refunds are paid within 30 days.', highlights: [[0, 7]] });
    expect(results[1]).toMatchObject({ title: 'src/billing/refunds.ts', section: 'refundPayment', excerpt: 'export function refundPayment(id) { return api.refund(id); }' });
    // An identifier is marked whole when one of its parts matches.
    expect(marked(results[1]!)).toEqual(['refundPayment', 'api.refund']);
  });

  it('answers each page’s best section first, then their second and third (never a fourth), `limit` results, never a ticket', async () => {
    const page = (n: number, key: string) => section({ docKey: key, body: `Install step ${n}` });
    const sections = [section({ kind: 'ticket', body: 'install secret' }), ...[1, 2, 3, 4].map((n) => page(n, 'url:a')), page(5, 'url:b'), page(6, 'url:c'), page(7, 'url:b')];
    const excerpts = async (limit: number) => (await searchDocs(ranking(sections), 'acme', 'install', { limit })).map((r) => r.excerpt);
    expect(await excerpts(3)).toEqual(['Install step 1', 'Install step 5', 'Install step 6']);
    expect(await excerpts(5)).toEqual(['Install step 1', 'Install step 5', 'Install step 6', 'Install step 2', 'Install step 7']);
    expect(await excerpts(20)).toEqual(['Install step 1', 'Install step 5', 'Install step 6', 'Install step 2', 'Install step 7', 'Install step 3']);
  });

  it('reads the worst sections in bounded time: emphasis and link labels never closed, no blanks at all', async () => {
    // A section is read to its 20,000th character: the match lies in the middle of what is read.
    const N = 9_900;
    const hostile = ['*a ', '[a]\n', '_', '<a ', '`', 'x', ' \t', '\n    '].map((unit) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N));
    for (const body of hostile) {
      const stored = section({ body: `${body} download invoices ${body}` });
      const before = mainThreadCpuMs();
      const [result] = await searchDocs(ranking([stored]), 'acme', 'download invoices');
      // Read from the stored passage, nothing is parsed at search time: a few milliseconds.
      expect(mainThreadCpuMs() - before, JSON.stringify(body.slice(0, 4))).toBeLessThan(150);
      expect([...result!.excerpt].length).toBeLessThanOrEqual(300);
      // A run of backticks opens a code fence whose info string holds the words: as the page reads, they are no text.
      if (!body.startsWith('`')) expect(marked(result!)).toContain('invoices');
    }
  });
});
