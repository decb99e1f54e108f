import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, MAX_ELEMENTS, PageBudgetError, parseHtml, readHtml } from '../../../src/server/knowledge/ingest/html.js';
import { leastTime as time } from '../../helpers/least-time.js';

const url = 'https://docs.acme.test/limits';
const page = (body: string, head = '<title>Limits | Acme</title>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
const parse = (html: string, options = {}) => parseHtml(html, { url, fallbackTitle: 'limits', ...options });
const text = (parsed: { sections: { title: string; body: string; code: string }[] }) => parsed.sections.map((s) => `${s.title}\n${s.body}\n${s.code}`).join('\n');

/** A docs page with the chrome docs sites put around it (Docusaurus and Mintlify shapes). */
const CHROME_PAGE = page(`
<a class="skip-link" href="#main">Skip to main content</a>
<div class="announcement-bar">Star us on GitHub</div>
<header class="navbar"><a href="/">Acme Docs</a><input placeholder="Search"></header>
<div id="cookie-consent">We use cookies to improve your experience. <button>Accept all</button></div>
<aside class="theme-doc-sidebar-container"><ul><li><a href="/start">Getting started guide</a></li></ul></aside>
<main>
  <nav aria-label="Breadcrumbs"><ul class="breadcrumbs"><li><a href="/">Home</a></li><li>Limits</li></ul></nav>
  <article>
    <header><h1>Rate limits</h1></header>
    <p>Every token gets 60 requests a minute.</p>
    <h2 id="bursts">Bursts<a class="hash-link" href="#bursts" aria-label="Direct link">#</a></h2>
    <p>Short bursts of ten are allowed.</p>
    <div class="tabs-container"><ul role="tablist"><li role="tab">Python</li><li role="tab">Go</li></ul>
      <div role="tabpanel"><p>Python clients retry on 429.</p></div>
      <div role="tabpanel" hidden><p>Go clients back off exponentially.</p></div></div>
    <details><summary>Do limits reset?</summary><p>Limits reset every minute on the minute.</p></details>
    <aside class="admonition admonition-note"><p>Enterprise plans have higher limits.</p></aside>
    <div class="code-group"><pre><code class="language-bash">curl -i https://api.acme.test/v0/me</code></pre></div>
    <footer class="theme-doc-footer"><a href="https://github.com/acme/docs/edit/main/limits.md">Edit this page</a><span>Last updated on Nov 2, 2026</span></footer>
    <div class="feedback-widget"><p>Was this page helpful?</p><button>Yes</button><button>No</button></div>
    <nav class="pagination-nav"><a href="/auth">Previous Authentication</a><a href="/errors">Next Errors</a></nav>
  </article>
  <div class="table-of-contents"><p>On this page</p><a href="#bursts">Bursts</a></div>
</main>
<footer class="footer"><p>Copyright © 2026 Acme, Inc. Built with Docusaurus.</p></footer>`);

describe('HTML, read by parse5', () => {
  it('decodes entities', () => {
    expect(parse(page('<h1>Caf&eacute;</h1><p>It&rsquo;s fast &mdash; really &#x2014; &amp; cheap.</p>')).sections[0]!.body).toBe('It’s fast — really — & cheap.');
  });

  it('keeps the whitespace of <pre>, so Python keeps its indentation', () => {
    const parsed = parse(page('<h1>Retry</h1><pre><code class="language-python">def retry():\n    for attempt in range(3):\n        call()\n</code></pre>'));
    expect(parsed.sections[0]!.code).toBe('def retry():\n    for attempt in range(3):\n        call()');
    expect(parsed.sections[0]!.lang).toBe('python');
  });

  it('keeps markup out of the text when an attribute holds `>`', () => {
    expect(parse(page('<h1>Compare</h1><p>Use <span title="a > b" data-x=">">the comparison</span> operator.</p>')).sections[0]!.body).toBe('Use the comparison operator.');
  });

  it('reads the main content only: none of the chrome, all of the tabs, details, asides and code groups', () => {
    const parsed = parse(CHROME_PAGE);
    const all = text(parsed);
    for (const chrome of ['Skip to main content', 'Star us', 'Acme Docs', 'Search', 'cookies', 'Getting started guide', 'Home', 'Edit this page', 'Last updated', 'Was this page helpful', 'Yes', 'Previous', 'Next Errors', 'On this page', 'Copyright', 'Direct link', '#']) {
      expect(all, chrome).not.toContain(chrome);
    }
    for (const content of ['60 requests a minute', 'bursts of ten', 'Python clients retry', 'Go clients back off', 'Do limits reset?', 'reset every minute', 'Enterprise plans', 'curl -i https://api.acme.test/v0/me']) {
      expect(all, content).toContain(content);
    }
  });

  it('makes a section of each h1–h3, anchored by the heading’s id (else its slug)', () => {
    const parsed = parse(page('<main><h1 id="top">Limits</h1><p>Intro.</p><h2 id="per-token">Per token</h2><p>A.</p><h3>Reset time</h3><p>B.</p><h4 id="deep">Deep</h4><p>C.</p></main>'));
    expect(parsed.title).toBe('Limits');
    expect(parsed.sections.map((s) => [s.title, s.url, s.body])).toEqual([
      ['Limits', url, 'Intro.'],
      ['Per token', `${url}#per-token`, 'A.'],
      ['Reset time', `${url}#reset-time`, 'B.\n\n**Deep**\n\nC.'],
    ]);
  });

  it('keeps tables as Markdown tables', () => {
    expect(parse(page('<h1>Plans</h1><table><thead><tr><th>Plan</th><th>Limit</th></tr></thead><tbody><tr><td>Pro</td><td>600 | burst</td></tr></tbody></table>')).sections[0]!.body).toBe('| Plan | Limit |\n| --- | --- |\n| Pro | 600 \\| burst |');
  });

  it('reads what the site owner names: a content selector, selectors to exclude, and never data-support-chat-exclude', () => {
    const html = page('<div class="docs-body"><h1>Limits</h1><p>Sixty a minute.</p><div class="promo">Try Acme Cloud free.</div><p data-support-chat-exclude>Internal: ask ops.</p></div><div class="other"><p>Unrelated.</p></div>');
    const all = text(parse(html, { contentSelector: '.docs-body', excludeSelectors: ['.promo'] }));
    expect(all).toContain('Sixty a minute.');
    for (const gone of ['Try Acme Cloud', 'Internal', 'Unrelated']) expect(all).not.toContain(gone);
    expect(text(parse(html))).not.toContain('Internal');
  });

  it('tells the crawler the page’s canonical address, links and robots directives', () => {
    const read = readHtml(page('<a href="/a">A</a><main><h1>X</h1><a href="b?x=1#y">B</a></main>', '<link rel="canonical" href="https://docs.acme.test/x"><meta name="robots" content="noindex, nofollow">'), { url, fallbackTitle: 'x' });
    expect([read.canonical, read.links, read.noindex, read.nofollow]).toEqual(['https://docs.acme.test/x', ['/a', 'b?x=1#y'], true, true]);
  });
});

describe('hostile HTML costs time linear in its length', () => {
  const shapes: Record<string, (n: number) => string> = {
    'runs of <': (n) => `<h1>T</h1><p>${'<'.repeat(n)}</p>`,
    'unclosed tags': (n) => `<h1>T</h1>${'<a '.repeat(n / 3)}`,
    'nested elements': (n) => `${'<div>'.repeat(n / 5)}x`,
    'attributes with >': (n) => `<h1>T</h1>${'<span title=">">x</span>'.repeat(n / 24)}`,
    'many headings': (n) => '<h2>a</h2>'.repeat(n / 10),
  };
  it.each(Object.keys(shapes))('%s', (name) => {
    const shape = shapes[name]!;
    const read = (n: number) => () => parse(page(shape(n)));
    const small = time(read(10_000));
    const large = time(read(40_000));
    expect(large, `${name}: ${small.toFixed(0)} ms → ${large.toFixed(0)} ms`).toBeLessThan(Math.max(8 * small, 400));
  }, 60_000);
});

describe('the element and depth budget', () => {
  it('refuses a crawled page over 100,000 elements or 512 levels while parsing it; a file over it is read as its text', () => {
    const flat = page(`<main>${'<p>x</p>'.repeat(MAX_ELEMENTS)}</main>`);
    expect(() => readHtml(flat, { url, fallbackTitle: 'x' })).toThrow(new PageBudgetError('over 100,000 elements'));
    const deep = page(`<main>${'<div>'.repeat(MAX_DEPTH)}deep</main>`);
    expect(() => readHtml(deep, { url, fallbackTitle: 'x' })).toThrow(new PageBudgetError('elements nested over 512 deep'));
    expect(text(parse(deep))).toContain('deep');
    // Just within: read as a page.
    expect(readHtml(page(`<main>${'<div>'.repeat(MAX_DEPTH - 8)}deep</main>`), { url, fallbackTitle: 'x' }).sections[0]!.body).toBe('deep');
  });

  it('reads 5,000 unclosed <a href> as the links they are, without a section of blanks', () => {
    const read = readHtml(page(`<main><h1>Links</h1>${'<a href="/x">'.repeat(5_000)}<p>After.</p></main>`), { url, fallbackTitle: 'x' });
    expect(read.links).toHaveLength(5_000);
    // The paragraph is inside the last link, as a browser reads it.
    expect(read.sections.map((s) => s.body)).toEqual(['[After.](https://docs.acme.test/x)']);
  });
});
