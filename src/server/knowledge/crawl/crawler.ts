/**
 * @module A docs site read by its address: robots.txt, then its sitemaps, then the links of its
 * pages, within the start URL's origin and path; one page per canonical address, a few requests at
 * a time, as the site's robots.txt allows. Every request a crawl makes (pages, redirects, retries,
 * failures, robots.txt, sitemaps) is drawn from one budget set by `maxPages`; redirect chains are
 * followed 5 hops at most; the addresses it holds are bounded; pages are read off the event loop
 * (see parse-worker.ts); loopback, private and link-local addresses are refused unless the start
 * URL is one (see http.ts).
 */
import { createHash } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { localTargetsAllowed } from '../../local-targets.js';
import type { ContentOptions } from '../ingest/html.js';
import { parsePool, type ParsePool } from '../ingest/parse-worker.js';
import type { ParsedFile } from '../ingest/sections.js';
import { BudgetError, fetchPage, FetchError, MAX_REDIRECTS, RequestBudget, type FetchOptions } from './fetch-page.js';
import { isLocalHost, siteFetch } from './http.js';
import { readRobots } from './robots.js';
import { Scope, type Patterns } from './scope.js';
import { readSitemaps } from './sitemap.js';

/** Pages read per crawl unless `maxPages` says otherwise: a large docs site, not the whole web. */
export const DEFAULT_MAX_PAGES = 1_000;
/** Requests in flight at once, per crawl. */
export const DEFAULT_CONCURRENCY = 4;

/** The requests a crawl of `maxPages` may make, of every kind: two per page, and a few for robots.txt and sitemaps. */
export const requestBudget = (maxPages: number): number => 2 * maxPages + 20;
/** Addresses a crawl holds at most (queued, read or skipped), per page it may read. */
const ADDRESSES_PER_PAGE = 4;

export interface CrawlOptions extends FetchOptions, Patterns, ContentOptions {
  /** @default DEFAULT_MAX_PAGES */
  maxPages?: number;
  /** @default DEFAULT_CONCURRENCY */
  concurrency?: number;
  /** Least time between two requests' starts, in ms; the site's `Crawl-delay` when longer. @default 0 */
  delayMs?: number;
  /** What an earlier crawl stored of each page (by address): sent as conditional headers; a 304 keeps the page and follows its links. */
  known?: Map<string, KnownPage>;
  onProgress?(progress: CrawlProgress): void;
  /**
   * Whether loopback, private and link-local addresses may be crawled.
   * @default true when the start URL is one or `SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true`, else false
   */
  allowLocal?: boolean;
  /** Stand-in for the system's DNS lookup (tests). */
  lookup?: LookupFunction;
  /** Where pages are read. @default the process's pool (`parsePool()`) */
  parser?: ParsePool;
}

export interface KnownPage {
  etag: string | null;
  lastModified: string | null;
  links: string[];
}

export interface CrawlProgress {
  found: number;
  fetched: number;
  skipped: number;
  failed: number;
  url: string;
}

export interface CrawledPage {
  /** The page's address: its canonical link when that is in the crawl, else where it was answered from. */
  url: string;
  parsed: ParsedFile;
  /** Hash of the extracted sections: a page changes when its content does (CDNs rewrite Last-Modified). */
  hash: string;
  etag: string | null;
  lastModified: string | null;
  /** The page's in-scope links, kept so a later 304 still leads to them. */
  links: string[];
  /** Answered 304: `parsed` is empty and the stored page stands. */
  notModified: boolean;
}

export interface CrawlResult {
  start: string;
  pages: CrawledPage[];
  found: number;
  skipped: { url: string; reason: string }[];
  failed: { url: string; reason: string }[];
  /** Addresses that answered 404 or 410: their stored pages go. */
  gone: string[];
  /** Requests made, of every kind (at most `requestBudget(maxPages)`). */
  requests: number;
}

/** A crawl that cannot start: not an http(s) URL, a site that does not answer, or a robots.txt that forbids it. */
export class CrawlError extends Error {
  override name = 'CrawlError';
}

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

/** Hash of what a page says, for change detection. */
export function contentHash(parsed: ParsedFile): string {
  const hash = createHash('sha256').update(parsed.title);
  for (const s of parsed.sections) hash.update('\0').update(s.title).update('\0').update(s.url).update('\0').update(s.body).update('\0').update(s.code);
  return hash.digest('hex');
}

