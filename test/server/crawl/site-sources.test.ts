import { afterEach, describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { SiteSync } from '../../../src/server/knowledge/sources/site-sync.js';
import { CHROME_SENTENCES, serveDocsSite, type DocsSite, type SiteOptions } from '../../helpers/docs-site.js';
import { testDatabases } from '../../helpers/database.js';

const database = testDatabases();
let site: DocsSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

const PAGES = (): SiteOptions['pages'] => ({
  '/docs/': { title: 'Acme docs', html: '<p>Acme syncs your files across devices.</p>' },
  '/docs/limits': { title: 'Rate limits', html: '<p>Every API token gets 60 requests a minute.</p><h2 id="bursts">Bursts</h2><p>Bursts of ten requests are allowed.</p>' },
  '/docs/refunds': { title: 'Refunds', html: '<p>Refunds are paid back to the original card within five business days.</p>' },
  '/docs/export': { title: 'Export', html: '<p>Export your vault as a zip archive from Settings.</p>' },
  '/docs/sso': { title: 'Single sign-on', html: '<p>SAML single sign-on is available on the Business plan.</p>' },
  '/docs/errors': { title: 'Errors', html: '<p>Errors come as JSON with a code and a message.</p>' },
});

const crawlOptions = { crawl: { baseDelayMs: 10, timeoutMs: 5_000 } };
const ask = (engine: ReturnType<typeof createAnswerEngine>, question: string) =>
  engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });

