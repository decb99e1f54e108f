/**
 * A Jekyll site's pages are read as Jekyll renders them: Liquid rendered (includes from the site's
 * `_includes`, `site` from `_config.yml`, `page` from the front matter) and kramdown's attribute
 * lists and extension tags read as syntax, so no reply quotes `{% include … %}`, `{:target="_blank"}`
 * or `{::nomarkdown}`, a kramdown comment is no text, and links that start with `{{ site.baseurl }}`
 * lead somewhere.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import type { Passage } from '../../../src/server/knowledge/index.js';
import { parseMarkdown } from '../../../src/server/knowledge/ingest/markdown.js';
import { jekyllRoute } from '../../../src/server/knowledge/sources/jekyll-site.js';
import { testDatabases } from '../../helpers/database.js';
import { testFolders } from '../../helpers/folders.js';

const database = testDatabases();
/** A site folder holding `files` (path → text). */
const site = testFolders('jekyll-');

const REFUNDS = [
  '---',
  'title: Refunds',
  'category: Billing',
  '---',
  '# {{ page.title }}',
  '',
  'Refunds take five days. Get the [Mac app]({{ site.baseurl }}/mac){:target="_blank"}{:rel="noopener noreferrer"} to follow one.',
  '{:.note}',
  '',
  '{% include contact.md %}',
  '',
  '{% include ../_config.yml %}',
].join('\n');

const JEKYLL = {
  '_config.yml': 'title: Help\nbaseurl: /help\nmarkdown: kramdown\nsecret_token: not-for-pages\ncollections:\n  docs:\n    permalink: /:path/\n',
  '_docs/_defaults.md': '---\ntitle:\n---\nDefaults, not a page.\n',
  '_layouts/default.html': '<html>{{ content }}</html>',
  '_includes/contact.md': '## Still need help?\n\nWrite to [support](mailto:help@example.com) from the {{ page.category }} page.\n',
  '_includes/loop.md': 'Again: {% include loop.md %}',
  '_docs/refunds.md': REFUNDS,
  '_docs/loop.md': '---\ntitle: Loop\n---\n# Loop\n\nThis page includes itself. {% include loop.md %}\n',
};

/** Each stored section: its title, address, plain text (`body`) and quoted Markdown (its passage's blocks). */
async function sectionsOf(folder: string) {
  const sql = await database();
  const engine = createAnswerEngine({ sql, llm: null, embedder: null });
  await engine.ingest('acme', [folder], { baseUrl: 'https://help.test/' });
  const rows = await sql.all<{ title: string; body: string; url: string; passage: string }>('SELECT title, body, url, passage FROM kb_sections ORDER BY id');
  return rows.map((row) => ({ ...row, quoted: (JSON.parse(row.passage) as Passage).blocks.map((b) => b.text).join('\n\n') }));
}

