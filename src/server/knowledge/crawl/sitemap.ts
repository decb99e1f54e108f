/** @module Sitemaps (sitemaps.org), read by fast-xml-parser: page addresses from `urlset`s, and sitemap indexes followed, gzipped or not. */
import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { fetchPage, type FetchOptions } from './fetch-page.js';

/** Sitemaps read per crawl, indexes included (a sitemap index names at most 50,000; a docs site a few). */
const MAX_SITEMAPS = 50;
/** A sitemap is 50 MiB at most uncompressed (sitemaps.org); a docs site's far less. */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, isArray: (name) => name === 'url' || name === 'sitemap', processEntities: true, htmlEntities: false });

interface Entry {
  loc?: unknown;
}

const locs = (entries: unknown): string[] =>
  (Array.isArray(entries) ? (entries as Entry[]) : [])
    .map((e) => (typeof e?.loc === 'string' ? e.loc.trim() : ''))
    .filter(Boolean);

export interface SitemapResult {
  pages: string[];
  requests: number;
  /** Sitemaps that could not be read, with why. */
  failed: { url: string; reason: string }[];
}

/**
 * The page addresses of the sitemaps at `urls`, following sitemap indexes (a sitemap already read is
 * not read again). `keep` says which sitemaps and pages belong to the crawl; at most `limit` pages.
 */
export async function readSitemaps(urls: string[], options: FetchOptions & { limit: number; keep: (url: string) => boolean; allowed: (url: string) => boolean }): Promise<SitemapResult> {
  const result: SitemapResult = { pages: [], requests: 0, failed: [] };
  const queue = [...new Set(urls)];
  const read = new Set<string>();
  while (queue.length > 0 && read.size < MAX_SITEMAPS && result.pages.length < options.limit) {
    const url = queue.shift()!;
    if (read.has(url)) continue;
    read.add(url);
    try {
      const fetched = await fetchPage(url, { ...options, maxBytes: MAX_SITEMAP_BYTES });
      result.requests += fetched.requests;
      if (fetched.status !== 200) {
        // A site without /sitemap.xml is not a failure: links are followed instead.
        if (fetched.status !== 404 && fetched.status !== 410) result.failed.push({ url, reason: `HTTP ${fetched.status}` });
        continue;
      }
      let body = fetched.body;
      // Gzipped by name or by content (the first two bytes), whatever the Content-Type says.
      if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body, { maxOutputLength: MAX_SITEMAP_BYTES });
      const xml = parser.parse(body.toString('utf8')) as { urlset?: { url?: unknown }; sitemapindex?: { sitemap?: unknown } };
      for (const child of locs(xml.sitemapindex?.sitemap)) if (!read.has(child) && options.allowed(child)) queue.push(child);
      for (const page of locs(xml.urlset?.url)) {
        if (result.pages.length >= options.limit) break;
        if (options.keep(page)) result.pages.push(page);
      }
    } catch (error) {
      result.failed.push({ url, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}
