/**
 * Built pages of the three docs generators, in the markup their themes write (VitePress 1.6's
 * `a.header-anchor` holding a zero-width space, Starlight 0.37's `a.sl-anchor-link` after the
 * heading with its visually hidden "Section titled …", Docusaurus 3's `a.hash-link`), read as a
 * crawl or an ingest of the build reads them: headings and titles as a reader sees them.
 */
import { describe, expect, it } from 'vitest';
import { parseHtml, readHtml } from '../../../src/server/knowledge/ingest/html.js';

const url = 'https://acme.dev/guide/install';
const read = (html: string) => parseHtml(html, { url, fallbackTitle: 'install' });
const all = (parsed: { title: string; sections: { title: string; context: string; body: string }[] }) =>
  [parsed.title, ...parsed.sections.flatMap((s) => [s.title, s.context, s.body])].join('\n');

const VITEPRESS = `<!DOCTYPE html><html lang="en-US" dir="ltr"><head><meta charset="utf-8"><title>Install | VitePress</title></head><body><div id="app"><div class="Layout">
<header class="VPNav"><div class="VPNavBar"><a class="VPNavBarTitle" href="/"><span>Acme</span></a></div></header>
<div class="VPContent has-sidebar"><div class="VPDoc has-sidebar has-aside"><div class="container"><div class="content"><div class="content-container">
<main class="main"><div style="position:relative;" class="vp-doc _guide_install"><div>
<h1 id="install" tabindex="-1">Install <a class="header-anchor" href="#install" aria-label="Permalink to &quot;Install&quot;">&#8203;</a></h1>
<p>Acme runs on Linux and macOS.</p>
<h2 id="install-the-cli" tabindex="-1">Install the CLI <a class="header-anchor" href="#install-the-cli" aria-label="Permalink to &quot;Install the CLI&quot;">&#8203;</a></h2>
<p>Run <code>npm install -g acme</code>, then <a href="#install-the-cli">check it</a>.</p>
</div></div></main></div></div></div></div></div></div></div></body></html>`;

const STARLIGHT = `<!DOCTYPE html><html lang="en" dir="ltr" data-theme="dark"><head><meta charset="utf-8"><title>Getting started | Acme Docs</title></head><body>
<div class="page sl-flex"><header class="header"><div class="header sl-flex"><a href="/" class="site-title">Acme Docs</a></div></header>
<div class="main-frame"><div class="lg:sl-flex"><div class="main-pane"><main data-pagefind-body lang="en" dir="ltr">
<div class="content-panel"><div class="sl-container"><h1 id="_top" data-page-title>Getting started</h1></div></div>
<div class="content-panel"><div class="sl-container"><div class="sl-markdown-content">
<p>Acme runs on Linux and macOS.</p>
<div class="sl-heading-wrapper level-h2"><h2 id="install-the-cli">Install the CLI</h2><a class="sl-anchor-link" href="#install-the-cli"><span aria-hidden="true" class="sl-anchor-icon"><svg width="16" height="16" viewBox="0 0 24 24"><path fill="currentcolor" d="M12.11 15.39 8.23 19.27"></path></svg></span><span class="sr-only">Section titled “Install the CLI”</span></a></div>
<p>Run <code dir="auto">npm install -g acme</code>.</p>
</div></div></div></main></div></div></div></div></body></html>`;

const DOCUSAURUS = `<!doctype html><html lang="en" dir="ltr"><head><meta charset="UTF-8"><title data-rh="true">Install | My Site</title></head><body>
<div id="__docusaurus"><nav aria-label="Main" class="navbar navbar--fixed-top"><a class="navbar__brand" href="/proj/">My Site</a></nav>
<div class="main-wrapper"><div class="docsWrapper_hBAB"><main class="docMainContainer_TBSr"><div class="container padding-top--md padding-bottom--lg"><div class="row"><div class="col docItemCol_VOVn"><div class="docItemContainer_Djhp"><article>
<div class="tocCollapsible_ETCw theme-doc-toc-mobile tocMobile_ITEo"><button type="button" class="clean-btn tocCollapsibleButton_TO0P">On this page</button></div>
<div class="theme-doc-markdown markdown"><header><h1>Install</h1></header>
<p>Acme runs on Linux and macOS.</p>
<h2 class="anchor anchorWithStickyNavbar_LWe7" id="install-the-cli">Install the CLI<a href="#install-the-cli" class="hash-link" aria-label="Direct link to Install the CLI" title="Direct link to Install the CLI">&#8203;</a></h2>
<p>Run <code>npm install -g acme</code>.</p>
</div></article></div></div></div></div></main></div></div></div></body></html>`;

describe('built pages of docs generators', () => {
  for (const [name, html, title] of [
    ['VitePress', VITEPRESS, 'Install'],
    ['Starlight', STARLIGHT, 'Getting started'],
    ['Docusaurus', DOCUSAURUS, 'Install'],
  ] as const) {
    it(`${name}: headings without their anchor glyph or hidden link text, anchored by their ids`, () => {
      const parsed = read(html);
      expect(parsed.title).toBe(title);
      expect(parsed.sections.map((s) => [s.title.trim(), s.url])).toEqual([
        [title, url],
        ['Install the CLI', `${url}#install-the-cli`],
      ]);
      const text = all(parsed);
      expect(text).not.toContain('\u200b');
      expect(text).not.toContain('Section titled');
      expect(text).not.toContain('Direct link');
      expect(text).not.toContain('Permalink');
      expect(parsed.sections[1]!.body).toContain('npm install -g acme');
    });
  }

  it("keeps a link to a heading written in the page's text", () => {
    expect(read(VITEPRESS).sections[1]!.body).toContain('check it');
  });

  it("takes a page's title from <title> without the site's name when the page has no h1", () => {
    const home = (title: string) => `<html><head><title>${title}</title></head><body><main><p>Acme deploys static sites from one command.</p></main></body></html>`;
    expect(readHtml(home('Acme | VitePress'), { url, fallbackTitle: 'index' }).title).toBe('Acme');
    expect(readHtml(home('Pricing | Plans | My Site'), { url, fallbackTitle: 'index' }).title).toBe('Pricing | Plans');
    expect(readHtml(home('Acme'), { url, fallbackTitle: 'index' }).title).toBe('Acme');
  });
});
