/**
 * @module The Docusaurus plugin end to end (issue 47): a fresh Docusaurus 3.10 site from
 * test/fixtures/docusaurus-site with `baseUrl: '/proj/'` (a GitHub Pages project site) and the
 * plugin's line as docs/docs-sites.md prints it, in Chromium with `docusaurus start` and again with
 * `docusaurus build` served by `serve --site --site-base /proj/` (the checks both share are in
 * helpers/docs-site-plugin.ts). Its own: the navbar's search is the widget's, links go through
 * Docusaurus's router, and the build holds the widget's files and llms.txt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { searchFocused, sharedChecks, useDocsSite, widgetReady, type Generator } from './helpers/docs-site-plugin.js';

const PLUGIN_LINE = "plugins: ['support-chat-kit/docusaurus'],";

/** The page's title as Docusaurus shows it, or `404` on its "Page Not Found" page. */
async function shown(page: Page): Promise<string> {
  await page.locator('main h1').first().waitFor();
  const title = ((await page.locator('main h1').first().textContent()) ?? '').trim();
  return title === 'Page Not Found' ? '404' : title;
}

const DOCUSAURUS: Generator = {
  name: 'docusaurus',
  fixture: resolve(import.meta.dirname, '../fixtures/docusaurus-site'),
  entries: ['plugins/docusaurus/index.ts'],
  lines: [PLUGIN_LINE],
  config: 'docusaurus.config.js',
  addPlugin: (config) => config.replace('export default {', `export default {\n  ${PLUGIN_LINE}`),
  base: '/proj/',
  bin: 'node_modules/@docusaurus/core/bin/docusaurus.mjs',
  dev: (port) => ({ args: ['start', '--host', '127.0.0.1', '--port', String(port), '--no-open'], ready: /compiled successfully/i }),
  build: { args: ['build'], out: 'build' },
  shown,
  async toDark(page) {
    // The toggle goes through its modes (light, dark, and the system's in newer themes) until dark.
    for (let i = 0; i < 3 && (await page.evaluate(() => document.documentElement.dataset.theme)) !== 'dark'; i++) {
      await page.locator('.navbar button[class*="toggleButton"]').first().click();
    }
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  },
};

const docs = useDocsSite(DOCUSAURUS);

describe('the Docusaurus plugin with baseUrl /proj/, with `docusaurus start`', () => {
  sharedChecks(docs, DOCUSAURUS);

  it("puts the widget's search in the navbar's search place", async () => {
    const { page } = await docs.page();
    await page.goto(`${docs.home}docs/configure`);
    await widgetReady(page);
    await page.locator('.navbar .support-chat-search-button').click();
    await expect.poll(() => searchFocused(page)).toBe(true);
  });

  it("opens the widget's links through Docusaurus's router, without reloading the page", async () => {
    const { page } = await docs.page();
    await page.goto(docs.home);
    await widgetReady(page);
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
    // The site's root listens once React has hydrated the page, which may come after the widget is
    // ready: the event is sent again until the router takes it (an event nobody takes does nothing).
    const send = () =>
      page.locator('support-chat').evaluate((el, url) => {
        const event = new CustomEvent('support-chat-navigate', { detail: { url }, bubbles: true, composed: true, cancelable: true });
        el.shadowRoot!.querySelector('[part~="launcher"]')!.dispatchEvent(event);
        return event.defaultPrevented;
      }, `${docs.home}docs/configure`);
    await expect.poll(send, { timeout: 15_000 }).toBe(true);
    await page.waitForURL(`${docs.home}docs/configure`);
    await expect.poll(() => shown(page)).toMatch(/^Configure/);
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
  });
});

describe('the Docusaurus plugin with baseUrl /proj/, with `docusaurus build` served by `support-chat-kit serve --site`', () => {
  beforeAll(() => docs.serveBuild(), 600_000);

  it("holds the widget's files and llms.txt", () => {
    for (const file of ['support-chat.iife.js', 'search.js', 'markdown.js', 'locales/es.js']) expect(existsSync(join(docs.out, 'support-chat', file)), file).toBe(true);
    const index = readFileSync(join(docs.out, 'llms.txt'), 'utf8');
    expect(index.startsWith('# Acme CLI\n\n> Docs of the Acme command-line tool\n')).toBe(true);
    expect(index).toContain('- [Install](https://acme.example.com/proj/docs/install)');
    const full = readFileSync(join(docs.out, 'llms-full.txt'), 'utf8');
    expect(full).toContain('Use Homebrew: `brew install acme`.');
  });

  sharedChecks(docs, DOCUSAURUS);
});
