/**
 * @module Crawling a docs site: a generated site of 1,000 pages with real chrome, served locally,
 * crawled into a knowledge base (pages per second, requests, memory), synced again unchanged, and
 * asked questions whose answers must hold no chrome sentence. Then the real server (its own
 * process, see crawl-target.ts) syncs hostile pages while this process asks it `GET /v0/me` in a
 * loop: the slowest answer says whether a page can stall the server.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { migrations } from '../../src/server/schema.js';
import { migrate } from '../../src/server/store/migrate.js';
import { openSql } from '../../src/server/store/sql.js';
import { CHROME_SENTENCES, serveDocsSite, type SiteOptions } from '../helpers/docs-site.js';
import type { BenchTable } from './table.js';

const PAGES = 1_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A deterministic docs site: each page a topic with three sections of its own words. */
function generatedSite(): SiteOptions['pages'] {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const vocabulary = Array.from({ length: 5_000 }, (_, i) => `word${i.toString(36)}`);
  const word = () => vocabulary[Math.floor(random() * vocabulary.length)]!;
  const sentence = () => `${Array.from({ length: 14 }, word).join(' ')}.`;
  const pages: SiteOptions['pages'] = {};
  for (let p = 0; p < PAGES; p++) {
    const sections = [0, 1, 2].map((s) => `<h2 id="part-${s}">Topic${p} part ${s}</h2><p>${sentence()} ${sentence()}</p><pre><code class="language-bash">acme run topic${p} --part ${s}</code></pre>`);
    pages[`/docs/p${p}`] = { title: `Topic${p} guide`, html: `<p>Topic${p} ${sentence()}</p>${sections.join('')}` };
  }
  pages['/docs/'] = { title: 'Docs', html: '<p>Welcome.</p>' };
  return pages;
}

/** Hostile pages, each the only page of a site: the shapes that froze the server before pages were parsed off its event loop. */
const HOSTILE: Record<string, string> = {
  '5,000 unclosed <a href> (59 KB)': '<a href="/docs/x">'.repeat(5_000),
  'nested <b><i> at the 5 MiB cap': '<b><i>x'.repeat(Math.floor((5 * 1024 * 1024 - 200) / 7)),
  'nested tables at the 5 MiB cap': '<table><tr><td>x'.repeat(Math.floor((5 * 1024 * 1024 - 200) / 16)),
  '80,000 divs nested 400 deep (0.9 MB)': ('<div>'.repeat(400) + 'x' + '</div>'.repeat(400)).repeat(200),
};

/** Reads the JSON lines a target writes on fd 3. */
function lines(channel: Readable): () => Promise<Record<string, unknown>> {
  let buffer = '';
  const waiting: ((line: Record<string, unknown>) => void)[] = [];
  const ready: Record<string, unknown>[] = [];
  channel.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>;
      buffer = buffer.slice(end + 1);
      const next = waiting.shift();
      if (next) next(line);
      else ready.push(line);
    }
  });
  return () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : new Promise((resolve) => waiting.push(resolve)));
}