describe('a Jekyll site', () => {
  it('is read as rendered: includes from _includes, site and page variables, no attribute list in the text', async () => {
    const root = site(JEKYLL);
    for (const folder of [root, join(root, '_docs')]) {
      const sections = (await sectionsOf(folder)).filter((s) => s.url.includes('refunds'));
      const text = sections.map((s) => `${s.title}\n${s.body}\n${s.quoted}`).join('\n');
      expect(sections.map((s) => s.title)).toEqual(['Refunds', 'Still need help?']);
      expect(text).toContain('[Mac app](https://help.test/help/mac) to follow one.');
      expect(text).toContain('Write to [support](mailto:help@example.com) from the Billing page.');
      expect(text).not.toMatch(/\{[:%{]/);
      // An include names a file of _includes, never one beside it.
      expect(text).not.toContain('not-for-pages');
    }
  });

  it('quotes a section that many pages include once, every page that says it a source', async () => {
    const pages = Object.fromEntries(['refunds', 'invoices', 'taxes'].map((name) => [`_docs/${name}.md`, `---\ntitle: ${name}\n---\n# About ${name}\n\nHow ${name} work.\n\n{% include contact.md %}\n`]));
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    await engine.ingest('acme', [site({ ...JEKYLL, ...pages })], { baseUrl: 'https://help.test/' });
    const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: 'I still need help, who do I write to?', sources: [] }], signal: new AbortController().signal });
    expect(answer.content.split('Write to [support]')).toHaveLength(2);
    expect(answer.sources.filter((s) => s.url.endsWith('#still-need-help')).length).toBeGreaterThan(1);
  });

  it('stores each page at the address Jekyll serves it, and no file Jekyll makes no page of', async () => {
    for (const folder of [site(JEKYLL), join(site(JEKYLL), '_docs')]) {
      const urls = [...new Set((await sectionsOf(folder)).map((s) => s.url.split('#')[0]))].sort();
      expect(urls).toEqual(['https://help.test/help/loop/', 'https://help.test/help/refunds/']);
    }
  });

  it('routes as Jekyll does: the page\'s permalink, its collection\'s, then the site\'s style', () => {
    const docs = { baseurl: '/help', collections: { docs: { permalink: '/:path/' }, guides: { output: true } } };
    expect(jekyllRoute(docs, '_docs/vpn/logs.md', {})).toBe('/help/vpn/logs/');
    expect(jekyllRoute(docs, '_docs/privacy-pro/index.md', { permalink: '/privacy-pro/index.html' })).toBe('/help/privacy-pro/index.html');
    expect(jekyllRoute(docs, '_guides/Start Here.md', {})).toBe('/help/guides/Start%20Here.html');
    expect(jekyllRoute({ collections: ['guides'], permalink: 'pretty' }, '_guides/start.md', {})).toBe('/guides/start/');
    expect(jekyllRoute({}, 'about.md', {})).toBe('/about.html');
    expect(jekyllRoute({ permalink: 'pretty' }, 'team/about.md', {})).toBe('/team/about/');
    expect(jekyllRoute({}, 'team/index.md', {})).toBe('/team/');
    expect(jekyllRoute({}, 'index.md', {})).toBe('/');
    expect(jekyllRoute({}, '_posts/2024-05-01-Hello World.md', { categories: 'news releases' })).toBe('/news/releases/2024/05/01/hello-world.html');
    expect(jekyllRoute({ permalink: 'pretty' }, '_posts/2024-05-01-hello.md', {})).toBe('/2024/05/01/hello/');
    expect(jekyllRoute({}, '_docs/faq.md', { permalink: '/:collection/:name/' })).toBe('/docs/faq/');
  });

  it('reads a page whose include includes itself as it is written, in bounded time', async () => {
    const sections = (await sectionsOf(site(JEKYLL))).filter((s) => s.url.includes('loop'));
    expect(sections.map((s) => s.body)).toEqual(['This page includes itself. {% include loop.md %}']);
  });

  it('is told from a folder that only has a _config.yml: other tools name their configuration so', async () => {
    const sections = await sectionsOf(site({ '_config.yml': 'title: Book\n', 'intro.md': '---\ntitle: Intro\n---\n# Intro\n\nSee [the site](https://x.test){:target="_blank"} and {{ site.title }}.\n' }));
    expect(sections[0]!.body).toBe('See [the site](https://x.test/){:target="_blank"} and {{ site.title }}.');
  });

  it('reads a page with an attribute list left open (as CommonMark) and 20,000 unclosed ones in seconds, not minutes', () => {
    const open = parseMarkdown('# Page\n\nRefunds take five days {:a="', { url: 'https://x.test/p', fallbackTitle: 'p', kramdown: true });
    expect(open.sections[0]!.body).toBe('Refunds take five days {:a="');
    for (const page of ['{:a="'.repeat(20_000), '[x](y){:'.repeat(20_000), `{:${'.c '.repeat(20_000)}`, '{:\n'.repeat(20_000)]) {
      const started = process.hrtime.bigint();
      parseMarkdown(`# Page\n\n${page}`, { url: 'https://x.test/p', fallbackTitle: 'p', kramdown: true });
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(10_000);
    }
  });
  it("reads kramdown's extension tags as syntax: nomarkdown's HTML as text, a comment and options not at all", async () => {
    const page = [
      '---',
      'title: Parameters',
      '---',
      '# Parameters',
      '',
      '| Name | Parameter | Values |',
      '| --- | --- | --- |',
      '| Safe Search | kp | {::nomarkdown}<ul><li>1 for On</li><li>-1 for Off</li></ul>{:/} |',
      '',
      'Add the parameter to the address. {::comment}Draft: mention cookies.{:/comment} It lasts one search.',
      '',
      '{::comment}',
      'Internal note: rewrite this page.',
      '{:/comment}',
      '',
      '{::comment}',
      '',
      'A hidden paragraph about zeppelins.',
      '',
      '{:/}',
      '',
      '{::options parse_block_html="true" /}',
      '',
      'Settings stay until you clear them. {::comment}left open, so kept',
    ].join('\n');
    const sections = await sectionsOf(site({ '_config.yml': 'title: Help\nmarkdown: kramdown\n', '_layouts/default.html': '<html>{{ content }}</html>', 'params.md': page }));
    const text = sections.map((s) => `${s.body}\n${s.quoted}`).join('\n');
    for (const tag of ['{::', '{:/', 'Draft', 'Internal note', 'zeppelins', 'parse_block_html']) expect(text).not.toContain(tag);
    expect(sections[0]!.quoted).toContain('| Safe Search | kp | 1 for On; -1 for Off |');
    expect(sections[0]!.body).toContain('Add the parameter to the address.');
    expect(sections[0]!.body).toContain('It lasts one search.');
    // A comment that never closes hides nothing: what is kept on a guess is only its tag.
    expect(sections[0]!.body).toContain('Settings stay until you clear them. left open, so kept');
    // Outside a kramdown site the tags are text, as CommonMark reads them.
    const plain = parseMarkdown('# Page\n\nKeep {::comment}this{:/comment}.', { url: 'https://x.test/p', fallbackTitle: 'p' });
    expect(plain.sections[0]!.body).toBe('Keep {::comment}this{:/comment}.');
  });

  it('reads 20,000 extension tags left open, or with the longest attributes, in seconds', () => {
    const attributes = 'a'.repeat(150);
    for (const page of ['{::comment}'.repeat(20_000), `${'{::comment}\n\n'.repeat(5_000)}{:/}`, `{::x ${attributes}`.repeat(2_000), '{::'.repeat(20_000), '{::nomarkdown}<b>x</b>{:/}'.repeat(5_000)]) {
      const started = process.hrtime.bigint();
      parseMarkdown(`# Page\n\n${page}`, { url: 'https://x.test/p', fallbackTitle: 'p', kramdown: true });
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(10_000);
    }
  });
});
