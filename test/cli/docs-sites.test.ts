/**
 * `support-chat-kit init` in a Docusaurus, VitePress and Starlight site (test/fixtures/docs-sites,
 * each with a base path and its static folder holding the widget's script): the pages are stored
 * at the routes the site serves them, the static folder is never read, and `kb remove` takes a
 * source and its pages away again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
const tsx = import.meta.resolve('tsx/esm');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/docs-sites');
const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** A copy of a fixture site in a new folder. */
function site(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sc-docs-site-')), name);
  folders.push(dir);
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

function run(cwd: string, args: string[]) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('SUPPORT_CHAT_')) delete env[key];
  const result = spawnSync(process.execPath, ['--import', tsx, cli, ...args], { cwd, encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every stored section's page (its URL without the anchor), and every anchored URL. */
function stored(dir: string): { pages: string[]; urls: string[]; text: string } {
  const db = new Database(join(dir, '.support-chat', 'support-chat.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT url, title, body, code FROM kb_sections ORDER BY url').all() as { url: string; title: string; body: string; code: string }[];
    return { pages: [...new Set(rows.map((r) => r.url.split('#')[0]!))].sort(), urls: rows.map((r) => r.url), text: rows.map((r) => `${r.title}\n${r.body}\n${r.code}`).join('\n') };
  } finally {
    db.close();
  }
}

describe('init in a docs site', { timeout: 180_000 }, () => {
  it('Docusaurus: pages under baseUrl and the docs routeBasePath, number prefixes, folder index and slug; no partials, no static folder', () => {
    const dir = site('docusaurus');
    const result = run(dir, ['init']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('ingested 4 pages of your Docusaurus site at the addresses it serves them (/proj/handbook/…) from docs');
    const { pages, urls, text } = stored(dir);
    expect(pages).toEqual(['/proj/handbook/guide', '/proj/handbook/guide/install', '/proj/handbook/intro', '/proj/handbook/undo']);
    expect(urls).toContain('/proj/handbook/guide/install#install-the-cli');
    expect(urls).toContain('/proj/handbook/undo#roll-back-a-deploy');
    expect(text).not.toContain('support-chat');
    expect(text).not.toContain('partial');
  });

  it('VitePress: pages under its base with clean URLs, docs/public never read', () => {
    const dir = site('vitepress');
    const result = run(dir, ['init']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('ingested 3 pages of your VitePress site');
    const { pages, text } = stored(dir);
    expect(pages).toEqual(['/acme/', '/acme/guide/', '/acme/guide/install']);
    expect(text).not.toContain('support-chat');
    expect(text).not.toContain('Not a page');
  });

  it('Starlight: pages of src/content/docs under its base with a closing slash, slugged names, index.mdx as its folder; public never read', () => {
    const dir = site('starlight');
    const result = run(dir, ['init', '--base-url', 'https://acme.dev/']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('ingested 3 pages of your Starlight site');
    const { pages, urls, text } = stored(dir);
    expect(pages).toEqual(['https://acme.dev/docs/', 'https://acme.dev/docs/guide/', 'https://acme.dev/docs/guide/getting-started/']);
    expect(urls).toContain('https://acme.dev/docs/guide/getting-started/#install-the-cli');
    expect(text).not.toContain('support-chat');
    expect(text).not.toContain('@astrojs');
  });

  it('kb remove: removes a remembered source and its pages, and refuses an unknown one clearly', () => {
    const dir = site('vitepress');
    expect(run(dir, ['init']).code).toBe(0);
    expect(run(dir, ['kb', 'ingest', 'docs/guide/install.md']).code).toBe(0);

    const unknown = run(dir, ['kb', 'remove', './nowhere']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n').at(-1)).toBe(`support-chat-kit kb remove: vitepress has no source "./nowhere": its sources are ${join(dir, 'docs')}, ${join(dir, 'docs/guide/install.md')}`);

    // The file ingested on its own now belongs to its own source: the folder's removal leaves it.
    const removed = run(dir, ['kb', 'remove', './docs']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`Removed ${join(dir, 'docs')} and its 2 pages from vitepress.\n`);
    expect(stored(dir).pages).toEqual(['install']);
    expect(run(dir, ['kb', 'sources']).stdout).not.toContain(`${join(dir, 'docs')} (`);
    // Removed sources are not synced again.
    expect(run(dir, ['kb', 'sync']).stdout).toContain('Synced 1 sources');
  });
});
