import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { gzipSync } from 'node:zlib';
import { crawl, CrawlError, requestBudget } from '../../../src/server/knowledge/crawl/crawler.js';
import { MAX_REDIRECTS } from '../../../src/server/knowledge/crawl/fetch-page.js';
import { MAX_ROBOTS_BYTES } from '../../../src/server/knowledge/crawl/robots.js';
import { ALLOW_LOCAL_TARGETS_ENV } from '../../../src/server/local-targets.js';
import { ParsePool } from '../../../src/server/knowledge/ingest/parse-worker.js';

/** A site the test writes request by request; every request's path is recorded. */
interface Site {
  url: string;
  paths: string[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function serve(handler: (path: string, res: ServerResponse, req: IncomingMessage) => void): Promise<Site> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '/');
    handler(req.url ?? '/', res, req);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, close: async () => {} };
}

const html = (body: string, head = '') => `<!doctype html><html><head><meta charset="utf-8">${head}</head><body><main>${body}</main></body></html>`;
const page = (res: ServerResponse, body: string, type = 'text/html; charset=utf-8') => res.writeHead(200, { 'content-type': type }).end(body);
const notFound = (res: ServerResponse) => res.writeHead(404).end('not found');
const fast = { baseDelayMs: 5, timeoutMs: 5_000 };

describe('every request of a crawl counts', () => {
  it('stops an endless redirect chain at 5 hops and within the budget of --max-pages', async () => {
    const site = await serve((path, res) => {
      const n = Number(/^\/docs\/r(\d+)$/.exec(path)?.[1] ?? -1);
      if (path === '/docs/') return page(res, html('<h1>Start</h1><p>Go.</p><a href="/docs/r0">chain</a>'));
      if (n >= 0) return res.writeHead(302, { location: `/docs/r${n + 1}` }).end();
      notFound(res);
    });
    const result = await crawl(`${site.url}/docs/`, { ...fast, maxPages: 10 });
    expect(result.requests).toBe(site.paths.length);
    expect(site.paths.filter((p) => p.startsWith('/docs/r'))).toHaveLength(MAX_REDIRECTS + 1);
    expect(result.failed).toContainEqual({ url: `${site.url}/docs/r${MAX_REDIRECTS}`, reason: `over ${MAX_REDIRECTS} redirects` });
  });

  it('counts noindex pages, retried failures and redirects against --max-pages', async () => {
    // A noindex hub links 60 pages: each answers 500 (retried three times), or redirects to one that does.
    const site = await serve((path, res) => {
      if (path === '/docs/') return page(res, html(`<h1>Hub</h1><p>Nothing to index.</p>${Array.from({ length: 60 }, (_, i) => `<a href="/docs/p${i}">p${i}</a>`).join('')}`, '<meta name="robots" content="noindex">'));
      if (/^\/docs\/p\d*[05]$/.test(path)) return res.writeHead(301, { location: `${path}-moved` }).end();
      if (path.startsWith('/docs/p')) return res.writeHead(500).end('broken');
      notFound(res);
    });
    const result = await crawl(`${site.url}/docs/`, { ...fast, maxPages: 10, retries: 3, baseDelayMs: 1 });
    expect(result.pages).toEqual([]);
    expect(site.paths).toHaveLength(requestBudget(10));
    expect(result.requests).toBe(site.paths.length);
    // The addresses held stay bounded.
    expect(result.found).toBeLessThanOrEqual(40);
  });
});

