import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { crawl, CrawlError } from '../../../src/server/knowledge/crawl/crawler.js';
import { CHROME_SENTENCES, serveDocsSite, type DocsSite, type SiteOptions } from '../../helpers/docs-site.js';

const PAGES: SiteOptions['pages'] = {
  '/docs/': { title: 'Acme docs', html: '<p>Acme syncs your files across devices.</p>' },
  '/docs/limits': { title: 'Rate limits', html: '<p>Every token gets 60 requests a minute.</p><h2 id="bursts">Bursts</h2><p>Bursts of ten are allowed.</p><a href="/docs/missing">A page that moved away</a> <a href="/docs/old-auth">Old auth page</a> <a href="/docs/private/roadmap">Roadmap</a> <a href="/blog/launch">Launch post</a> <a href="/docs/search?q=limits">Search limits</a>' },
  '/docs/auth': { title: 'Authentication', html: '<p>Send the token in the Authorization header.</p><pre><code class="language-bash">curl -H "Authorization: Bearer $TOKEN" https://api.acme.test</code></pre>' },
  '/docs/auth-copy': { title: 'Authentication', html: '<p>Send the token in the Authorization header.</p><pre><code class="language-bash">curl -H "Authorization: Bearer $TOKEN" https://api.acme.test</code></pre>', head: '<link rel="canonical" href="/docs/auth">' },
  '/docs/errors': { title: 'Errors', html: '<p>Errors come as JSON with a code and a message.</p><a href="/docs/auth-copy">Auth (copy)</a>' },
  '/docs/private/roadmap': { title: 'Roadmap', html: '<p>Secret plans.</p>' },
  '/blog/launch': { title: 'Launch', html: '<p>We launched.</p>' },
};

let site: DocsSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

const fast = { baseDelayMs: 10, timeoutMs: 5_000 };

