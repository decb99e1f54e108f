/**
 * @module Public docs sets beyond ../shared/bench, held out from tuning: each read from a pinned
 * commit of its repository, at the path an environment variable gives (a clone or a bare git
 * directory; the pages are never copied into the project), and skipped with a note when the
 * variable is unset, as in CI.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { jekyllRoute } from '../../../src/server/knowledge/sources/jekyll-site.js';
import { frontMatterOf } from '../../../src/server/knowledge/sources/site-routes.js';

/** Where a held-out set comes from and how the bench reads it. */
export interface ExtraSource {
  name: string;
  /** The repository, for people: clone it from here. */
  repository: string;
  /** The commit the questions were written against. */
  commit: string;
  /** The folder of the repository holding the pages, ingested as the knowledge base's root. */
  folder: string;
  /** The base URL the sections' addresses start with (the questions' gold uses it). */
  baseUrl: string;
  /** The environment variable naming a clone or a bare git directory of the repository. */
  env: string;
  /** Whether the questions' gold names pages rather than sections: a source on a gold page counts. */
  goldPages?: boolean;
  /** Files and folders beside `folder` that the site is built with (a Jekyll site's `_config.yml` and `_includes`, a Docusaurus site's configuration), read with it. */
  site?: string[];
}

/** A held-out set ready to ingest: its pages' folder and its questions. */
export interface ExtraSet {
  name: string;
  root: string;
  baseUrl: string;
  questions: unknown[];
  goldPages: boolean;
}

/**
 * Plausible Analytics' help docs (github.com/plausible/docs, CC BY-SA 4.0): 132 Markdown pages of
 * account, billing, dashboard and tracking help. Questions: ./plausible.questions.json.
 */
export const PLAUSIBLE: ExtraSource = {
  name: 'plausible',
  repository: 'https://github.com/plausible/docs',
  commit: '208d58cab715dffc0ab4e3bd100b2ed0c0e7a0c0',
  folder: 'docs',
  baseUrl: 'https://plausible.test/',
  env: 'SUPPORT_CHAT_BENCH_EXTRA',
  // A Docusaurus site: its `.md` pages are MDX (their `import` lines and JSX are not text).
  site: ['docusaurus.config.js'],
};

/**
 * DuckDuckGo's help pages (github.com/duckduckgo/duckduckgo-help-pages): 274 Markdown pages of
 * search, browser, Email Protection, VPN and subscription help. Questions, written in a visitor's
 * words before any reply was read: ./duckduckgo.questions.json (gold: pages).
 */
export const DUCKDUCKGO: ExtraSource = {
  name: 'duckduckgo',
  repository: 'https://github.com/duckduckgo/duckduckgo-help-pages',
  commit: '5e11a4669099c53b55ed1640b642513d783523c2',
  folder: '_docs',
  baseUrl: 'https://ddg.test/',
  env: 'SUPPORT_CHAT_BENCH_DUCKDUCKGO',
  goldPages: true,
  // A Jekyll site: its pages' Liquid includes `_includes`' files and reads `_config.yml`.
  site: ['_config.yml', '_includes', '_layouts'],
};

const git = (args: string[], input?: Buffer) => execFileSync('git', args, { input, maxBuffer: 512 * 1024 * 1024, stdio: ['pipe', 'pipe', 'ignore'] });

/**
 * The folder of `source`'s pages at its pinned commit, or why it cannot be read. A clone whose
 * checkout is that commit is read in place; otherwise (a bare git directory, or a clone at another
 * commit) the folder is extracted at the pinned commit into a temporary directory, removed when
 * the process exits.
 */
function pagesOf(source: ExtraSource): { root: string } | { skipped: string } {
  const path = process.env[source.env];
  if (!path) return { skipped: `${source.env} is not set (set it to a clone or a bare git directory of ${source.repository})` };
  if (!existsSync(path)) return { skipped: `no copy of ${source.repository} at ${path} (${source.env})` };
  const gitDir = existsSync(join(path, '.git')) ? join(path, '.git') : path;
  try {
    git(['--git-dir', gitDir, 'cat-file', '-e', `${source.commit}^{commit}`]);
  } catch {
    return { skipped: `${path} does not hold commit ${source.commit} of ${source.repository}` };
  }
  const checkout = join(path, source.folder);
  if (gitDir !== path && existsSync(checkout) && statSync(checkout).isDirectory()) {
    const head = git(['--git-dir', gitDir, 'rev-parse', 'HEAD']).toString().trim();
    const clean = git(['--git-dir', gitDir, '--work-tree', path, 'status', '--porcelain', '--', source.folder, ...(source.site ?? [])]).toString() === '';
    if (head === source.commit && clean) return { root: checkout };
  }
  // Beside a kept bench database (`BENCH_DATA_DIR`), at one path per commit: extracted anew under
  // another path each run, the set's pages would be ingested again as a second copy of themselves.
  const kept = process.env.BENCH_DATA_DIR;
  const dir = kept ? join(kept, `${source.name}-${source.commit}`) : mkdtempSync(join(tmpdir(), `support-chat-bench-${source.name}-`));
  if (kept && existsSync(join(dir, source.folder))) return { root: join(dir, source.folder) };
  if (kept) mkdirSync(dir, { recursive: true });
  else process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  // The site's files that the pinned commit holds (an archive of a path it lacks fails).
  const site = (source.site ?? []).filter((path) => {
    try {
      git(['--git-dir', gitDir, 'cat-file', '-e', `${source.commit}:${path}`]);
      return true;
    } catch {
      return false;
    }
  });
  const tar = git(['--git-dir', gitDir, 'archive', source.commit, '--', source.folder, ...site]);
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return { root: join(dir, source.folder) };
}

/**
 * Where the site serves a gold page. The questions name their gold pages by file
 * (`<baseUrl><folder>/<path>`, extension left out); a Jekyll site (a source with `site`) serves
 * each at its route (its permalink, its collection's), which is where the engine stores it.
 */
function servedAt(source: ExtraSource, root: string): (gold: string) => string {
  const prefix = `${source.baseUrl}${source.folder}/`;
  const site = dirname(root);
  if (!source.site || !existsSync(join(site, '_config.yml'))) return (gold) => gold;
  const config = (parseYaml(readFileSync(join(site, '_config.yml'), 'utf8')) ?? {}) as Record<string, unknown>;
  return (gold) => {
    const path = `${source.folder}/${gold.slice(prefix.length)}.md`;
    if (!gold.startsWith(prefix) || !existsSync(join(site, path))) return gold;
    return new URL(jekyllRoute(config, path, frontMatterOf(readFileSync(join(site, path), 'utf8'))), source.baseUrl).href;
  };
}

/** The held-out sets present on this machine; each absent one is reported on the console as skipped. */
export function extraSets(sources: ExtraSource[] = [PLAUSIBLE, DUCKDUCKGO]): ExtraSet[] {
  return sources.flatMap((source) => {
    const pages = pagesOf(source);
    if ('skipped' in pages) {
      console.log(`engine: set ${source.name} skipped: ${pages.skipped}`);
      return [];
    }
    const questions = JSON.parse(readFileSync(join(import.meta.dirname, `${source.name}.questions.json`), 'utf8')) as { gold?: string[] }[];
    const served = servedAt(source, pages.root);
    for (const question of questions) if (question.gold) question.gold = question.gold.map(served);
    return [{ name: source.name, root: pages.root, baseUrl: source.baseUrl, questions, goldPages: source.goldPages ?? false }];
  });
}