describe('sitemaps are read as a stream, within caps', () => {
  it('stops at 50,000 <loc>s, counted whether in the crawl or not, and reports it', async () => {
    const locs = 60_000;
    const site = await serve((path, res) => {
      if (path === '/robots.txt') return page(res, `Sitemap: ${site.url}/big.xml.gz\n`, 'text/plain');
      if (path === '/big.xml.gz') {
        // Out-of-scope addresses first, then the pages of /docs/ (never reached).
        const body = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: locs }, (_, i) => `<url><loc>${site.url}/blog/post-${i}</loc></url>`).join('')}<url><loc>${site.url}/docs/late</loc></url></urlset>`;
        return res.writeHead(200, { 'content-type': 'application/gzip' }).end(gzipSync(body));
      }
      if (path === '/docs/') return page(res, html('<h1>Docs</h1><p>Hello.</p>'));
      notFound(res);
    });
    const result = await crawl(`${site.url}/docs/`, fast);
    expect(result.failed).toContainEqual({ url: `${site.url}/big.xml.gz`, reason: 'over 50,000 sitemap addresses' });
    expect(site.paths).not.toContain('/docs/late');
    expect(result.pages.map((p) => new URL(p.url).pathname)).toEqual(['/docs/']);
  });

  it('stops reading a sitemap when its request’s time is up: a small gzip of whitespace costs seconds, not a minute', async () => {
    // About 255 KB gzipped, 50 MiB of spaces once inflated.
    const spaces = gzipSync(Buffer.alloc(50 * 1024 * 1024, ' '), { level: 9 });
    const site = await serve((path, res) => {
      if (path === '/robots.txt') return page(res, `Sitemap: ${site.url}/spaces.xml.gz\n`, 'text/plain');
      if (path === '/spaces.xml.gz') return res.writeHead(200, { 'content-type': 'application/gzip' }).end(spaces);
      if (path === '/docs/') return page(res, html('<h1>Docs</h1><p>Hello.</p>'));
      notFound(res);
    });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await crawl(`${site.url}/docs/`, { ...fast, timeoutMs: 1_000 });
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1e6;
    expect(result.failed).toContainEqual({ url: `${site.url}/spaces.xml.gz`, reason: expect.stringMatching(/^not read within \d+ s$/) });
    expect(result.pages.map((p) => new URL(p.url).pathname)).toEqual(['/docs/']);
    expect(seconds).toBeLessThan(6);
    expect(cpuSeconds).toBeLessThan(6);
  }, 120_000);

  it('reads <loc>s in CDATA and with a namespace prefix, not an image’s, and follows an index on its own origin only', async () => {
    const other = await serve((_path, res) => page(res, '<urlset/>', 'application/xml'));
    const site = await serve((path, res) => {
      if (path === '/sitemap.xml') {
        return page(res, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.url}/pages.xml</loc></sitemap><sitemap><loc>${other.url}/sitemap.xml</loc></sitemap></sitemapindex>`, 'application/xml');
      }
      if (path === '/pages.xml') {
        return page(
          res,
          `<?xml version="1.0"?><sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"><sm:url><sm:loc><![CDATA[${site.url}/docs/a]]></sm:loc><image:image><image:loc>${site.url}/docs/b</image:loc></image:image></sm:url><sm:url><sm:loc>${site.url}/docs/c?x=1&amp;y=2</sm:loc></sm:url></sm:urlset>`,
          'application/xml',
        );
      }
      if (path.startsWith('/docs/')) return page(res, html(`<h1>${path}</h1><p>Text of ${path}.</p>`));
      notFound(res);
    });
    const result = await crawl(`${site.url}/docs/`, { ...fast, include: ['/docs/*'] });
    expect(site.paths).toEqual(expect.arrayContaining(['/docs/a', '/docs/c']));
    expect(site.paths).not.toContain('/docs/b');
    expect(other.paths).toEqual([]);
    expect(result.failed).toEqual([]);
  });
});

