/** @module A docs website the tests serve locally: real HTTP, real chrome on every page, robots.txt, sitemaps, redirects, a 404 link, a canonical duplicate and an endless search page. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface DocPage {
  title: string;
  /** The article's HTML (inside `<article>`). */
  html: string;
  /** Extra `<head>` content (a canonical link). */
  head?: string;
}

export interface SiteOptions {
  pages: Record<string, DocPage>;
  /** robots.txt as served (`null`: 404). */
  robots?: string | null;
  /** Pages listed by the sitemap (gzipped, behind a sitemap index); others are found by links. */
  sitemap?: string[];
  /** Path → where it redirects. */
  redirects?: Record<string, string>;
  /** Answers 429 (Retry-After: 1) to the first request of these paths. */
  throttleOnce?: string[];
  /** Sends ETags and answers If-None-Match with 304. @default true */
  etags?: boolean;
}

export interface DocsSite {
  url: string;
  /** Every request: method, path with query, user agent, and the status answered. */
  requests: { path: string; userAgent: string; status: number }[];
  options: SiteOptions;
  close(): Promise<void>;
}

/** The chrome docs sites put around every page: header, sidebar, breadcrumbs, TOC, cookie banner, feedback, prev/next, footer. */
export function withChrome(page: DocPage, links: string[]): string {
  const nav = links.map((l) => `<li><a href="${l}">Sidebar entry ${l.split('/').filter(Boolean).join(' ')}</a></li>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${page.title} | Acme Docs</title>${page.head ?? ''}</head><body>
<a class="skip-link" href="#content">Skip to main content</a>
<header class="navbar"><a href="/docs/">Acme Docs home</a><form action="/docs/search"><input name="q"><button>Search the docs</button></form></header>
<div id="cookie-banner" class="cookie-consent">We use cookies to personalise your experience. <button>Accept all cookies</button></div>
<div class="page">
<aside class="sidebar"><nav><ul>${nav}</ul></nav></aside>
<main id="content">
<nav class="breadcrumbs" aria-label="Breadcrumbs"><a href="/docs/">Docs home page</a> › ${page.title}</nav>
<article><h1>${page.title}</h1>
${page.html}
<footer class="theme-doc-footer"><a href="https://github.com/acme/docs/edit/main/page.md">Edit this page</a> <span class="last-updated">Last updated on Nov 2, 2026</span></footer>
<div class="feedback"><p>Was this page helpful?</p><button>Yes, thanks</button><button>Not really</button></div>
<nav class="pagination-nav"><a href="/docs/">Previous page of the guide</a><a href="/docs/errors">Next page of the guide</a></nav>
</article>
<div class="table-of-contents"><p>On this page</p><ul><li><a href="#top">Back to the top of the guide</a></li></ul></div>
</main></div>
<footer class="footer"><p>Copyright © 2026 Acme Corporation. Built with love in Lisbon.</p></footer>
</body></html>`;
}

/** The sentences of the chrome above, none of which may reach an answer. */
export const CHROME_SENTENCES = ['Skip to main content', 'Acme Docs home', 'Search the docs', 'We use cookies', 'Accept all cookies', 'Sidebar entry', 'Docs home page', 'Edit this page', 'Last updated', 'Was this page helpful', 'Yes, thanks', 'Not really', 'Previous page of the guide', 'Next page of the guide', 'On this page', 'Back to the top', 'Copyright', 'Built with love'];

function sitemapXml(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`;
}

/** Serves a docs site on 127.0.0.1; every request is recorded. */
export async function serveDocsSite(options: SiteOptions): Promise<DocsSite> {
  const requests: DocsSite['requests'] = [];
  const throttled = new Set<string>();
  let origin = '';
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname;
    const answer = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
      requests.push({ path: url.pathname + url.search, userAgent: req.headers['user-agent'] ?? '', status });
      res.writeHead(status, headers).end(body);
    };
    const site = options;
    if (path === '/robots.txt') return site.robots === null || site.robots === undefined ? answer(404, 'not found') : answer(200, site.robots, { 'content-type': 'text/plain' });
    if (path === '/sitemap.xml' && site.sitemap) {
      return answer(200, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemaps/docs.xml.gz</loc></sitemap></sitemapindex>`, { 'content-type': 'application/xml' });
    }
    if (path === '/sitemaps/docs.xml.gz' && site.sitemap) return answer(200, gzipSync(sitemapXml(site.sitemap.map((p) => origin + p))), { 'content-type': 'application/gzip' });
    if (site.redirects?.[path]) return answer(301, '', { location: site.redirects[path] });
    if (site.throttleOnce?.includes(path) && !throttled.has(path)) {
      throttled.add(path);
      return answer(429, 'slow down', { 'retry-after': '1' });
    }
    if (path === '/docs/search') {
      // A search page whose every link is another query: endless unless queries are dropped.
      const q = url.searchParams.get('q') ?? '';
      return answer(200, withChrome({ title: 'Search', html: `<p>Results for ${q || 'nothing'}.</p><a href="/docs/search?q=${q}a">More results</a> <a href="/docs/search?q=${q}b&page=2">Next results</a>` }, []), { 'content-type': 'text/html; charset=utf-8' });
    }
    const page = site.pages[path];
    if (!page) return answer(404, '<h1>Not found</h1>', { 'content-type': 'text/html' });
    const html = withChrome(page, Object.keys(site.pages));
    const etag = `"${Buffer.from(html).toString('base64url').slice(-24)}-${html.length}"`;
    if (site.etags !== false && req.headers['if-none-match'] === etag) return answer(304, '', { etag });
    return answer(200, html, { 'content-type': 'text/html; charset=utf-8', ...(site.etags !== false ? { etag } : {}) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    requests,
    options,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