describe('crawling a docs site the test serves', () => {
  it('reads robots.txt, the gzipped sitemap behind an index, then links; one page per address', async () => {
    site = await serveDocsSite({
      pages: PAGES,
      robots: 'User-agent: *\nDisallow: /docs/private/\n\nUser-agent: OtherBot\nDisallow: /\n',
      // The sitemap omits /docs/errors: it is found by the links.
      sitemap: ['/docs/', '/docs/limits', '/docs/auth'],
      redirects: { '/docs/old-auth': '/docs/auth' },
      throttleOnce: ['/docs/auth'],
    });
    const progress: number[] = [];
    const result = await crawl(`${site.url}/docs/`, { ...fast, onProgress: (p) => progress.push(p.fetched) });
    const paths = result.pages.map((p) => new URL(p.url).pathname).sort();
    expect(paths).toEqual(['/docs/', '/docs/auth', '/docs/errors', '/docs/limits', '/docs/search']);
    // No chrome reaches the sections.
    const text = JSON.stringify(result.pages.map((p) => p.parsed));
    for (const chrome of CHROME_SENTENCES) expect(text, chrome).not.toContain(chrome);
    expect(text).toContain('Bursts of ten are allowed.');
    const limits = result.pages.find((p) => p.url.endsWith('/docs/limits'))!;
    expect(limits.parsed.sections.map((s) => s.url)).toEqual([`${site.url}/docs/limits`, `${site.url}/docs/limits#bursts`]);
    expect(result.pages.find((p) => p.url.endsWith('/docs/auth'))!.parsed.sections[0]!.lang).toBe('bash');

    const requested = site.requests.map((r) => r.path);
    expect(requested.filter((p) => p.startsWith('/docs/private'))).toEqual([]);
    expect(requested.filter((p) => p.startsWith('/blog'))).toEqual([]);
    expect(requested.filter((p) => p.startsWith('/docs/search'))).toEqual(['/docs/search']);
    // The 429 was retried after its Retry-After.
    expect(site.requests.filter((r) => r.path === '/docs/auth').map((r) => r.status)).toEqual([429, 200]);
    expect(result.failed).toEqual([{ url: `${site.url}/docs/missing`, reason: 'HTTP 404' }]);
    expect(result.gone).toEqual([`${site.url}/docs/missing`]);
    // Whether the redirect's target was read or still in flight when the redirect came depends on timing.
    expect(result.skipped.map((s) => s.reason.replace(', already read', '')).sort()).toEqual([`a duplicate of ${site.url}/docs/auth`, `a redirect to ${site.url}/docs/auth`, 'disallowed by robots.txt']);
    expect(site.requests.every((r) => r.userAgent.includes('support-chat'))).toBe(true);
    expect(result.requests).toBe(site.requests.length);
    expect(result.requests).toBeLessThanOrEqual(2 * result.pages.length + 30);
    expect(progress.at(-1)).toBeGreaterThanOrEqual(result.pages.length);
  });

  it('follows the rules robots.txt gives our user agent rather than *', async () => {
    site = await serveDocsSite({ pages: PAGES, robots: 'User-agent: *\nDisallow: /\n\nUser-agent: support-chat\nDisallow: /docs/errors\nAllow: /docs/\n' });
    const result = await crawl(`${site.url}/docs/`, fast);
    const paths = result.pages.map((p) => new URL(p.url).pathname);
    expect(paths).toContain('/docs/limits');
    expect(paths).not.toContain('/docs/errors');
    expect(site.requests.map((r) => r.path)).not.toContain('/docs/errors');
  });

  it('honours Crawl-delay between requests', async () => {
    site = await serveDocsSite({ pages: { '/docs/': PAGES['/docs/']!, '/docs/auth': PAGES['/docs/auth']! }, robots: 'User-agent: *\nCrawl-delay: 1\n' });
    const started = Date.now();
    const result = await crawl(`${site.url}/docs/`, fast);
    expect(result.pages).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it('stays within --max-pages, --include and --exclude', async () => {
    site = await serveDocsSite({ pages: PAGES, sitemap: ['/docs/', '/docs/limits', '/docs/auth', '/docs/errors'] });
    expect((await crawl(`${site.url}/docs/`, { ...fast, maxPages: 2 })).pages).toHaveLength(2);
    const included = await crawl(`${site.url}/docs/`, { ...fast, include: ['/docs/', '/docs/l*'] });
    expect(included.pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/docs/', '/docs/limits']);
    const excluded = await crawl(`${site.url}/docs/`, { ...fast, exclude: ['*/search*', '/docs/errors'] });
    expect(excluded.pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/docs/', '/docs/auth', '/docs/limits', '/docs/private/roadmap']);
  });

  it('reads query strings as pages when an include pattern names them', async () => {
    site = await serveDocsSite({ pages: PAGES });
    const result = await crawl(`${site.url}/docs/search?q=a`, { ...fast, include: ['/docs/search?q=a', '/docs/search?q=aa'] });
    expect(result.pages.map((p) => new URL(p.url).search).sort()).toEqual(['?q=a', '?q=aa']);
  });

  it('sends ETags back and keeps a page that answers 304, following its stored links', async () => {
    site = await serveDocsSite({ pages: { '/docs/': { title: 'Home', html: '<p>Hello.</p><a href="/docs/auth">Auth</a>' }, '/docs/auth': PAGES['/docs/auth']! } });
    const first = await crawl(`${site.url}/docs/`, fast);
    const known = new Map(first.pages.map((p) => [p.url, { etag: p.etag, lastModified: p.lastModified, links: p.links }]));
    const again = await crawl(`${site.url}/docs/`, { ...fast, known });
    expect(again.pages.map((p) => [new URL(p.url).pathname, p.notModified])).toEqual([
      ['/docs/', true],
      ['/docs/auth', true],
    ]);
  });

  it('fails with one clear error for a bad URL, an unreachable site, or a robots.txt that forbids everything', async () => {
    await expect(crawl('docs.acme.test/guide')).rejects.toThrow(new CrawlError('"docs.acme.test/guide" is not a URL'));
    await expect(crawl('ftp://docs.acme.test/')).rejects.toThrow(/not an http\(s\) URL/);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(crawl(`http://127.0.0.1:${port}/docs/`, { ...fast, retries: 0 })).rejects.toThrow(new RegExp(`^cannot reach http://127.0.0.1:${port}`));
    site = await serveDocsSite({ pages: PAGES, robots: 'User-agent: *\nDisallow: /\n' });
    await expect(crawl(`${site.url}/docs/`, fast)).rejects.toThrow(`${site.url}/robots.txt forbids crawling ${site.url}/docs/`);
    expect(site.requests.map((r) => r.path)).toEqual(['/robots.txt']);
  });
});
