/**
 * @module A docs-site plugin's end-to-end run, the same for the three generators: a fresh site from
 * its fixture with the plugin's line added as docs/docs-sites.md prints it, `support-chat-kit init`
 * and `serve` in its folder, the generator's dev server; then its build served by
 * `support-chat-kit serve --site` on the same address, as a site owner self-hosts it. The checks
 * both phases share: the launcher shows, ⌘K finds a page and its result opens that page at its
 * anchor, every source of an answer opens a page of the site at its anchor, and the widget turns
 * dark with the site. A test file describes its generator (`Generator`) and adds what is its own.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, watchedPage, type WatchedPage } from './browser.js';
import { freePort } from './stack.js';
import { buildPackage, cleanEnv, createSite, docsLines, runCliIn, runToEnd, startProcess, startServeIn, type Running } from './docs-generator.js';

/** What differs from one generator to the next. */
export interface Generator {
  /** Its name, for the temporary folder. */
  name: string;
  /** The fixture site's folder. */
  fixture: string;
  /** The plugin's entries under src/, compiled into the package. */
  entries: string[];
  /** Dependencies copied into the site rather than linked (see `createSite`). */
  copied?: string[];
  /** The lines docs/docs-sites.md prints for this generator, which `addPlugin` adds. */
  lines: string[];
  /** The config file, relative to the site's folder, and the plugin's line added to its text. */
  config: string;
  addPlugin(config: string): string;
  /** `init`'s options besides `--base-url`. */
  initArgs?: string[];
  /** The path the site is published under: `/`, `/proj/`. */
  base: string;
  /** Settings of the generator's own commands. */
  env?: Record<string, string>;
  /** The generator's script, relative to the site's folder (run with Node). */
  bin: string;
  /** The dev server's arguments on `port`, and what it prints once it serves. */
  dev(port: number): { args: string[]; ready: RegExp };
  /** The build's arguments, and the folder it writes, relative to the site's folder. */
  build: { args: string[]; out: string };
  /** The page's title as the generator shows it, or `404` on its page for a missing one. */
  shown(page: Page): Promise<string>;
  /** Switches the site to dark with its own toggle; resolves once the site is dark. */
  toDark(page: Page): Promise<void>;
}

/** The site's question whose answer is on the install page, and the search that finds it. */
const QUERY = 'homebrew macos';
const QUESTION = 'How do I install acme on macOS?';

export interface DocsSitePlugin {
  /** The site's address, without its base: `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** The site's home page. */
  readonly home: string;
  readonly site: string;
  /** The build's folder, once `serveBuild` ran. */
  readonly out: string;
  readonly context: BrowserContext;
  /** A page of the test's context, its problems recorded. */
  page(): Promise<WatchedPage>;
  /** The dev server goes, the build runs, and `serve --site` serves it and the API on the same addresses. */
  serveBuild(): Promise<void>;
}

/** Sets the site up before the file's tests (and tears it down after); a browser context per test. */
export function useDocsSite(generator: Generator): DocsSitePlugin {
  const env = cleanEnv(generator.env);
  let tmp = '';
  let site = '';
  let port = 0;
  let apiPort = 0;
  let api: Running | undefined;
  let dev: Running | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    docsLines(generator.lines);
    tmp = mkdtempSync(join(tmpdir(), `support-chat-${generator.name}-`));
    const pkg = await buildPackage(join(tmp, 'pkg'), generator.entries);
    site = createSite(generator.fixture, join(tmp, 'site'), pkg, generator.copied);
    const config = join(site, generator.config);
    writeFileSync(config, generator.addPlugin(readFileSync(config, 'utf8')));
    port = await freePort();
    apiPort = await freePort();
    // The API's address, as a user whose port 8787 is taken sets it before init.
    writeFileSync(join(site, '.env'), `SUPPORT_CHAT_API_URL=http://127.0.0.1:${apiPort}\n`);
    runCliIn(site, ['init', ...(generator.initArgs ?? []), '--base-url', `http://127.0.0.1:${port}${generator.base}`]);
    api = await startServeIn(site, apiPort);
    const { args, ready } = generator.dev(port);
    dev = await startProcess(process.execPath, [join(site, generator.bin), ...args], site, ready, env);
    browser = await launch();
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    await api?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  });

  beforeEach(async () => {
    context = await browser!.newContext({ viewport: { width: 1440, height: 900 } });
  });
  afterEach(async () => context?.close());

  return {
    get origin() {
      return `http://127.0.0.1:${port}`;
    },
    get home() {
      return `http://127.0.0.1:${port}${generator.base}`;
    },
    get site() {
      return site;
    },
    get out() {
      return join(site, generator.build.out);
    },
    get context() {
      return context!;
    },
    page: () => watchedPage(context!),
    async serveBuild() {
      // One generator process at a time: the dev server and the first `serve` go before the build runs.
      await dev?.stop();
      dev = undefined;
      await api?.stop();
      api = undefined;
      await runToEnd(process.execPath, [join(site, generator.bin), ...generator.build.args], site, env);
      api = await startServeIn(site, apiPort, ['--site', generator.build.out, '--site-port', String(port), '--site-base', generator.base], /Your site .*: http/);
    },
  };
}

