/** @module A site's robots.txt, read by robots-parser: which paths our user agent may fetch, how often, and its sitemaps. */
import robotsParserModule from 'robots-parser';
import { fetchWithin, RedirectError, ROBOTS_AGENT, type FetchOptions } from './fetch-page.js';

/** The package is CommonJS: its `module.exports` is the function its types call `default`. */
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** robots.txt files are read up to this size, and what follows is ignored (RFC 9309 asks that at least 500 KiB be read). */
export const MAX_ROBOTS_BYTES = 500 * 1024;
/** The longest `Crawl-delay` honoured, in seconds: a longer one is read as this. */
export const MAX_CRAWL_DELAY_S = 10;

export interface Robots {
  allowed(url: string): boolean;
  /** Seconds between requests the site asks of our user agent (or `*`), at most `MAX_CRAWL_DELAY_S`. */
  crawlDelay: number;
  /** The sitemaps it names on the site's own origin (another origin's are ignored). */
  sitemaps: string[];
  /** Requests made to read it. */
  requests: number;
}

/**
 * The rules of the site at `origin`. A missing robots.txt (4xx) allows everything; one that cannot
 * be read because the server fails (5xx after retries) forbids everything, as RFC 9309 says.
 * Redirects are followed on the same origin, five hops at most: one that goes further or elsewhere
 * makes it unavailable (as a 4xx). Throws `FetchError` when the site does not answer at all.
 */
export async function readRobots(origin: string, options: FetchOptions): Promise<Robots> {
  const url = `${origin}/robots.txt`;
  const sameOrigin = (address: string): boolean => URL.canParse(address) && new URL(address).origin === origin;
  const fetched = await fetchWithin(url, { ...options, maxBytes: MAX_ROBOTS_BYTES, truncate: true, allowed: sameOrigin }).catch((error: unknown) => {
    if (error instanceof RedirectError) return { status: 404, requests: error.requests, body: Buffer.alloc(0) };
    throw error;
  });
  if (fetched.status >= 300 && fetched.status < 500) return { allowed: () => true, crawlDelay: 0, sitemaps: [], requests: fetched.requests };
  if (fetched.status >= 500) return { allowed: () => false, crawlDelay: 0, sitemaps: [], requests: fetched.requests };
  const robots = robotsParser(url, fetched.body.toString('utf8'));
  const delay = robots.getCrawlDelay(ROBOTS_AGENT) ?? 0;
  return {
    allowed: (page) => robots.isAllowed(page, ROBOTS_AGENT) !== false,
    crawlDelay: Math.min(Math.max(0, delay), MAX_CRAWL_DELAY_S),
    sitemaps: robots.getSitemaps().filter(sameOrigin),
    requests: fetched.requests,
  };
}
