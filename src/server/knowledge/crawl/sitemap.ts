/**
 * @module Sitemaps (sitemaps.org), read as they stream, gzipped or not: page addresses from
 * `urlset`s, and sitemap indexes followed on the site's origin. parse5's tokenizer reads the XML
 * a chunk at a time (in its foreign-content mode, where `<![CDATA[…]]>` is text), so a sitemap is
 * never held whole; a crawl reads a bounded number of sitemaps, bytes and `<loc>`s, counted
 * whether their addresses are in the crawl or not.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Tokenizer, type Token, type TokenHandler } from 'parse5';
import { fetchWithin, FetchError, type FetchOptions } from './fetch-page.js';
import { MAX_URL_LENGTH } from './scope.js';

/** Sitemaps read per crawl, indexes included (a sitemap index names at most 50,000; a docs site a few). */
export const MAX_SITEMAPS = 50;
/** Bytes of sitemaps (uncompressed) read per crawl: one sitemap's most (sitemaps.org), a docs site's far less. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
/** `<loc>`s read per crawl, in its scope or not: one sitemap's most. */
export const MAX_SITEMAP_LOCS = 50_000;
/** Elements nested deeper than this are not looked into (a `<loc>` is two or three deep). */
const MAX_DEPTH = 16;

export interface SitemapResult {
  pages: string[];
  /** Requests of the sitemaps that answered (the crawl's budget counts every one). */
  requests: number;
  /** Sitemaps that could not be read, or were cut short, with why. */
  failed: { url: string; reason: string }[];
}

export interface SitemapOptions extends FetchOptions {
  /** Page addresses kept at most. */
  limit: number;
  /** Whether a page belongs to the crawl. */
  keep(url: string): boolean;
  /** Whether a sitemap, or a redirect of one, may be read (the crawl's origin). */
  allowed(url: string): boolean;
}

/**
 * Time a crawl spends reading its sitemaps, all of them. Bytes alone do not bound the work: 50 MiB
 * of whitespace (a 255 KB gzip) keeps the tokenizer busy for about a minute of CPU, and the
 * sitemaps only list the pages a crawl is for. Half a minute reads the largest real sitemap.
 */
export const SITEMAPS_TIME_BUDGET_MS = 30_000;

/** What a crawl has read of its sitemaps so far, against the caps. */
interface Totals {
  bytes: number;
  locs: number;
  /** When the crawl began reading them (`performance.now()`). */
  startedMs: number;
}

const overTime = (totals: Totals): boolean => performance.now() - totals.startedMs > SITEMAPS_TIME_BUDGET_MS;

const local = (name: string): string => name.slice(name.indexOf(':') + 1);

/** The `<loc>`s of `url`, `sitemap` (an index's) or any other parent, as the tokenizer meets them. */
class LocReader implements TokenHandler {
  readonly found: { parent: string; loc: string }[] = [];
  readonly #open: string[] = [];
  #depth = 0;
  #text: string | null = null;
  readonly tokenizer = new Tokenizer({}, this);

  constructor() {
    // Foreign content (as SVG's): CDATA sections are read as text.
    this.tokenizer.inForeignNode = true;
  }

