/**
 * @module The Jekyll site a folder of Markdown belongs to: its `_config.yml` and the files of its
 * `_includes`, read once per ingest (see ingest/jekyll.ts for how a page is rendered with them).
 * The folder ingested is the site (it holds `_config.yml` beside `_layouts`, `_includes` or a
 * `Gemfile`: other tools name their configuration `_config.yml` too), or one of its collections
 * (`_docs`, `_posts`), whose site is the folder above. Also where Jekyll serves each page
 * (`jekyllRoute`), so that a cited source opens the page.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { JekyllSite } from '../ingest/jekyll.js';
import { exists } from './exists.js';

/** Bounds on what is read: `_config.yml`'s size, and the count, size and depth of `_includes`' files. */
const MAX_CONFIG_BYTES = 256 * 1024;
const MAX_INCLUDES = 1_000;
const MAX_INCLUDE_BYTES = 256 * 1024;
const MAX_INCLUDE_DEPTH = 8;

/** Whether `site` holds a Jekyll site's configuration and one of its other marks. */
async function isJekyllSite(site: string): Promise<boolean> {
  if (!(await exists(join(site, '_config.yml'), 'file'))) return false;
  return (await exists(join(site, '_layouts'), 'directory')) || (await exists(join(site, '_includes'), 'directory')) || (await exists(join(site, 'Gemfile'), 'file'));
}

/** `_includes`' files by their path inside it; symbolic links, dot files and files past the bounds are left out. */
async function includesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const pending: { dir: string; prefix: string; depth: number }[] = [{ dir, prefix: '', depth: 0 }];
  while (pending.length > 0 && files.size < MAX_INCLUDES) {
    const { dir: at, prefix, depth } = pending.pop()!;
    let entries;
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || files.size >= MAX_INCLUDES) continue;
      const full = join(at, entry.name);
      if (entry.isDirectory() && depth < MAX_INCLUDE_DEPTH) pending.push({ dir: full, prefix: `${prefix}${entry.name}/`, depth: depth + 1 });
      else if (entry.isFile() && (await stat(full)).size <= MAX_INCLUDE_BYTES) files.set(prefix + entry.name, await readFile(full, 'utf8'));
    }
  }
  return files;
}

/** The site `root` is (`inSite`: its folder is the site's), or is a collection of; null when it is no Jekyll site. */
export async function jekyllSiteOf(root: string): Promise<(JekyllSite & { inSite: boolean }) | null> {
  const candidates = [root, ...(basename(root).startsWith('_') ? [dirname(root)] : [])];
  for (const [i, site] of candidates.entries()) {
    if (!(await isJekyllSite(site))) continue;
    const configFile = join(site, '_config.yml');
    let config: Record<string, unknown> = {};
    if ((await stat(configFile)).size <= MAX_CONFIG_BYTES) {
      try {
        const data: unknown = parseYaml(await readFile(configFile, 'utf8'));
        if (data && typeof data === 'object' && !Array.isArray(data)) config = data as Record<string, unknown>;
      } catch {
        // A configuration that does not parse: the site's pages are still rendered, with an empty `site`.
      }
    }
    const markdown = typeof config.markdown === 'string' ? config.markdown.toLowerCase() : 'kramdown';
    return { config, includes: await includesOf(join(site, '_includes')), kramdown: markdown === 'kramdown', inSite: i === 0 };
  }
  return null;
}

const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** A name as Jekyll's `:slug` and `:title` make it: lower case, runs of other characters one `-`. A scan, linear. */
function slugOf(name: string): string {
  let out = '';
  let dash = false;
  for (const char of name.toLowerCase()) {
    if (/[\p{L}\p{N}]/u.test(char)) {
      if (dash && out) out += '-';
      out += char;
      dash = false;
    } else dash = true;
  }
  return out;
}

/** The collections of `_config.yml` (`collections: { docs: { permalink: … } }` or a list of names), with their permalinks. */
function collectionsOf(config: Record<string, unknown>): Map<string, string | undefined> {
  const found = new Map<string, string | undefined>([['posts', undefined]]);
  const declared = config.collections;
  if (Array.isArray(declared)) for (const name of declared) if (typeof name === 'string') found.set(name, undefined);
  if (declared && typeof declared === 'object' && !Array.isArray(declared)) {
    for (const [name, settings] of Object.entries(declared as Record<string, unknown>)) {
      found.set(name, settings && typeof settings === 'object' ? stringOf((settings as Record<string, unknown>).permalink) : undefined);
    }
  }
  return found;
}

/**
 * Whether Jekyll makes a page of a file, by its path inside the site's folder: not in a folder or
 * of a name that starts with `_` or `.` (the site's `_includes`, `_layouts`, `_data`, a
 * `_defaults.md`), except a collection's own folder (`_docs`, `_posts`). `collection`: the folder
 * ingested is a collection, taken as one whether `_config.yml` declares it or not.
 */
