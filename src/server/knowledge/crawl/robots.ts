/** @module A site's robots.txt, read by robots-parser: which paths our user agent may fetch, how often, and its sitemaps. */
import robotsParserModule from 'robots-parser';
import { fetchPage, ROBOTS_AGENT, type FetchOptions } from './fetch-page.js';

/** The package is CommonJS: its `module.exports` is the function its types call `default`. */
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** robots.txt files are read up to this size (RFC 9309 asks for at least 500 KiB; docs sites' are a few lines). */
const MAX_ROBOTS_BYTES = 128 * 1024;
/** The longest `Crawl-delay` honoured, in seconds: a longer one is read as this. */
export const MAX_CRAWL_DELAY_S = 10;

export interface Robots {
  allowed(url: string): boolean;
  /** Seconds between requests the site asks of our user agent (or `*`), at most `MAX_CRAWL_DELAY_S`. */
  crawlDelay: number;
  sitemaps: string[];
  /** Requests made to read it. */
  requests: number;
}

/**
 * The rules of the site at `origin`. A missing robots.txt (4xx) allows everything; one that cannot
 * be read because the server fails (5xx after retries) forbids everything, as RFC 9309 says.
 * Throws `FetchError` when the site does not answer at all.
 */
export async function readRobots(origin: string, options: FetchOptions): Promise<Robots> {
  const url = `${origin}/robots.txt`;
  const fetched = await fetchPage(url, { ...options, maxBytes: MAX_ROBOTS_BYTES }).catch((error: unknown) => {
    if (error instanceof Error && /larger than/.test(error.message)) return null;
    throw error;
  });
  if (!fetched || (fetched.status >= 400 && fetched.status < 500)) return { allowed: () => true, crawlDelay: 0, sitemaps: [], requests: fetched?.requests ?? 1 };
  if (fetched.status >= 500) return { allowed: () => false, crawlDelay: 0, sitemaps: [], requests: fetched.requests };
  const robots = robotsParser(url, fetched.body.toString('utf8'));
  const delay = robots.getCrawlDelay(ROBOTS_AGENT) ?? 0;
  return {
    allowed: (page) => robots.isAllowed(page, ROBOTS_AGENT) !== false,
    crawlDelay: Math.min(Math.max(0, delay), MAX_CRAWL_DELAY_S),
    sitemaps: robots.getSitemaps(),
    requests: fetched.requests,
  };
}