/** The slowest and the median `GET /v0/me` while the server syncs each hostile page, and idle. */
async function hostileSync(): Promise<BenchTable> {
  const site = createServer((req, res) => {
    const shape = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/')[1] ?? '');
    const body = HOSTILE[shape];
    if (!body || req.url?.endsWith('/robots.txt') || req.url?.endsWith('.xml')) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><body><main><h1>Hostile</h1>${body}</main></body></html>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // A sitemap bomb: robots.txt names three sitemaps of 20 MB, every address outside the docs.
  const bomb = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end([1, 2, 3].map((n) => `Sitemap: ${bombOrigin}/sitemap-${n}.xml`).join('\n'));
    if (path.startsWith('/sitemap-')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
      const entry = `<url><loc>${bombOrigin}/blog/${'x'.repeat(40)}</loc></url>`;
      // About 20 MB, written as the client reads it.
      let left = Math.floor(20e6 / entry.length / 1000);
      const more = (): void => {
        while (left-- > 0) if (!res.write(entry.repeat(1000))) return void res.once('drain', more);
        res.end('</urlset>');
      };
      res.on('error', () => undefined);
      return more();
    }
    if (path === '/docs/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<main><h1>Docs</h1><p>Hello.</p></main>');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => bomb.listen(0, '127.0.0.1', resolve));
  const bombOrigin = `http://127.0.0.1:${(bomb.address() as AddressInfo).port}`;
  const target = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crawl-target.ts')], { stdio: ['pipe', 'ignore', 'inherit', 'pipe'], env: { ...process.env, SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true' } });
  const next = lines(target.stdio[3] as Readable);
  const { url, token } = (await next()) as { url: string; token: string };
  const me = async (): Promise<number> => {
    const started = performance.now();
    await (await fetch(`${url}/v0/me`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
    return performance.now() - started;
  };
  /** Asks `/v0/me` in a loop until `done` settles. */
  const during = async (done: Promise<unknown>): Promise<number[]> => {
    let over = false;
    void done.finally(() => (over = true));
    const times: number[] = [];
    while (!over) times.push(await me());
    return times;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const rows: (string | number)[][] = [];
  try {
    const idle = await during(new Promise((resolve) => setTimeout(resolve, 2_000)));
    rows.push(['idle (no sync)', '', idle.length, median(idle), Math.max(...idle)]);
    const sites: [string, string][] = [...Object.keys(HOSTILE).map((shape): [string, string] => [shape, `${origin}/${encodeURIComponent(shape)}/`]), ['3 sitemaps of 20 MB named by robots.txt', `${bombOrigin}/docs/`]];
    for (const [name, start] of sites) {
      let outcome: Record<string, unknown> = {};
      const started = performance.now();
      target.stdin!.write(`${start}\n`);
      const times = await during(next().then((line) => (outcome = line)));
      const failures = (outcome.failures as string[]).filter((f) => !f.startsWith('HTTP')).map((f) => f.replace(/^not read: /, ''));
      rows.push([name, `${((performance.now() - started) / 1000).toFixed(1)} s; ${failures.length ? `refused: ${failures[0]}` : 'read'}`, times.length, median(times), Math.max(...times)]);
    }
  } finally {
    target.kill('SIGTERM');
    await Promise.all([site, bomb].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
  return {
    title: 'GET /v0/me while the real server syncs a hostile site (server in its own process; the site read twice: ingest, then the sync of serve --kb-sync-every)',
    columns: ['site', 'sync', 'requests', 'median ms', 'worst ms'],
    rows,
    notes: ['Pages are read on worker threads (one per core) within 100,000 elements, 512 levels, 10 s and 512 MB each; the worst answer is the measure.'],
  };
}

export async function run(): Promise<BenchTable[]> {
  const pages = generatedSite();
  // Every page is in the sitemap, and linked from the one before it (the chrome's pagination links are fixed).
  const site = await serveDocsSite({ pages, robots: 'User-agent: *\nAllow: /\n', sitemap: Object.keys(pages) });
  // The chrome's sidebar links every page from every page, as a docs site's sidebar does.
  const sql = await openSql({ dataDir: ':memory:' });
  await migrate(sql, migrations);
  const engine = createAnswerEngine({ sql, llm: null, embedder: null });
  try {
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const first = await engine.ingest('acme', [`${site.url}/docs/`], { maxPages: 2_000 });
    const crawlMs = performance.now() - started;
    clearInterval(sampler);
    const firstRequests = site.requests.length;

    site.requests.length = 0;
    const resyncStart = performance.now();
    const again = await engine.sync('acme');
    const resyncMs = performance.now() - resyncStart;
    const notModified = site.requests.filter((r) => r.status === 304).length;

    let chrome = 0;
    for (let q = 0; q < 50; q++) {
      const p = (q * 37) % PAGES;
      const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: `How do I run topic${p} part 1?`, sources: [] }], signal: new AbortController().signal });
      if (CHROME_SENTENCES.some((s) => answer.content.includes(s))) chrome++;
    }
    const stall = await hostileSync();
    return [
      {
        title: `Crawling a generated docs site of ${PAGES + 1} pages with chrome (local HTTP, SQLite in memory, no embeddings)`,
        columns: ['measure', 'value'],
        rows: [
          ['pages stored', first.pages],
          ['first crawl s', crawlMs / 1000],
          ['pages / s', first.pages / (crawlMs / 1000)],
          ['requests (first crawl)', firstRequests],
          ['requests ≤ 2 × pages + 30', firstRequests <= 2 * first.pages + 30 ? 'yes' : 'no'],
          ['peak RSS growth MB', (peak - before) / 1024 / 1024],
          ['peak RSS MB', peak / 1024 / 1024],
          ['re-sync of the unchanged site s', resyncMs / 1000],
          ['re-sync: pages unchanged / 304 answers', `${again.unchanged} / ${notModified}`],
          ['answers (of 50) holding a chrome sentence', chrome],
        ],
        notes: ['The site is served by the same process (one event loop): pages per second is a floor. Concurrency 4, default timeouts; pages read on worker threads (their memory is in the RSS).'],
      },
      stall,
    ];
  } finally {
    await site.close();
    await sql.close();
  }
}