describe("an organization's docs site as a source", () => {
  it('is crawled into answers without chrome, listed with its last sync, and synced by change', async () => {
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    site = await serveDocsSite({ pages: PAGES(), robots: null });
    const report = await engine.ingest('acme', [`${site.url}/docs/`], { ...crawlOptions, exclude: ['/docs/private*'] });
    expect([report.pages, report.added, report.failed]).toEqual([6, 6, []]);

    const answer = await ask(engine, 'How long do refunds take?');
    expect(answer.content).toContain('five business days');
    expect(answer.sources[0]!.url).toBe(`${site.url}/docs/refunds`);
    const limits = await ask(engine, 'How many requests a minute does a token get?');
    for (const chrome of CHROME_SENTENCES) expect(limits.content).not.toContain(chrome);

    const [source] = await engine.sources('acme');
    expect(source).toMatchObject({ source: `${site.url}/docs/`, kind: 'url', status: 'ok', pages: 6, sections: 7, failures: [], options: { exclude: ['/docs/private*'] } });
    expect(source!.syncedAt).not.toBeNull();

    // Unchanged: every page answers 304 to its ETag and nothing is written.
    site.requests.length = 0;
    const again = await engine.sync('acme');
    expect([again.sources, again.pages, again.unchanged, again.added, again.updated, again.removed]).toEqual([1, 6, 6, 0, 0, 0]);
    expect(site.requests.filter((r) => r.status === 304)).toHaveLength(6);

    // A changed page is replaced, a page gone (404) is dropped, a new one added.
    site.options.pages['/docs/refunds'] = { title: 'Refunds', html: '<p>Refunds are paid back within ten business days.</p>' };
    delete site.options.pages['/docs/sso'];
    site.options.pages['/docs/teams'] = { title: 'Teams', html: '<p>Invite your team from the Members page.</p>' };
    const changed = await engine.sync('acme');
    expect([changed.added, changed.updated, changed.removed]).toEqual([1, 1, 1]);
    expect((await ask(engine, 'How long do refunds take?')).content).toContain('ten business days');
    expect((await engine.sources('acme'))[0]!.pages).toBe(6);
  });

  it('is fetched whole and parsed again into passages after an upgrade from a knowledge base stored before them, not asked whether it changed', async () => {
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    site = await serveDocsSite({ pages: PAGES(), robots: null });
    await engine.ingest('acme', [`${site.url}/docs/`], crawlOptions);
    // What kb migration 4 leaves of sections stored before the passage model: no passage, every document's hash cleared.
    await sql.run('UPDATE kb_sections SET passage = NULL');
    await sql.run("UPDATE kb_documents SET hash = ''");

    site.requests.length = 0;
    const upgraded = await engine.sync('acme');
    expect([upgraded.unchanged, upgraded.updated, upgraded.reparsed]).toEqual([0, 6, 7]);
    expect(site.requests.filter((r) => r.status === 304)).toHaveLength(0);
    expect((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM kb_sections WHERE passage IS NULL'))!.n).toBe(0);

    site.requests.length = 0;
    const again = await engine.sync('acme');
    expect([again.unchanged, again.updated, again.reparsed]).toEqual([6, 0, 0]);
    expect(site.requests.filter((r) => r.status === 304)).toHaveLength(6);
  });

  it('keeps the previous pages when a sync finds far fewer or mostly empty pages, and reports it', async () => {
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    site = await serveDocsSite({ pages: PAGES(), robots: null, etags: false });
    await engine.ingest('acme', [`${site.url}/docs/`], crawlOptions);

    // A redesign moved the content out of <main>/<article>: every page is empty.
    for (const page of Object.values(site.options.pages)) page.html = '';
    const emptied = await engine.sync('acme');
    expect(emptied.failed.map((f) => f.reason)).toEqual([expect.stringMatching(/^6 of 6 pages have no text .*: the previous pages are kept$/)]);
    expect((await ask(engine, 'How long do refunds take?')).content).toContain('five business days');
    expect((await engine.sources('acme'))[0]).toMatchObject({ status: 'kept', pages: 6 });

    // The site now answers one page: the others are not dropped.
    site.options.pages = { '/docs/': { title: 'Moved', html: '<p>We moved to docs.acme.example.</p>' } };
    const shrunk = await engine.sync('acme');
    // Its pagination still links to /docs/errors, which answers 404 now.
    expect(shrunk.failed.map((f) => f.reason)).toEqual(['HTTP 404', 'found 1 pages where the site held 6 in the last 30 days: the previous pages are kept']);
    expect(shrunk.removed).toBe(0);
    expect((await engine.stats('acme')).documents).toBe(6);
  });

  it('keeps a site that shrinks sync after sync (7 → 4 → 2 → 0) at the most it held in 30 days, however small', async () => {
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    const seven = { ...PAGES(), '/docs/teams': { title: 'Teams', html: '<p>Invite your team from the Members page.</p>' } };
    site = await serveDocsSite({ pages: seven, robots: null });
    await engine.ingest('acme', [`${site.url}/docs/`], crawlOptions);
    expect((await engine.stats('acme')).documents).toBe(7);
    const shrinkTo = (paths: string[]) => (site!.options.pages = Object.fromEntries(Object.entries(seven).filter(([path]) => paths.includes(path))));

    // Four of seven: more than half, so the sync stands.
    shrinkTo(['/docs/', '/docs/limits', '/docs/refunds', '/docs/errors']);
    expect((await engine.sync('acme')).removed).toBe(3);
    // Two, then none: under half of the seven held this month, though the last sync held four.
    shrinkTo(['/docs/', '/docs/errors']);
    const two = await engine.sync('acme');
    expect(two.failed.at(-1)!.reason).toBe('found 2 pages where the site held 7 in the last 30 days: the previous pages are kept');
    shrinkTo([]);
    await expect(engine.sync('acme')).resolves.toMatchObject({ removed: 0 });
    expect((await engine.stats('acme')).documents).toBe(4);
    expect((await engine.sources('acme'))[0]).toMatchObject({ status: 'kept', pages: 4 });
    expect((await engine.sources('acme'))[0]!.failures[0]!.reason).toMatch(/^found 0 pages where the site held 7/);

    // A site of three pages is guarded too.
    const small = createAnswerEngine({ sql, llm: null, embedder: null });
    const three = await serveDocsSite({ pages: { '/docs/': PAGES()['/docs/']!, '/docs/limits': PAGES()['/docs/limits']!, '/docs/refunds': PAGES()['/docs/refunds']! }, robots: null });
    try {
      await small.ingest('small', [`${three.url}/docs/`], crawlOptions);
      three.options.pages = { '/docs/': PAGES()['/docs/']! };
      expect((await small.sync('small')).removed).toBe(0);
      expect((await small.sources('small'))[0]!.status).toBe('kept');
    } finally {
      await three.close();
    }
  });

  it('keeps the previous pages when every address answers one maintenance page, until kb sync --accept or a healthy sync', async () => {
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    site = await serveDocsSite({ pages: PAGES(), robots: null });
    await engine.ingest('acme', [`${site.url}/docs/`], crawlOptions);
    const healthy = site.options.pages;
    site.options.pages = Object.fromEntries(Object.keys(healthy).map((path) => [path, { title: 'Down for maintenance', html: '<p>We will be back soon.</p>' }]));
    const down = await engine.sync('acme');
    expect(down.failed.map((f) => f.reason)).toEqual(['6 of 6 pages now say the same thing (a maintenance or error page?): the previous pages are kept']);
    expect((await ask(engine, 'How long do refunds take?')).content).toContain('five business days');
    expect((await engine.sources('acme'))[0]).toMatchObject({ status: 'kept' });

    // Kept again at the next sync; a healthy sync clears it.
    expect((await engine.sync('acme')).failed).toHaveLength(1);
    site.options.pages = healthy;
    expect((await engine.sync('acme')).failed).toEqual([]);
    expect((await engine.sources('acme'))[0]).toMatchObject({ status: 'ok', failures: [] });

    // The owner accepts a site that really shrank: its pages are replaced, and later syncs measure from there.
    site.options.pages = { '/docs/': healthy['/docs/']!, '/docs/errors': healthy['/docs/errors']! };
    expect((await engine.sync('acme')).failed.at(-1)!.reason).toMatch(/^found 2 pages where the site held 6/);
    const accepted = await engine.sync('acme', { accept: true });
    expect([accepted.removed, accepted.failed]).toEqual([4, []]);
    expect((await engine.sync('acme')).failed).toEqual([]);
    expect((await engine.sources('acme'))[0]).toMatchObject({ status: 'ok', pages: 2 });
  });

  it('is synced in the background by one process at a time', async () => {
    const sql = await database();
    site = await serveDocsSite({ pages: PAGES(), robots: null });
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    await engine.ingest('acme', [`${site.url}/docs/`], crawlOptions);
    // Two processes' schedulers over one database: the site is synced once, then not again until due.
    const runs: string[] = [];
    const scheduler = (name: string) => new SiteSync({ sql, everyMs: 60 * 60_000, ingestSource: (orgId, source) => (runs.push(name), engine.sync(orgId, { only: source, ...crawlOptions })) });
    const [a, b] = await Promise.all([scheduler('a').runOnce(), scheduler('b').runOnce()]);
    expect(a + b).toBe(1);
    expect(runs).toHaveLength(1);
    expect(await scheduler('c').runOnce()).toBe(0);
  });

  it('is a clear error when the site cannot be crawled, recorded on the source', async () => {
    const sql = await database();
    const engine = createAnswerEngine({ sql, llm: null, embedder: null });
    site = await serveDocsSite({ pages: PAGES(), robots: 'User-agent: *\nDisallow: /\n' });
    await expect(engine.ingest('acme', [`${site.url}/docs/`], crawlOptions)).rejects.toThrow(`${site.url}/robots.txt forbids crawling ${site.url}/docs/`);
    expect((await engine.sources('acme'))[0]).toMatchObject({ status: 'failed', failures: [{ url: `${site.url}/docs/`, reason: `${site.url}/robots.txt forbids crawling ${site.url}/docs/` }] });
    await expect(engine.ingest('acme', ['ftp://x/'], crawlOptions)).rejects.toThrow('"ftp://x/" is not an http(s) URL');
  });
});
