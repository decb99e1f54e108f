/**
 * @module The VitePress plugin end to end (issue 47): a fresh VitePress 1.6 site from
 * test/fixtures/vitepress-site with the plugin's one line as docs/docs-sites.md prints it, in
 * Chromium with `vitepress dev` and again with `vitepress build` served by `serve --site` (the checks
 * both share are in helpers/docs-site-plugin.ts). Its own: the navbar's search is the widget's,
 * results go through VitePress's router, the dev server's proxy answers 503 before init, and the
 * build holds the widget's files and llms.txt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importAfter } from './helpers/docs-generator.js';
import { searchFocused, sharedChecks, useDocsSite, widgetReady, type Generator } from './helpers/docs-site-plugin.js';
import { devProxyMiddleware } from '../../src/plugins/shared/dev-proxy.js';

const IMPORT_LINE = "import { withSupportChat } from 'support-chat-kit/vitepress';";
const EXPORT_LINE = 'export default withSupportChat(defineConfig({';

/** What VitePress shows: the page's title, or `404` on its page for a missing one. */
async function shown(page: Page): Promise<string> {
  await page.locator('.VPDoc h1, .NotFound').first().waitFor();
  return (await page.locator('.NotFound').count()) > 0 ? '404' : ((await page.locator('.VPDoc h1').first().textContent()) ?? '').trim();
}

const VITEPRESS: Generator = {
  name: 'vitepress',
  fixture: resolve(import.meta.dirname, '../fixtures/vitepress-site'),
  entries: ['plugins/vitepress/index.ts', 'plugins/vitepress/navbar-search.ts'],
  lines: [IMPORT_LINE, EXPORT_LINE],
  config: '.vitepress/config.mts',
  /** The import, and the config wrapped. */
  addPlugin(config) {
    const text = importAfter(config, "import { defineConfig } from 'vitepress'", IMPORT_LINE).replace('export default defineConfig({', EXPORT_LINE);
    const end = text.lastIndexOf('});');
    return `${text.slice(0, end)}}));${text.slice(end + 3)}`;
  },
  base: '/',
  bin: 'node_modules/vitepress/bin/vitepress.js',
  dev: (port) => ({ args: ['dev', '.', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], ready: /Local:/ }),
  build: { args: ['build', '.'], out: '.vitepress/dist' },
  shown,
  async toDark(page) {
    await page.locator('.VPNavBarAppearance .VPSwitchAppearance').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
  },
};

const docs = useDocsSite(VITEPRESS);

describe('the VitePress plugin, with `vitepress dev`', () => {
  sharedChecks(docs, VITEPRESS);

  it("puts the widget's search in the navbar's search place", async () => {
    const { page } = await docs.page();
    await page.goto(`${docs.origin}/docs/configure`);
    await widgetReady(page);
    await page.locator('.VPNavBar .support-chat-search-button').click();
    await expect.poll(() => searchFocused(page)).toBe(true);
  });

  it("opens the widget's links through VitePress's router, without reloading the page", async () => {
    const { page } = await docs.page();
    await page.goto(docs.home);
    await widgetReady(page);
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
    // What the widget does before it opens a link: a cancelable event from inside its shadow root.
    const prevented = await page.locator('support-chat').evaluate((el, url) => {
      const event = new CustomEvent('support-chat-navigate', { detail: { url }, bubbles: true, composed: true, cancelable: true });
      el.shadowRoot!.querySelector('[part~="launcher"]')!.dispatchEvent(event);
      return event.defaultPrevented;
    }, `${docs.origin}/docs/configure#rolling-back-a-deploy`);
    expect(prevented).toBe(true);
    await page.waitForURL(`${docs.origin}/docs/configure#rolling-back-a-deploy`);
    expect(await shown(page)).toMatch(/^Configure/);
    expect(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
  });

  it("answers 503 in the spec's error shape, not 404, on the proxy path when .env has no token", async () => {
    // The dev server's proxy as mounted, over a folder with no .env: what a site gets before init.
    const empty = mkdtempSync(join(tmpdir(), 'support-chat-noenv-'));
    const server: Server = createServer((req, res) => devProxyMiddleware([empty])(req, res, () => res.writeHead(404).end()));
    try {
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const address = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const response = await fetch(`${address}/api/support/search?q=x`);
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string; message: string } }).error.message).toContain('npx support-chat-kit init');
      expect((await fetch(`${address}/other`)).status).toBe(404);
    } finally {
      server.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the VitePress plugin, with `vitepress build` served by `support-chat-kit serve --site`', () => {
  beforeAll(() => docs.serveBuild(), 300_000);

  it("holds the widget's files and llms.txt", () => {
    for (const file of ['support-chat.iife.js', 'search.js', 'markdown.js', 'locales/es.js']) expect(existsSync(join(docs.out, 'support-chat', file)), file).toBe(true);
    const index = readFileSync(join(docs.out, 'llms.txt'), 'utf8');
    expect(index.startsWith('# Acme CLI\n\n> Docs of the Acme command-line tool\n')).toBe(true);
    expect(index).toContain('- [Install](/docs/install)');
    expect(index).toContain('- [Configure](/docs/configure)');
    const full = readFileSync(join(docs.out, 'llms-full.txt'), 'utf8');
    expect(full).toContain('Use Homebrew: `brew install acme`.');
    expect(full).toContain('Source: /docs/configure');
  });

  sharedChecks(docs, VITEPRESS);
});
