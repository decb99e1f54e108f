/**
 * @module End to end in Chromium (issue 38): the built classic script under the demo's strict CSP
 * with Trusted Types, the real proxy, and the real server answering from the fixture docs with a
 * stand-in model streaming in OpenAI's shape. ⌘K opens the search, results come as the visitor
 * types and open in the same tab, "Ask AI" streams an answer, the proxy's 429 is said in words, and
 * axe finds nothing to report with results on screen.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { buildWidget } from '../helpers/build-widget.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { axeViolations, launch, watchedPage } from './helpers/browser.js';
import { siteProxy, startWidgetSite, type WidgetSite } from './helpers/site.js';
import { answers, expectPrefixes, instrument, recorded, squash, violations } from './helpers/stream-page.js';

const KB = resolve(import.meta.dirname, '../fixtures/kb/docs');
const PAGE =
  '<!doctype html><html lang="en"><title>Shop</title><body><main><h1>Shop</h1><p>Our products.</p></main><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support"></support-chat></body></html>';
const REPLY = 'Each token may send 120 requests per minute. The limit applies per organization too, across all its tokens.\n\nWhen you go over it, wait for the time that Retry-After gives and send again.';
/** The stricter site's per-visitor search limit (a minute's worth). */
const SEARCHES = 3;

let browser: Browser;
let llm: FakeLlm;
let api: Awaited<ReturnType<typeof startServer>>;
let site: WidgetSite | undefined;
let strict: WidgetSite | undefined;
let out: string;
/** What the site's proxy was asked: paths with their query. */
let asked: string[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-search-'));
  await buildWidget(out, ['iife']);
  llm = await fakeLlm();
  const config = { baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 10_000, retries: 2 };
  api = await startServer({ dataDir: ':memory:', port: 0, engine: (sql) => createAnswerEngine({ sql, llm: config, embedder: null }), logger: silentLogger, env: {} });
  await (api.server.engine as AnswerEngine & KnowledgeBase).ingest('acme', [KB]);
  const token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  const withProxy = (proxy: ReturnType<typeof siteProxy>) =>
    startWidgetSite({
      out,
      page: PAGE,
      handle: (req, res, url) => {
        if (!url.pathname.startsWith('/api/support/')) return false;
        asked.push(`${url.pathname}${url.search}`);
        proxy(req, res);
        return true;
      },
    });
  site = await withProxy(siteProxy(api.url, token));
  strict = await withProxy(siteProxy(api.url, token, { searches: SEARCHES }));
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await strict?.close();
  await api?.close();
  await llm?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

let context: BrowserContext;
beforeEach(async () => {
  Object.assign(llm, { script: [REPLY, REPLY, REPLY], chunkChars: 4, chunkDelayMs: 30, delayMs: 0 });
  asked = [];
  context = await browser.newContext();
  // The docs the results link to, as the browser finds them (the fixture's pages are on docs.example.com).
  await context.route('https://docs.example.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Docs</title><h1>Docs</h1>' }));
});
afterEach(async () => context.close());

async function open(url: string): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await watchedPage(context);
  await page.goto(`${url}/`);
  await page.locator('support-chat').evaluate(async (el: HTMLElement & { updateComplete: Promise<unknown> }) => el.updateComplete);
  return { page, problems };
}

/** Whether the search field has the focus (in the element's shadow root). */
const searchFocused = (page: Page) => page.locator('[part~="search"]').evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el);
const status = (page: Page) => page.locator('.search-status').textContent();

describe('search and ask in the widget, through the real proxy and server', () => {
  it('⌘K opens the search, results come as you type with the words marked, and one opens in the same tab; axe finds nothing', async () => {
    const { page, problems } = await open(site!.url);
    expect(await page.locator('[part~="panel"]').isHidden()).toBe(true);
    await page.keyboard.press('ControlOrMeta+k');
    await expect.poll(() => searchFocused(page)).toBe(true);
    await page.keyboard.type('install windows');
    const results = page.locator('[part~="search-result"]');
    await results.first().waitFor();
    expect(await page.locator('[part~="search-ask"]').textContent()).toBe('Ask AI: install windows');
    const marked = (await page.locator('[part~="search-result"] mark').allTextContents()).map((t) => t.toLowerCase());
    expect(marked.length).toBeGreaterThan(0);
    for (const word of marked) expect(['install', 'windows', 'installer']).toContain(word);
    // The page the visitor is on went with the search, through the proxy.
    const search = asked.find((a) => a.startsWith('/api/support/search?'))!;
    expect(new URLSearchParams(search.split('?')[1]).get('page_url')).toBe(`${site!.url}/`);
    expect(await axeViolations(page)).toEqual([]);

    await page.keyboard.press('ArrowDown');
    const href = (await results.first().getAttribute('href'))!;
    expect(href).toMatch(/^https:\/\/docs\.example\.com\/start#/);
    await Promise.all([page.waitForURL(href), page.keyboard.press('Enter')]);
    expect(page.url()).toBe(href);
    expect(violations(problems)).toEqual([]);
  });

  it('"Ask AI" asks the query in chat and streams the answer', async () => {
    const { page, problems } = await open(site!.url);
    await page.keyboard.press('ControlOrMeta+k');
    await expect.poll(() => searchFocused(page)).toBe(true);
    await instrument(page);
    await page.keyboard.type('What is the rate limit per token?');
    await page.locator('[part~="search-result"]').first().waitFor();
    // The first row, "Ask AI", is the active one.
    await page.keyboard.press('Enter');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    const { shown } = await recorded(page);
    // Written as it came: several growing pieces before the whole.
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expectPrefixes(shown, REPLY);
    expect(squash((await answers(page))[0]!)).toBe(squash(REPLY));
    expect(asked.some((a) => /^\/api\/support\/chat\/[\w-]+\/events/.test(a))).toBe(true);
    expect(await page.locator('[part~="message"][data-role="user"]').textContent()).toContain('What is the rate limit per token?');
    expect(await page.locator('[part~="search"]').inputValue()).toBe('');
    expect(violations(problems)).toEqual([]);
  });

  it("says the proxy's 429 in words", async () => {
    const { page, problems } = await open(strict!.url);
    await page.keyboard.press('ControlOrMeta+k');
    await expect.poll(() => searchFocused(page)).toBe(true);
    const searchesDone = () => asked.filter((a) => a.startsWith('/api/support/search?')).length;
    for (let i = 1; i <= SEARCHES; i++) {
      await page.locator('[part~="search"]').fill(`install ${'x'.repeat(i)}`);
      await expect.poll(searchesDone).toBe(i);
    }
    await page.locator('[part~="search"]').fill('install windows');
    await expect.poll(() => status(page), { timeout: 10_000 }).toBe('Search failed. Too many requests. Please wait a moment.');
    expect(await axeViolations(page)).toEqual([]);
    expect(violations(problems)).toEqual([]);
  });
});
