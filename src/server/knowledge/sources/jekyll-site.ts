/**
 * @module The Jekyll site a folder of Markdown belongs to: its `_config.yml` and the files of its
 * `_includes`, read once per ingest (see ingest/jekyll.ts for how a page is rendered with them).
 * The folder ingested is the site (it holds `_config.yml` beside `_layouts`, `_includes` or a
 * `Gemfile`: other tools name their configuration `_config.yml` too), or one of its collections
 * (`_docs`, `_posts`), whose site is the folder above.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { JekyllSite } from '../ingest/jekyll.js';

/** Bounds on what is read: `_config.yml`'s size, and the count, size and depth of `_includes`' files. */
const MAX_CONFIG_BYTES = 256 * 1024;
const MAX_INCLUDES = 1_000;
const MAX_INCLUDE_BYTES = 256 * 1024;
const MAX_INCLUDE_DEPTH = 8;

async function exists(path: string, kind: 'file' | 'directory'): Promise<boolean> {
  try {
    const info = await stat(path);
    return kind === 'file' ? info.isFile() : info.isDirectory();
  } catch {
    return false;
  }
}

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

/** Jekyll's own folders of a site, which hold no pages: its includes, layouts, data, styles, plugins, drafts and output. */
const NOT_PAGES = new Set(['_includes', '_layouts', '_data', '_sass', '_plugins', '_drafts', '_site']);

/** Whether a file of the site, by its path inside the site's folder, is in one of Jekyll's own folders (not a page). */
export function inJekyllFolder(pathInSite: string): boolean {
  return NOT_PAGES.has(pathInSite.split('/')[0]!);
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