describe('the crawler stays on its site', () => {
  it('follows robots.txt and sitemap redirects on the same origin only, and ignores Sitemap: lines of other origins', async () => {
    const other = await serve((path, res) => page(res, path === '/robots.txt' ? 'User-agent: *\nAllow: /\n' : '<urlset/>', 'text/plain'));
    const site = await serve((path, res) => {
      if (path === '/robots.txt') return res.writeHead(301, { location: `${other.url}/robots.txt` }).end();
      if (path === '/sitemap.xml') return res.writeHead(302, { location: `${other.url}/internal/admin?action=delete-everything` }).end();
      if (path === '/docs/') return page(res, html('<h1>Docs</h1><p>Hello.</p>'));
      notFound(res);
    });
    await crawl(`${site.url}/docs/`, fast);
    const listing = await serve((path, res) => {
      if (path === '/robots.txt') return page(res, `User-agent: *\nAllow: /\nSitemap: ${other.url}/internal/admin?action=delete-everything\n`, 'text/plain');
      if (path === '/docs/') return page(res, html('<h1>Docs</h1><p>Hello.</p>'));
      notFound(res);
    });
    await crawl(`${listing.url}/docs/`, fast);
    expect(other.paths).toEqual([]);
  });

  it('refuses loopback addresses a public-looking name resolves to when connecting (DNS rebinding), unless allowed', async () => {
    const site = await serve((path, res) => (path === '/docs/' ? page(res, html('<h1>Docs</h1><p>Hello.</p>')) : notFound(res)));
    const port = new URL(site.url).port;
    // The first answer (the start URL's check) is public; every later one, the one the socket uses, is this machine.
    let lookups = 0;
    const rebinding: LookupFunction = (_host, options, callback) => {
      const address = lookups++ === 0 ? '93.184.216.34' : '127.0.0.1';
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    };
    const saved = process.env[ALLOW_LOCAL_TARGETS_ENV];
    delete process.env[ALLOW_LOCAL_TARGETS_ENV];
    try {
      await expect(crawl(`http://docs.rebind.test:${port}/docs/`, { ...fast, lookup: rebinding })).rejects.toThrow(new CrawlError(`cannot reach http://docs.rebind.test:${port}: docs.rebind.test is a loopback, private or link-local address (127.0.0.1); set ${ALLOW_LOCAL_TARGETS_ENV}=true to crawl it`));
      expect(site.paths).toEqual([]);
      expect(lookups).toBe(2);
      // A private network's address, named in a link, is refused as well.
      await expect(crawl('http://10.0.0.7/docs/', { ...fast, allowLocal: false })).rejects.toThrow(/10\.0\.0\.7 is a loopback, private or link-local address/);
      process.env[ALLOW_LOCAL_TARGETS_ENV] = 'true';
      lookups = 0;
      const allowed = await crawl(`http://docs.rebind.test:${port}/docs/`, { ...fast, lookup: rebinding });
      expect(allowed.pages).toHaveLength(1);
    } finally {
      if (saved === undefined) delete process.env[ALLOW_LOCAL_TARGETS_ENV];
      else process.env[ALLOW_LOCAL_TARGETS_ENV] = saved;
    }
  });
});

