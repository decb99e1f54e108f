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
import { BudgetError, fetchPage, FetchError, MAX_REDIRECTS, RequestBudget, type Fetched, type FetchOptions } from './fetch-page.js';
import { isLocalHost, siteFetch } from './http.js';
import { readRobots, type Robots } from './robots.js';
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
  const { startUrl, scope, first } = startOf(start, options);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const allowLocal = options.allowLocal ?? (localTargetsAllowed(process.env) || (await isLocalHost(startUrl.hostname, options.lookup)));
  const budget = new RequestBudget(requestBudget(maxPages));
  const fetchOptions: FetchOptions = { ...options, fetch: options.fetch ?? siteFetch({ allowLocal, lookup: options.lookup }), budget };
  const parser = options.parser ?? parsePool();

  const robots = await readRobots(scope.origin, fetchOptions).catch((error: unknown) => {
    throw new CrawlError(`cannot reach ${scope.origin}: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (!robots.allowed(first)) throw new CrawlError(`${scope.origin}/robots.txt forbids crawling ${first}`);

  const site = new SiteCrawl({ first, scope, robots, budget, fetchOptions, parser, options, maxPages });
  const sitemapFailures = await site.enqueueSitemaps();
  await site.run(options.concurrency ?? DEFAULT_CONCURRENCY);
  return site.finish(sitemapFailures);
}

/** The start URL checked: an http(s) URL that the crawl's scope (--include/--exclude) keeps. */
function startOf(start: string, options: CrawlOptions): { startUrl: URL; scope: Scope; first: string } {
  let startUrl: URL;
  try {
    startUrl = new URL(start);
  } catch {
    throw new CrawlError(`"${start}" is not a URL`);
  }
  if (startUrl.protocol !== 'http:' && startUrl.protocol !== 'https:') throw new CrawlError(`"${start}" is not an http(s) URL`);
  const scope = new Scope(startUrl, options);
  const first = scope.page(startUrl.href);
  if (!first) throw new CrawlError(`${start} is excluded by --include/--exclude`);
  return { startUrl, scope, first };
}

/** What one crawl is given once it may start. */
interface SiteCrawlSetup {
  first: string;
  scope: Scope;
  robots: Robots;
  budget: RequestBudget;
  fetchOptions: FetchOptions;
  parser: ParsePool;
  options: CrawlOptions;
  maxPages: number;
}

/** One crawl under way: its queue of addresses, what it has read, and the result it builds. */
class SiteCrawl {
  readonly result: CrawlResult;
  readonly #setup: SiteCrawlSetup;
  readonly #queued = new Set<string>();
  readonly #queue: string[] = [];
  readonly #maxAddresses: number;
  /**
   * A link's address; links from the site's root (`/docs/x`, most of a docs site's, repeated on
   * every page by its sidebar) are resolved once per crawl.
   */
  readonly #resolved = new Map<string, string | null>();
  /** Addresses a page was stored under or answered from: a second address of the same page is a duplicate. */
  readonly #done = new Set<string>();
  /** Redirect targets, with the hops of the chain that led to them. */
  readonly #hops = new Map<string, number>();
  /** Least time between two requests' starts, in ms. */
  readonly #interval: number;
  #fetched = 0;
  #nextStart = 0;
  #inFlight = 0;

  constructor(setup: SiteCrawlSetup) {
    this.#setup = setup;
    this.#maxAddresses = setup.maxPages * ADDRESSES_PER_PAGE;
    this.#interval = Math.max(setup.options.delayMs ?? 0, setup.robots.crawlDelay * 1000);
    this.result = { start: setup.first, pages: [], found: 0, skipped: [], failed: [], gone: [], requests: 0 };
    this.#enqueue(setup.first);
  }

  /** Queues the pages the site's sitemaps list (robots.txt's, else /sitemap.xml); returns the sitemaps that failed. */
  async enqueueSitemaps(): Promise<CrawlResult['failed']> {
    const { robots, scope, fetchOptions, maxPages } = this.#setup;
    const sitemaps = robots.sitemaps.length > 0 ? robots.sitemaps : [`${scope.origin}/sitemap.xml`];
    const fromSitemaps = await readSitemaps(sitemaps, {
      ...fetchOptions,
      limit: maxPages * 2,
      keep: (url) => scope.page(url) !== null,
      allowed: (url) => URL.canParse(url) && new URL(url).origin === scope.origin,
    });
    for (const page of fromSitemaps.pages) this.#enqueue(scope.page(page));
    return fromSitemaps.failed;
  }

  /** Reads the queue with `concurrency` workers; a page's links join its end (breadth first). */
  async run(concurrency: number): Promise<void> {
    const { budget, maxPages } = this.#setup;
    const worker = async (): Promise<void> => {
      while (this.#queue.length > 0 && this.result.pages.length + this.#inFlight < maxPages && budget.left > 0) {
        const url = this.#queue.shift()!;
        this.#inFlight++;
        try {
          await this.#visit(url);
        } finally {
          this.#inFlight--;
        }
        this.#progress(url);
      }
    };
    // Workers that found the queue empty start again while others may still add links.
    for (;;) {
      await Promise.all(Array.from({ length: concurrency }, worker));
      if (this.#queue.length === 0 || this.result.pages.length >= maxPages || budget.left <= 0) break;
    }
  }

  /** The result: addresses left in the queue skipped, the sitemaps' failures, the requests made. */
  finish(sitemapFailures: CrawlResult['failed']): CrawlResult {
    const { budget, maxPages } = this.#setup;
    for (const url of this.#queue) this.result.skipped.push({ url, reason: `over --max-pages ${maxPages}` });
    this.result.failed.push(...sitemapFailures);
    this.result.requests = budget.max - budget.left;
    return this.result;
  }

  #enqueue(url: string | null): void {
    if (!url || this.#queued.has(url) || this.#queued.size >= this.#maxAddresses) return;
    this.#queued.add(url);
    this.#queue.push(url);
    this.result.found++;
  }

  #pageOf(href: string, base: string): string | null {
    const { scope, maxPages } = this.#setup;
    if (!href.startsWith('/') || href.startsWith('//')) return scope.page(href, base);
    let address = this.#resolved.get(href);
    if (address === undefined) {
      address = scope.page(href, base);
      if (this.#resolved.size < maxPages * 20) this.#resolved.set(href, address);
    }
    return address;
  }

  #progress(url: string): void {
    const { result } = this;
    this.#setup.options.onProgress?.({ found: result.found, fetched: this.#fetched, skipped: result.skipped.length, failed: result.failed.length, url });
  }

  /** Waits until this request may start: requests' starts are `interval` apart. */
  async #polite(): Promise<void> {
    if (this.#interval <= 0) return;
    const now = Date.now();
    const at = Math.max(now, this.#nextStart);
    this.#nextStart = at + this.#interval;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }

  /** Requests one address and files what it answered: a page, a 304, a redirect, or a failure. */
  async #visit(url: string): Promise<void> {
    const { robots, options, fetchOptions, maxPages } = this.#setup;
    if (this.#done.has(url)) return;
    if (!robots.allowed(url)) {
      this.result.skipped.push({ url, reason: 'disallowed by robots.txt' });
      return;
    }
    const known = options.known?.get(url);
    await this.#polite();
    let response: Fetched;
    try {
      response = await fetchPage(url, { ...fetchOptions, redirect: 'manual', etag: known?.etag, lastModified: known?.lastModified });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // Not reached for want of requests: kept, as a page over --max-pages.
      if (error instanceof BudgetError) this.result.skipped.push({ url, reason: `over --max-pages ${maxPages}` });
      else this.result.failed.push({ url, reason: error instanceof FetchError ? error.message : String(error) });
      return;
    }
    this.#fetched++;
    if (response.status === 304 && known) this.#notModified(url, known, response);
    else if (response.status >= 300 && response.status < 400 && response.location) this.#redirect(url, response.location);
    else if (response.status === 404 || response.status === 410) {
      this.result.gone.push(url);
      this.result.failed.push({ url, reason: `HTTP ${response.status}` });
    } else if (response.status !== 200) this.result.failed.push({ url, reason: `HTTP ${response.status}` });
    else await this.#read(url, response);
  }

  /** A 304: the stored page stands, and its stored links are followed. */
  #notModified(url: string, known: KnownPage, response: Fetched): void {
    this.#done.add(url);
    this.result.pages.push({ url, parsed: { title: '', sections: [] }, hash: '', etag: response.etag ?? known.etag, lastModified: response.lastModified ?? known.lastModified, links: known.links, notModified: true });
    // Stored links are addresses already: one already queued costs a set lookup, not a parse.
    for (const link of known.links) if (!this.#queued.has(link)) this.#enqueue(this.#setup.scope.page(link));
  }

  /** A redirect, followed here once: a target already read or queued is not requested again. */
  #redirect(url: string, location: string): void {
    const { result } = this;
    const target = this.#setup.scope.page(location, url);
    const hop = (this.#hops.get(url) ?? 0) + 1;
    if (!target) result.skipped.push({ url, reason: `redirected out of the crawl to ${URL.canParse(location, url) ? new URL(location, url).href : location}` });
    else if (this.#done.has(target) || this.#queued.has(target)) result.skipped.push({ url, reason: `a redirect to ${target}${this.#done.has(target) ? ', already read' : ''}` });
    else if (hop > MAX_REDIRECTS) result.failed.push({ url, reason: `over ${MAX_REDIRECTS} redirects` });
    else {
      result.skipped.push({ url, reason: `a redirect to ${target}` });
      this.#hops.set(target, hop);
      this.#enqueue(target);
    }
  }

  /** A 200: the page read off the event loop, stored under its canonical address, its links queued. */
  async #read(url: string, response: Fetched): Promise<void> {
    const { result } = this;
    const { scope, parser, options } = this.#setup;
    const answeredFrom = scope.page(response.url);
    if (!answeredFrom) return void result.skipped.push({ url, reason: `redirected out of the crawl to ${response.url}` });
    if (answeredFrom !== url && this.#done.has(answeredFrom)) return void result.skipped.push({ url, reason: `a redirect to ${answeredFrom}, already read` });
    const type = response.contentType.split(';')[0]!.trim().toLowerCase();
    if (type && !HTML_TYPES.includes(type)) return void result.skipped.push({ url, reason: `not a page (${type})` });
    let page;
    try {
      page = await parser.parse(response.body, response.contentType, { url: answeredFrom, fallbackTitle: answeredFrom, contentSelector: options.contentSelector, excludeSelectors: options.excludeSelectors });
    } catch (error) {
      // Over the parse budget (see parse-worker.ts), or its thread failed: this page alone is lost.
      return void result.failed.push({ url, reason: `not read: ${error instanceof Error ? error.message : String(error)}` });
    }
    const base = page.base ? new URL(page.base, answeredFrom).href : answeredFrom;
    const canonical = page.canonical ? scope.page(page.canonical, base) : null;
    const address = canonical ?? answeredFrom;
    if (this.#done.has(address)) return void result.skipped.push({ url, reason: `a duplicate of ${address}` });
    for (const seen of [url, answeredFrom, address]) this.#done.add(seen);
    const links = page.nofollow ? [] : [...new Set(page.links.map((href) => this.#pageOf(href, base)).filter((link): link is string => link !== null))];
    for (const link of links) this.#enqueue(link);
    if (page.noindex) return void result.skipped.push({ url, reason: 'noindex' });
    const parsed = address === answeredFrom ? page : { title: page.title, sections: page.sections.map((s) => ({ ...s, url: address + s.url.slice(answeredFrom.length) })) };
    result.pages.push({ url: address, parsed: { title: parsed.title, sections: parsed.sections }, hash: contentHash(parsed), etag: response.etag, lastModified: response.lastModified, links, notModified: false });
  }
}
