/**
 * @module Crawling a docs site: a generated site of 1,000 pages with real chrome, served locally,
 * crawled into a knowledge base (pages per second, requests, memory), synced again unchanged, and
 * asked questions whose answers must hold no chrome sentence.
 */
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
          ['re-sync of the unchanged site s', resyncMs / 1000],
          ['re-sync: pages unchanged / 304 answers', `${again.unchanged} / ${notModified}`],
          ['answers (of 50) holding a chrome sentence', chrome],
        ],
        notes: ['The site is served by the same process (one event loop): pages per second is a floor. Concurrency 4, default timeouts.'],
      },
    ];
  } finally {
    await site.close();
    await sql.close();
  }
}