describe('robots.txt and charsets', () => {
  it('reads robots.txt up to 500 KiB: a long one is obeyed, not treated as absent', async () => {
    const comments = '# a long robots.txt\n'.repeat(Math.ceil((200 * 1024) / 20));
    const site = await serve((path, res) => {
      if (path === '/robots.txt') return page(res, `${comments}User-agent: *\nDisallow: /docs/private\n${'#'.repeat(MAX_ROBOTS_BYTES)}\nDisallow: /docs/\n`, 'text/plain');
      if (path === '/docs/') return page(res, html('<h1>Docs</h1><p>Hello.</p><a href="/docs/private">Private</a>'));
      if (path === '/docs/private') return page(res, html('<h1>Private</h1><p>Secret.</p>'));
      notFound(res);
    });
    const result = await crawl(`${site.url}/docs/`, fast);
    expect(site.paths).not.toContain('/docs/private');
    // What follows the first 500 KiB is not read: /docs/ stays allowed.
    expect(result.pages.map((p) => new URL(p.url).pathname)).toEqual(['/docs/']);
  });

  it('decodes Latin-1 pages by their Content-Type charset or their <meta>', async () => {
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    const site = await serve((path, res) => {
      if (path === '/docs/') return res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' }).end(latin1(`<html><body><nav><a href="/docs/meta">m</a><a href="/docs/equiv">e</a></nav><main><h1>Caf\u00e9</h1><p>Cr\u00e8me br\u00fbl\u00e9e \u00e0 la carte.</p></main></body></html>`));
      if (path === '/docs/meta') return res.writeHead(200, { 'content-type': 'text/html' }).end(latin1(`<html><head><meta charset="iso-8859-1"></head><body><main><h1>Na\u00efve</h1><p>Fa\u00e7ade.</p></main></body></html>`));
      if (path === '/docs/equiv') return res.writeHead(200, { 'content-type': 'text/html' }).end(latin1(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body><main><h1>\u00c9t\u00e9</h1><p>Gar\u00e7on.</p></main></body></html>`));
      notFound(res);
    });
    const result = await crawl(`${site.url}/docs/`, fast);
    const text = Object.fromEntries(result.pages.map((p) => [new URL(p.url).pathname, `${p.parsed.title}: ${p.parsed.sections.map((s) => s.body).join(' ')}`]));
    expect(text).toEqual({ '/docs/': 'Caf\u00e9: Cr\u00e8me br\u00fbl\u00e9e \u00e0 la carte.', '/docs/meta': 'Na\u00efve: Fa\u00e7ade.', '/docs/equiv': '\u00c9t\u00e9: Gar\u00e7on.' });
  });
});

describe('hostile pages are read off the event loop, within a budget', () => {
  it('skips and reports a page over the element budget or out of time, and reads the others', async () => {
    const site = await serve((path, res) => {
      if (path === '/docs/') return page(res, html('<h1>Docs</h1><p>Hello.</p><a href="/docs/deep">d</a><a href="/docs/slow">s</a><a href="/docs/fine">f</a>'));
      // Nested <b><i> to the 5 MiB cap.
      if (path === '/docs/deep') return page(res, html('<b><i>x'.repeat(Math.floor((5 * 1024 * 1024 - 200) / 7))));
      if (path === '/docs/slow') return page(res, html('<a href="/docs/fine">'.repeat(5_000)));
      if (path === '/docs/fine') return page(res, html('<h1>Fine</h1><p>Still read.</p>'));
      notFound(res);
    });
    // A pool whose time budget the 5,000 unclosed links exceed on any machine.
    const parser = new ParsePool({ size: 1, timeoutMs: 1 });
    const quick = new ParsePool({ size: 2 });
    try {
      const slowResult = await crawl(`${site.url}/docs/slow`, { ...fast, parser });
      expect(slowResult.failed).toEqual([{ url: `${site.url}/docs/slow`, reason: 'not read: took over 0.001 s to read' }]);
      const result = await crawl(`${site.url}/docs/`, { ...fast, parser: quick });
      expect(result.failed).toEqual([{ url: `${site.url}/docs/deep`, reason: 'not read: elements nested over 512 deep' }]);
      expect(result.pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/docs/', '/docs/fine', '/docs/slow']);
    } finally {
      await Promise.all([parser.close(), quick.close()]);
    }
  });

  it('keeps the event loop turning while a page is read', async () => {
    const pool = new ParsePool({ size: 1 });
    try {
      await pool.parse(Buffer.from(html('<p>warm</p>')), 'text/html', { url: 'https://docs.acme.test/', fallbackTitle: 'x' });
      // 40,000 divs nested 400 deep: a second or more of work wherever it runs.
      const heavy = Buffer.from(html(('<div>'.repeat(400) + 'x' + '</div>'.repeat(400)).repeat(100)));
      let last = performance.now();
      let longest = 0;
      const timer = setInterval(() => {
        longest = Math.max(longest, performance.now() - last);
        last = performance.now();
      }, 5);
      const started = performance.now();
      const parsed = await pool.parse(heavy, 'text/html', { url: 'https://docs.acme.test/', fallbackTitle: 'x' });
      const took = performance.now() - started;
      clearInterval(timer);
      longest = Math.max(longest, performance.now() - last);
      expect(parsed.sections).toHaveLength(1);
      // Read on the main thread, the page would be one gap as long as the whole read.
      expect(longest, `longest pause ${longest.toFixed(0)} ms of ${took.toFixed(0)} ms`).toBeLessThan(took / 2);
    } finally {
      await pool.close();
    }
  });
});
