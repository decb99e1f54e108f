/**
 * @module Where a docs generator (Docusaurus, VitePress, Starlight) serves each page of its content
 * folder: a folder ingested with its `SiteRoutes` is stored at the addresses the site links to, so
 * every cited source opens a page of the site.
 */
import { posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { frontMatterBlock } from '../ingest/markdown.js';
import { slug } from '../ingest/slug.js';

export type SiteGenerator = 'docusaurus' | 'vitepress' | 'starlight';

/** How a generator turns a content folder into routes (see `routeOf`). */
export interface SiteRoutes {
  generator: SiteGenerator;
  /**
   * What every page's route starts with, from `/` to a closing `/`: the site's base path and, for
   * Docusaurus, the docs' `routeBasePath` (`/proj/docs/`).
   */
  base: string;
  /** How a page's route ends: `clean` (`/guide/install`), `html` (`/guide/install.html`), `slash` (`/guide/install/`). */
  ending: 'clean' | 'html' | 'slash';
  /** Folders of the content folder that hold no pages (VitePress's `public`), relative to it. */
  skip?: string[];
  /** Docusaurus: whether its `.md` pages are MDX (its `markdown.format`, `mdx` by default; `md` and `detect` read them as Markdown). @default true */
  mdx?: boolean;
}

const INDEX_NAMES = new Set(['index', 'readme']);

/**
 * Docusaurus' number prefix (`01-intro` → `intro`, as its default `numberPrefixParser`): digits,
 * optional blanks, then `-`, `_` or `.`, then the name. A scan of the segment, linear.
 */
function withoutNumberPrefix(segment: string): string {
  let i = 0;
  while (i < segment.length && segment[i]! >= '0' && segment[i]! <= '9') i++;
  if (i === 0) return segment;
  while (segment[i] === ' ') i++;
  let separators = 0;
  while (segment[i] === '-' || segment[i] === '_' || segment[i] === '.') {
    i++;
    separators++;
  }
  while (segment[i] === ' ') i++;
  const rest = segment.slice(i);
  return separators > 0 && rest.length > 0 ? rest : segment;
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The encoded route of a page path (`guide/install`, '' for the root, `guide/` for a folder). */
function finish(routes: SiteRoutes, page: string, folder: boolean): string {
  const encoded = page.split('/').map(encodeURIComponent).join('/');
  if (encoded === '') return routes.base;
  if (folder) return `${routes.base}${encoded}${routes.ending === 'clean' && routes.generator === 'docusaurus' ? '' : '/'}`;
  if (routes.ending === 'html') return `${routes.base}${encoded}.html`;
  return `${routes.base}${encoded}${routes.ending === 'slash' ? '/' : ''}`;
}

/** Segments of a `/`-joined path without empty ones (`/a//b/` → `a/b`). */
const tidy = (path: string): string => path.split('/').filter((s) => s && s !== '.').join('/');

/**
 * The route (from `/`) a generator serves a content file at: `rel` is its path inside the content
 * folder (`guide/install.md`), `data` its front matter (Docusaurus' and Starlight's `slug`,
 * Docusaurus' `id`).
 *
 * @example
 * routeOf({ generator: 'vitepress', base: '/', ending: 'clean' }, 'guide/install.md', {}); // '/guide/install'
 * routeOf({ generator: 'starlight', base: '/', ending: 'slash' }, 'guide/index.mdx', {}); // '/guide/'
 * routeOf({ generator: 'docusaurus', base: '/proj/docs/', ending: 'clean' }, '01-intro.md', {}); // '/proj/docs/intro'
 */
export function routeOf(routes: SiteRoutes, rel: string, data: Record<string, unknown>): string {
  const ext = posix.extname(rel);
  const segments = rel.slice(0, rel.length - ext.length).split('/');
  const name = segments.pop()!;
  const frontSlug = stringOf(data.slug);
  if (routes.generator === 'docusaurus') {
    const dirs = segments.map(withoutNumberPrefix);
    if (frontSlug !== undefined) {
      // An absolute slug is the route under the docs' base; a relative one replaces the file's name.
      const page = tidy(frontSlug.startsWith('/') ? frontSlug : posix.join(dirs.join('/'), frontSlug));
      return finish(routes, page, frontSlug.endsWith('/') && page !== '');
    }
    const id = stringOf(data.id);
    const own = id ?? withoutNumberPrefix(name);
    // `index.md`, `README.md` and a doc named as its folder are the folder's page.
    const isIndex = id === undefined && (INDEX_NAMES.has(name.toLowerCase()) || (dirs.length > 0 && own === dirs.at(-1)));
    return finish(routes, isIndex ? dirs.join('/') : [...dirs, own].join('/'), isIndex);
  }
  if (routes.generator === 'starlight') {
    // Starlight's ids are each segment slugged (`Getting Started.md` → `getting-started`).
    if (frontSlug !== undefined) return finish(routes, tidy(frontSlug), false);
    const dirs = segments.map(slug);
    const isIndex = name.toLowerCase() === 'index';
    return finish(routes, isIndex ? dirs.join('/') : [...dirs, slug(name)].join('/'), isIndex);
  }
  const isIndex = name === 'index';
  return finish(routes, isIndex ? segments.join('/') : [...segments, name].join('/'), isIndex);
}

/** Whether a content file lies in one of the folders that hold no pages (`skip`). */
export function skippedBy(routes: SiteRoutes, rel: string): boolean {
  return (routes.skip ?? []).some((folder) => rel === folder || rel.startsWith(`${folder}/`));
}

/** A page's address: its route on the site, resolved against the origin of the base URL when there is one. */
export function siteUrl(route: string, baseUrl: string | undefined): string {
  return baseUrl && URL.canParse(baseUrl) ? new URL(route, baseUrl).href : route;
}

/** Whether a content file is a page its generator renders: Markdown or MDX, not a partial (`_name.md`, Docusaurus and Starlight). */
export function isSitePage(routes: SiteRoutes, rel: string): boolean {
  const ext = posix.extname(rel).toLowerCase();
  if (ext !== '.md' && ext !== '.mdx') return false;
  return routes.generator === 'vitepress' || !posix.basename(rel).startsWith('_');
}

/**
 * A Markdown file's front matter (YAML between `---` lines at its very start), read before the
 * page is parsed, since its route depends on it; nothing when it has none or it does not parse.
 */
export function frontMatterOf(text: string): Record<string, unknown> {
  const block = frontMatterBlock(text);
  if (!block) return {};
  try {
    const data: unknown = parseYaml(block.yaml);
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