  onStartTag(token: Token.TagToken): void {
    if (token.selfClosing) return;
    const name = local(token.tagName);
    if (++this.#depth <= MAX_DEPTH) this.#open.push(name);
    if (name === 'loc') this.#text = '';
  }

  onEndTag(token: Token.TagToken): void {
    const name = local(token.tagName);
    if (this.#depth === 0) return;
    if (this.#depth-- <= MAX_DEPTH) this.#open.pop();
    if (name === 'loc' && this.#text !== null) {
      const parent = this.#open.at(-1) ?? '';
      if (this.#text.length <= MAX_URL_LENGTH) this.found.push({ parent, loc: this.#text.trim() });
      this.#text = null;
    }
  }

  onCharacter(token: Token.CharacterToken): void {
    // Text past an address's longest is not kept: the address is dropped.
    if (this.#text !== null && this.#text.length <= MAX_URL_LENGTH) this.#text += token.chars;
  }

  onWhitespaceCharacter(token: Token.CharacterToken): void {
    this.onCharacter(token);
  }

  onNullCharacter(): void {}
  onComment(): void {}
  onDoctype(): void {}
  onEof(): void {}
}

/** The body's bytes, gunzipped when they are gzip (by their first two bytes, whatever the Content-Type says). */
async function* bytesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const chunks = (body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    const first = await chunks.next();
    if (first.done) return;
    const all = (async function* () {
      yield first.value;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    })();
    if (first.value[0] !== 0x1f || first.value[1] !== 0x8b) {
      yield* all;
      return;
    }
    const gunzip = Readable.from(all).pipe(createGunzip());
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
    } finally {
      gunzip.destroy();
    }
  } finally {
    // Stopped early (a cap, an error): the connection is let go.
    await chunks.return?.();
  }
}

/**
 * Reads a sitemap's body into `reader` a chunk at a time, within the crawl's caps; a cap reached
 * stops reading with a `FetchError` (what was read before stands).
 */
async function readBody(body: ReadableStream<Uint8Array>, deadline: AbortSignal, reader: LocReader, totals: Totals, onLocs: () => void): Promise<void> {
  const decoder = new TextDecoder('utf-8');
  const started = performance.now();
  for await (const chunk of bytesOf(body)) {
    // The request's time covers reading: a small gzip can inflate to many megabytes of tokenizing.
    if (deadline.aborted) throw new FetchError(`not read within ${Math.round((performance.now() - started) / 1000)} s`);
    if (overTime(totals)) throw new FetchError(`over ${SITEMAPS_TIME_BUDGET_MS / 1000} s of sitemaps`);
    totals.bytes += chunk.byteLength;
    if (totals.bytes > MAX_SITEMAP_BYTES) throw new FetchError(`over ${MAX_SITEMAP_BYTES / 1024 / 1024} MiB of sitemaps`);
    reader.tokenizer.write(decoder.decode(chunk, { stream: true }), false);
    onLocs();
    if (totals.locs >= MAX_SITEMAP_LOCS) throw new FetchError(`over ${MAX_SITEMAP_LOCS.toLocaleString('en')} sitemap addresses`);
    // Chunks already buffered would follow one another as microtasks: other requests get a turn between two.
    await new Promise((resolve) => setImmediate(resolve));
  }
  reader.tokenizer.write(decoder.decode(), true);
  onLocs();
}

/**
 * The page addresses of the sitemaps at `urls` (on the crawl's origin: see `Robots.sitemaps`), following sitemap indexes (a sitemap already read is
 * not read again), within the caps above; at most `limit` pages. With a request budget, sitemaps
 * stop once half of it is spent: the rest is the pages'.
 */
export async function readSitemaps(urls: string[], options: SitemapOptions): Promise<SitemapResult> {
  const result: SitemapResult = { pages: [], requests: 0, failed: [] };
  const queue = [...new Set(urls)];
  const read = new Set<string>();
  const totals: Totals = { bytes: 0, locs: 0, startedMs: performance.now() };
  while (queue.length > 0 && read.size < MAX_SITEMAPS && result.pages.length < options.limit && totals.locs < MAX_SITEMAP_LOCS && totals.bytes < MAX_SITEMAP_BYTES && !overTime(totals)) {
    if (options.budget && options.budget.left <= options.budget.max / 2) break;
    const url = queue.shift()!;
    if (read.has(url)) continue;
    read.add(url);
    const reader = new LocReader();
    // Each `<loc>` as it comes, counted whether kept or not.
    const take = (): void => {
      for (const { parent, loc } of reader.found) {
        if (totals.locs >= MAX_SITEMAP_LOCS) break;
        totals.locs++;
        if (parent === 'sitemap') {
          if (!read.has(loc) && queue.length < MAX_SITEMAPS && options.allowed(loc)) queue.push(loc);
        } else if (parent === 'url' && result.pages.length < options.limit && options.keep(loc)) result.pages.push(loc);
      }
      reader.found.length = 0;
    };
    try {
      const fetched = await fetchWithin(url, { ...options, stream: (body, deadline) => readBody(body, deadline, reader, totals, take) });
      result.requests += fetched.requests;
      // A site without /sitemap.xml is not a failure: links are followed instead.
      if (fetched.status !== 200 && fetched.status !== 404 && fetched.status !== 410) result.failed.push({ url, reason: `HTTP ${fetched.status}` });
    } catch (error) {
      result.failed.push({ url, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}
