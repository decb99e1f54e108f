/** @module Which addresses a crawl reads: one page per address (fragment and query dropped unless included), within the start URL's origin and path, by the owner's patterns. */

/** Addresses longer than this are not followed (no docs page needs one; patterns are matched against them). */
export const MAX_URL_LENGTH = 2_048;

/** Files that are not pages, by their extension. */
const NOT_PAGES = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'ico', 'pdf', 'zip', 'gz', 'tgz', 'tar', 'mp4', 'webm', 'mp3', 'css', 'js', 'mjs', 'json', 'xml', 'txt', 'woff', 'woff2', 'ttf', 'eot', 'wasm', 'dmg', 'exe', 'csv']);

/**
 * Whether `text` matches `pattern`, where `*` matches any run of characters (slashes too) and
 * everything else itself. The classic two-pointer match with one backtrack point: at most
 * `pattern × text` steps, bounded by `MAX_URL_LENGTH`.
 */
export function wildcard(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** The owner's URL patterns: a pattern with `://` is matched against the whole address, else against its path and query. */
export interface Patterns {
  include?: string[];
  exclude?: string[];
}

const target = (pattern: string, url: URL): string => (pattern.includes('://') ? url.href : url.pathname + url.search);
const matchesAny = (patterns: string[], url: URL): boolean => patterns.some((pattern) => wildcard(pattern, target(pattern, url)));

/** The part of the site a crawl stays in: the start URL's origin, and its path as a folder. */
export class Scope {
  readonly origin: string;
  readonly path: string;
  readonly #patterns: Patterns;

  constructor(start: URL, patterns: Patterns = {}) {
    this.origin = start.origin;
    // `/docs/intro.html` is read as the folder `/docs/`; `/docs` and `/docs/` as `/docs/`.
    const last = start.pathname.split('/').at(-1) ?? '';
    this.path = last.includes('.') ? start.pathname.slice(0, start.pathname.length - last.length) : start.pathname.endsWith('/') ? start.pathname : `${start.pathname}/`;
    this.#patterns = patterns;
  }

  /** Whether a query string makes a page of its own: only when an include pattern names one. */
  #keepsQuery(url: URL): boolean {
    return (this.#patterns.include ?? []).some((pattern) => pattern.includes('?') && wildcard(pattern, target(pattern, url)));
  }

  /**
   * The address as the crawl knows it (fragment dropped, query dropped unless included), or null
   * when it is not a page of this crawl: another origin, outside the path, a file, excluded, or too long.
   */
  page(href: string, base?: string | URL): string | null {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    url.hash = '';
    if (!this.#keepsQuery(url)) url.search = '';
    if (url.href.length > MAX_URL_LENGTH || url.origin !== this.origin) return null;
    const inPath = url.pathname.startsWith(this.path) || `${url.pathname}/` === this.path;
    if (!inPath) return null;
    const extension = url.pathname.split('/').at(-1)?.split('.').slice(1).at(-1)?.toLowerCase();
    if (extension && NOT_PAGES.has(extension)) return null;
    if (this.#patterns.include?.length && !matchesAny(this.#patterns.include, url)) return null;
    if (this.#patterns.exclude?.length && matchesAny(this.#patterns.exclude, url)) return null;
    return url.href;
  }
}
