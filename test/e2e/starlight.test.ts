/**
 * @module The Starlight plugin end to end (issue 47): a fresh Astro 5 + Starlight 0.37 site from
 * test/fixtures/starlight-site (published under /docs) with the plugin's line as docs/docs-sites.md
 * prints it, in Chromium with `astro dev` and again with `astro build` served by
 * `serve --site --site-base /docs/` (the checks both share are in helpers/docs-site-plugin.ts). Its
 * own: the header's search is the widget's with Pagefind off, and the build holds the widget's
 * files and llms.txt.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { importAfter } from './helpers/docs-generator.js';
import { searchFocused, sharedChecks, useDocsSite, widgetReady, type Generator } from './helpers/docs-site-plugin.js';

const IMPORT_LINE = "import supportChat from 'support-chat-kit/starlight';";
const PLUGIN = 'plugins: [supportChat()]';

/** The page's title as Starlight shows it (`404` on its page for a missing one). */
async function shown(page: Page): Promise<string> {
  await page.locator('main h1').first().waitFor();
  return ((await page.locator('main h1').first().textContent()) ?? '').trim();
}

const STARLIGHT: Generator = {
  name: 'starlight',
  fixture: resolve(import.meta.dirname, '../fixtures/starlight-site'),
  entries: ['plugins/starlight/index.ts'],
  // Astro compiles its components wrong when their real path is outside the site.
  copied: ['astro', '@astrojs'],
  lines: [IMPORT_LINE, PLUGIN],
  config: 'astro.config.mjs',
  /** The import, and the plugin in Starlight's `plugins`. */
  addPlugin: (config) => importAfter(config, "import starlight from '@astrojs/starlight'", IMPORT_LINE).replace('starlight({', `starlight({\n      ${PLUGIN},`),
  base: '/docs/',
  env: { ASTRO_TELEMETRY_DISABLED: '1' },
  bin: 'node_modules/astro/astro.js',
  dev: (port) => ({ args: ['dev', '--host', '127.0.0.1', '--port', String(port)], ready: /Local\s+http/ }),
  build: { args: ['build'], out: 'dist' },
  shown,
  async toDark(page) {
    await page.locator('starlight-theme-select select').first().selectOption('dark');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
  },
};

const docs = useDocsSite(STARLIGHT);

describe('the Starlight plugin, with `astro dev`', () => {
  sharedChecks(docs, STARLIGHT);

  it("puts the widget's search in the header's search place", async () => {
    const { page } = await docs.page();
    await page.goto(`${docs.home}configure/`);
    await widgetReady(page);
    await page.locator('header .support-chat-search-button').click();
    await expect.poll(() => searchFocused(page)).toBe(true);
    // Pagefind is off: its dialog is not on the page.
    expect(await page.locator('site-search').count()).toBe(0);
  });
});

describe('the Starlight plugin, with `astro build` served by `support-chat-kit serve --site`', () => {
  beforeAll(() => docs.serveBuild(), 300_000);

  it("holds the widget's files and llms.txt", () => {
    for (const file of ['support-chat.iife.js', 'search.js', 'markdown.js', 'locales/es.js']) expect(existsSync(join(docs.out, 'support-chat', file)), file).toBe(true);
    const index = readFileSync(join(docs.out, 'llms.txt'), 'utf8');
    expect(index.startsWith('# Acme CLI\n\n> Docs of the Acme command-line tool\n')).toBe(true);
    expect(index).toContain('- [Install](/docs/install/): Install Acme on Linux or macOS.');
    expect(index).toContain('- [Configure](/docs/configure/)');
    const full = readFileSync(join(docs.out, 'llms-full.txt'), 'utf8');
    expect(full).toContain('Use Homebrew: `brew install acme`.');
    // MDX's imports are code, not the page's text.
    expect(full).not.toContain('import { Aside }');
  });

  sharedChecks(docs, STARLIGHT);
});