export function jekyllPublishes(config: Record<string, unknown>, path: string, collection: boolean): boolean {
  const segments = path.split('/');
  const first = segments[0]!;
  if (segments.slice(1).some((segment) => segment.startsWith('_') || segment.startsWith('.'))) return false;
  if (segments.length === 1 || !first.startsWith('_')) return !first.startsWith('_');
  return collection || collectionsOf(config).has(first.slice(1));
}

/** Jekyll's named permalink styles, for posts; a page's under each is `/:path/:basename:output_ext` or, `pretty`, `/:path/:basename/`. */
const POST_STYLES: Record<string, string> = {
  date: '/:categories/:year/:month/:day/:title:output_ext',
  pretty: '/:categories/:year/:month/:day/:title/',
  ordinal: '/:categories/:year/:y_day/:title:output_ext',
  none: '/:categories/:title:output_ext',
};

/** A post's file name: its date, then its title (`2024-05-01-welcome.md`). */
function postName(name: string): { year: string; month: string; day: string; title: string } | null {
  const [year, month, day, ...rest] = name.split('-');
  if (!year || !month || !day || rest.length === 0 || year.length !== 4 || month.length !== 2 || day.length !== 2 || ![year, month, day].every((part) => Number.isInteger(Number(part)))) return null;
  return { year, month, day, title: rest.join('-') };
}

/**
 * The route (from `/`, with the site's `baseurl`) Jekyll serves a page at: `path` is the file's path
 * inside the site's folder (`_docs/vpn/logs.md`), `data` its front matter. Its `permalink` first,
 * then its collection's, then the site's style; the placeholders a permalink names are filled
 * (`:path`, `:name`, `:slug`, `:title`, `:collection`, `:basename`, `:output_ext`, a post's date
 * and `:categories`).
 *
 * @example
 * jekyllRoute({ baseurl: '/help', collections: { docs: { permalink: '/:path/' } } }, '_docs/vpn/logs.md', {}); // '/help/vpn/logs/'
 * jekyllRoute({ permalink: 'pretty' }, 'about.md', {}); // '/about/'
 */
export function jekyllRoute(config: Record<string, unknown>, path: string, data: Record<string, unknown>): string {
  const ext = posix.extname(path);
  const segments = path.slice(0, path.length - ext.length).split('/');
  const name = segments.pop()!;
  const style = stringOf(config.permalink) ?? 'date';
  const pretty = style === 'pretty';
  const collection = segments[0]?.startsWith('_') ? segments[0].slice(1) : undefined;
  const collections = collectionsOf(config);
  const inCollection = collection !== undefined && collections.has(collection);
  const post = collection === 'posts' ? postName(name) : null;
  const categories = [data.categories, data.category].flatMap((value) => (Array.isArray(value) ? value : typeof value === 'string' ? value.split(' ') : [])).filter((c): c is string => typeof c === 'string' && c !== '');
  let pattern = stringOf(data.permalink);
  if (!pattern && post) pattern = collections.get('posts') ?? POST_STYLES[style] ?? style;
  else if (!pattern && inCollection) pattern = collections.get(collection) ?? (pretty ? '/:collection/:path/' : '/:collection/:path:output_ext');
  else if (!pattern) pattern = name === 'index' ? '/:path/' : pretty ? '/:path/:basename/' : '/:path/:basename:output_ext';
  const inside = inCollection ? segments.slice(1) : segments;
  const slugged = slugOf(stringOf(data.slug) ?? post?.title ?? name);
  const values: Record<string, string> = {
    collection: collection ?? '',
    path: inCollection ? [...inside, name].join('/') : inside.join('/'),
    basename: name,
    name: slugged,
    slug: slugged,
    title: slugged,
    output_ext: '.html',
    categories: categories.map(slugOf).join('/'),
    year: post?.year ?? '',
    month: post?.month ?? '',
    day: post?.day ?? '',
    i_month: String(Number(post?.month ?? '')),
    i_day: String(Number(post?.day ?? '')),
    short_year: post?.year.slice(2) ?? '',
    y_day: '',
  };
  // `:name` then other letters: the longest placeholder name that matches is read (`:i_month` before `:i`).
  const names = Object.keys(values).sort((a, b) => b.length - a.length);
  let route = '';
  for (let i = 0; i < pattern.length; i++) {
    const found = pattern[i] === ':' ? names.find((key) => pattern!.startsWith(key, i + 1)) : undefined;
    if (found === undefined) route += pattern[i];
    else {
      route += values[found];
      i += found.length;
    }
  }
  const baseurl = stringOf(config.baseurl) ?? '';
  const joined = `/${[...baseurl.split('/'), ...route.split('/')].filter(Boolean).map(encodeURIComponent).join('/')}`;
  return route.endsWith('/') && joined !== '/' ? `${joined}/` : joined;
}