export const widgetReady = (page: Page) =>
  page.waitForFunction(() => document.querySelector('support-chat[data-auto]')?.shadowRoot?.querySelector('[part~="launcher"]'), undefined, { timeout: 60_000 });

export const searchFocused = (page: Page) => page.locator('[part~="search"]').evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el);

/** Whether the element a URL's anchor names is on the page. */
const anchorShown = (page: Page, url: string) => page.evaluate((id) => document.getElementById(id) !== null, decodeURIComponent(new URL(url).hash.slice(1)));

/**
 * That the page at `url` (already open, or opening through the site's router) holds the element its
 * anchor names and is a page of the site, not the generator's 404; titled `title` when given.
 */
async function showsAtAnchor(page: Page, generator: Generator, url: string, title?: RegExp): Promise<void> {
  expect(new URL(url).hash, url).not.toBe('');
  // The site's router may open it without a page load: the page is read once it shows.
  if (title) await expect.poll(() => generator.shown(page), { message: url }).toMatch(title);
  await expect.poll(() => anchorShown(page, url), { message: `${url}: no element with the anchor's id` }).toBe(true);
  expect(await generator.shown(page), url).not.toBe('404');
}

/** The checks both phases run, as tests of the describe block they are called in. */
export function sharedChecks(docs: DocsSitePlugin, generator: Generator): void {
  it('shows the launcher; Ctrl+K finds a page and its result opens that page at its anchor', async () => {
    const { page, problems } = await docs.page();
    await page.goto(docs.home);
    await widgetReady(page);
    expect(await page.locator('support-chat').evaluate((el) => el.shadowRoot!.querySelector('[part~="launcher"]')!.checkVisibility())).toBe(true);
    await page.keyboard.press('Control+k');
    await expect.poll(() => searchFocused(page)).toBe(true);
    await page.keyboard.type(QUERY);
    const results = page.locator('[part~="search-result"]');
    await results.first().waitFor({ timeout: 20_000 });
    const href = new URL((await results.first().getAttribute('href'))!, docs.origin).href;
    expect(href.startsWith(`${docs.home}`), href).toBe(true);
    await page.keyboard.press('ArrowDown');
    await Promise.all([page.waitForURL((url) => url.href === href), page.keyboard.press('Enter')]);
    await showsAtAnchor(page, generator, href, /^Install/);
    expect(problems.filter((p) => /pageerror/i.test(p))).toEqual([]);
  });

  it("opens every source of the widget's answer as a page of the site, at its anchor", async () => {
    const { page } = await docs.page();
    await page.goto(docs.home);
    await widgetReady(page);
    await page.locator('support-chat').locator('[part~="launcher"]').click();
    const input = page.locator('[part~="input"]');
    await input.fill(QUESTION);
    await input.press('Enter');
    const answer = page.locator('[part~="message"][data-role="assistant"]').last();
    await answer.locator('[part~="source"]').first().waitFor({ timeout: 60_000 });
    expect(await answer.textContent()).toContain('brew install acme');
    const sources = await answer.locator('[part~="source"]').evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source.startsWith(docs.home), source).toBe(true);
      const opened = await docs.context.newPage();
      const response = await opened.goto(source);
      expect(response?.status(), source).toBeLessThan(400);
      await showsAtAnchor(opened, generator, source);
      await opened.close();
    }
  });

  it('turns dark with the site', async () => {
    const { page } = await docs.page();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(docs.home);
    await widgetReady(page);
    const scheme = () => page.locator('support-chat').evaluate((el) => getComputedStyle(el).colorScheme);
    expect(await scheme()).not.toBe('dark');
    await generator.toDark(page);
    await expect.poll(scheme).toBe('dark');
  });
}