/** Reads a docs site from `start`. Throws `CrawlError` when it cannot start; pages that fail are reported in the result. */
export async function crawl(start: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  let startUrl: URL;
  try {
    startUrl = new URL(start);
  } catch {
    throw new CrawlError(`"${start}" is not a URL`);
  }
  if (startUrl.protocol !== 'http:' && startUrl.protocol !== 'https:') throw new CrawlError(`"${start}" is not an http(s) URL`);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const scope = new Scope(startUrl, options);
  const first = scope.page(startUrl.href);
  if (!first) throw new CrawlError(`${start} is excluded by --include/--exclude`);

  const allowLocal = options.allowLocal ?? (localTargetsAllowed(process.env) || (await isLocalHost(startUrl.hostname, options.lookup)));
  const budget = new RequestBudget(requestBudget(maxPages));
  const fetchOptions: FetchOptions = { ...options, fetch: options.fetch ?? siteFetch({ allowLocal, lookup: options.lookup }), budget };
  const parser = options.parser ?? parsePool();

  const robots = await readRobots(scope.origin, fetchOptions).catch((error: unknown) => {
    throw new CrawlError(`cannot reach ${scope.origin}: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (!robots.allowed(first)) throw new CrawlError(`${scope.origin}/robots.txt forbids crawling ${first}`);

  const result: CrawlResult = { start: first, pages: [], found: 0, skipped: [], failed: [], gone: [], requests: 0 };
  const queued = new Set<string>();
  const queue: string[] = [];
  const maxAddresses = maxPages * ADDRESSES_PER_PAGE;
  const enqueue = (url: string | null): void => {
    if (!url || queued.has(url) || queued.size >= maxAddresses) return;
    queued.add(url);
    queue.push(url);
    result.found++;
  };
  enqueue(first);

  const sitemaps = robots.sitemaps.length > 0 ? robots.sitemaps : [`${scope.origin}/sitemap.xml`];
  const fromSitemaps = await readSitemaps(sitemaps, {
    ...fetchOptions,
    limit: maxPages * 2,
    keep: (url) => scope.page(url) !== null,
    allowed: (url) => URL.canParse(url) && new URL(url).origin === scope.origin,
  });
  for (const page of fromSitemaps.pages) enqueue(scope.page(page));

  /**
   * A link's address; links from the site's root (`/docs/x`, most of a docs site's, repeated on
   * every page by its sidebar) are resolved once per crawl.
   */
  const resolved = new Map<string, string | null>();
  const pageOf = (href: string, base: string): string | null => {
    if (!href.startsWith('/') || href.startsWith('//')) return scope.page(href, base);
    let address = resolved.get(href);
    if (address === undefined) {
      address = scope.page(href, base);
      if (resolved.size < maxPages * 20) resolved.set(href, address);
    }
    return address;
  };

  /** Addresses a page was stored under or answered from: a second address of the same page is a duplicate. */
  const done = new Set<string>();
  /** Redirect targets, with the hops of the chain that led to them. */
  const hops = new Map<string, number>();
  let fetched = 0;
  let nextStart = 0;
  const interval = Math.max(options.delayMs ?? 0, robots.crawlDelay * 1000);
  const progress = (url: string) => options.onProgress?.({ found: result.found, fetched, skipped: result.skipped.length, failed: result.failed.length, url });

  /** Waits until this request may start: requests' starts are `interval` apart. */
  const polite = async (): Promise<void> => {
    if (interval <= 0) return;
    const now = Date.now();
    const at = Math.max(now, nextStart);
    nextStart = at + interval;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  };

  const visit = async (url: string): Promise<void> => {
    if (done.has(url)) return;
    if (!robots.allowed(url)) {
      result.skipped.push({ url, reason: 'disallowed by robots.txt' });
      return;
    }
    const known = options.known?.get(url);
    await polite();
    let response;
    try {
      response = await fetchPage(url, { ...fetchOptions, redirect: 'manual', etag: known?.etag, lastModified: known?.lastModified });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // Not reached for want of requests: kept, as a page over --max-pages.
      if (error instanceof BudgetError) result.skipped.push({ url, reason: `over --max-pages ${maxPages}` });
      else result.failed.push({ url, reason: error instanceof FetchError ? error.message : String(error) });
      return;
    }
    fetched++;
    if (response.status === 304 && known) {
      done.add(url);
      result.pages.push({ url, parsed: { title: '', sections: [] }, hash: '', etag: response.etag ?? known.etag, lastModified: response.lastModified ?? known.lastModified, links: known.links, notModified: true });
      // Stored links are addresses already: one already queued costs a set lookup, not a parse.
      for (const link of known.links) if (!queued.has(link)) enqueue(scope.page(link));
      return;
    }
    if (response.status >= 300 && response.status < 400 && response.location) {
      // Redirects are followed here, once: a target already read or queued is not requested again.
      const target = scope.page(response.location, url);
      const hop = (hops.get(url) ?? 0) + 1;
      if (!target) result.skipped.push({ url, reason: `redirected out of the crawl to ${URL.canParse(response.location, url) ? new URL(response.location, url).href : response.location}` });
      else if (done.has(target) || queued.has(target)) result.skipped.push({ url, reason: `a redirect to ${target}${done.has(target) ? ', already read' : ''}` });
      else if (hop > MAX_REDIRECTS) result.failed.push({ url, reason: `over ${MAX_REDIRECTS} redirects` });
      else {
        result.skipped.push({ url, reason: `a redirect to ${target}` });
        hops.set(target, hop);
        enqueue(target);
      }
      return;
    }
    if (response.status === 404 || response.status === 410) {
      result.gone.push(url);
      result.failed.push({ url, reason: `HTTP ${response.status}` });
      return;
    }
    if (response.status !== 200) {
      result.failed.push({ url, reason: `HTTP ${response.status}` });
      return;
    }
    const answeredFrom = scope.page(response.url);
    if (!answeredFrom) {
      result.skipped.push({ url, reason: `redirected out of the crawl to ${response.url}` });
      return;
    }
    if (answeredFrom !== url && done.has(answeredFrom)) {
      result.skipped.push({ url, reason: `a redirect to ${answeredFrom}, already read` });
      return;
    }
    const type = response.contentType.split(';')[0]!.trim().toLowerCase();
    if (type && !HTML_TYPES.includes(type)) {
      result.skipped.push({ url, reason: `not a page (${type})` });
      return;
    }
    let page;
    try {
      page = await parser.parse(response.body, response.contentType, { url: answeredFrom, fallbackTitle: answeredFrom, contentSelector: options.contentSelector, excludeSelectors: options.excludeSelectors });
    } catch (error) {
      // Over the parse budget (see parse-worker.ts), or its thread failed: this page alone is lost.
      result.failed.push({ url, reason: `not read: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    const base = page.base ? new URL(page.base, answeredFrom).href : answeredFrom;
    const canonical = page.canonical ? scope.page(page.canonical, base) : null;
    const address = canonical ?? answeredFrom;
    if (done.has(address)) {
      result.skipped.push({ url, reason: `a duplicate of ${address}` });
      return;
    }
    done.add(url);
    done.add(answeredFrom);
    done.add(address);
    const links = page.nofollow ? [] : [...new Set(page.links.map((href) => pageOf(href, base)).filter((link): link is string => link !== null))];
    for (const link of links) enqueue(link);
    if (page.noindex) {
      result.skipped.push({ url, reason: 'noindex' });
      return;
    }
    const parsed = address === answeredFrom ? page : { title: page.title, sections: page.sections.map((s) => ({ ...s, url: address + s.url.slice(answeredFrom.length) })) };
    result.pages.push({ url: address, parsed: { title: parsed.title, sections: parsed.sections }, hash: contentHash(parsed), etag: response.etag, lastModified: response.lastModified, links, notModified: false });
  };

  // A few workers take addresses from one queue; a page's links join its end (breadth first).
  const worker = async (): Promise<void> => {
    while (queue.length > 0 && result.pages.length + inFlight < maxPages && budget.left > 0) {
      const url = queue.shift()!;
      inFlight++;
      try {
        await visit(url);
      } finally {
        inFlight--;
      }
      progress(url);
    }
  };
  let inFlight = 0;
  // Workers that found the queue empty start again while others may still add links.
  for (;;) {
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (queue.length === 0 || result.pages.length >= maxPages || budget.left <= 0) break;
  }
  for (const url of queue) result.skipped.push({ url, reason: `over --max-pages ${maxPages}` });
  result.failed.push(...fromSitemaps.failed);
  result.requests = budget.max - budget.left;
  return result;
}
