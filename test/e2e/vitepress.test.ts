/**
 * @module End to end on a real docs site (issue 38): a three-page VitePress 1.6 site
 * (test/fixtures/vitepress-site, set up as docs/docs-sites.md says) built offline with `vitepress
 * build` into a temporary folder, served with the built widget next to it and the real proxy in
 * front of the real server, which knows the same pages at the site's addresses. In Chromium: ⌘K,
 * type, open a result, ask.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { buildWidget } from '../helpers/build-widget.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { launch, watchedPage } from './helpers/browser.js';
import { siteProxy, startWidgetSite, type WidgetSite } from './helpers/site.js';
import { repoRoot } from './helpers/stack.js';
import { answers, squash } from './helpers/stream-page.js';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/vitepress-site');
const PAGES = ['index.md', 'install.md', 'configure.md'];
const REPLY = 'Run `acme rollback` to serve the previous deploy again.';
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' };

let browser: Browser;
let llm: FakeLlm;
let api: Awaited<ReturnType<typeof startServer>>;
let site: WidgetSite | undefined;
let tmp: string;

/** `vitepress build` of the fixture, copied into `dir` (the build writes a cache next to its sources). */
async function buildVitePress(dir: string): Promise<string> {
  const root = join(dir, 'site');
  const out = join(dir, 'out');
  cpSync(FIXTURE, root, { recursive: true });
  // The site's imports (vitepress, vue) resolve from the project's dependencies.
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  let output = '';
  const code = await new Promise<number | null>((done) => {
    const child = spawn(process.execPath, [join(repoRoot, 'node_modules/vitepress/bin/vitepress.js'), 'build', '.', '--outDir', out], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', done);
  });
  if (code !== 0) throw new Error(`vitepress build failed (${code}):\n${output}`);
  return out;
}

/** A file of `root` for a URL path, clean URLs as VitePress writes them (`/install` is install.html); null outside it or missing. */
function fileFor(root: string, path: string): string | null {
  const clean = normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, '');
  for (const candidate of [join(root, clean), join(root, `${clean}.html`), join(root, clean, 'index.html')]) {
    if (candidate.startsWith(root) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'support-chat-vitepress-'));
  const widget = join(tmp, 'widget');
  const [docs] = await Promise.all([buildVitePress(tmp), buildWidget(widget, ['iife'])]);
  llm = await fakeLlm();
  const config = { baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 10_000, retries: 2 };
  api = await startServer({ dataDir: ':memory:', port: 0, engine: (sql) => createAnswerEngine({ sql, llm: config, embedder: null }), logger: silentLogger, env: {} });
  const token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  const proxy = siteProxy(api.url, token);
  site = await startWidgetSite({
    out: widget,
    page: '',
    // The docs site: VitePress's pages, the widget's files at its root (where the config's script tag points), the proxy under /api/support.
    handle: (req, res, url) => {
      if (url.pathname.startsWith('/api/support/')) {
        proxy(req, res);
        return true;
      }
      const file = fileFor(widget, url.pathname) ?? fileFor(docs, url.pathname === '/' ? '/index.html' : url.pathname);
      if (!file) return false;
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
      return true;
    },
  });
  // The server knows the site's pages at the addresses the site serves them from.
  await (api.server.engine as AnswerEngine & KnowledgeBase).ingest('acme', PAGES.map((page) => join(FIXTURE, page)), { baseUrl: `${site.url}/` });
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await api?.close();
  await llm?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

let context: BrowserContext;
beforeEach(async () => {
  Object.assign(llm, { script: [REPLY, REPLY], chunkChars: 4, chunkDelayMs: 20, delayMs: 0 });
  context = await browser.newContext();
});
afterEach(async () => context.close());

const searchFocused = (page: Page) => page.locator('[part~="search"]').evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el);

async function openSearch(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('support-chat[data-auto]')?.shadowRoot);
  await page.keyboard.press('ControlOrMeta+k');
  await expect.poll(() => searchFocused(page)).toBe(true);
}

describe('the widget on a VitePress site', () => {
  it('⌘K, type, open a result on the site, then ask from that page', async () => {
    const { page, problems } = await watchedPage(context);
    await page.goto(`${site!.url}/`);
    expect(await page.locator('h1').first().textContent()).toContain('Acme CLI');
    await openSearch(page);
    await page.keyboard.type('homebrew macos');
    const results = page.locator('[part~="search-result"]');
    await results.first().waitFor();
    const href = (await results.first().getAttribute('href'))!;
    expect(href.startsWith(`${site!.url}/install#`)).toBe(true);
    await page.keyboard.press('ArrowDown');
    await Promise.all([page.waitForURL(href), page.keyboard.press('Enter')]);
    // VitePress's page, with the widget loaded on it again.
    await expect.poll(() => page.locator('main h1').first().textContent()).toContain('Install');

    await openSearch(page);
    await page.keyboard.type('How do I roll back a deploy?');
    await page.locator('[part~="search-ask"]').waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    expect(squash((await answers(page))[0]!)).toBe(squash(REPLY.replaceAll('`', '')));
    expect(problems.filter((p) => /pageerror|securitypolicyviolation/i.test(p))).toEqual([]);
  });
});
