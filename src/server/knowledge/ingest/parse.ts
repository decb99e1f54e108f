/** @module Which files the knowledge base reads, and each parsed into sections by its kind (Markdown, MDX, HTML, text, code). */
import { basename, extname } from 'node:path';
import { CODE_LANGUAGES, parseCode } from './code.js';
import { parseHtml } from './html.js';
import { parseMarkdown } from './markdown.js';
import { parseText } from './text.js';
import type { ParsedFile } from './sections.js';

const DOC_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.html', '.htm', '.txt', '.rst']);

/** Whether a file of this name is read when its folder is ingested: docs and the code languages `parseCode` knows. */
export function isIndexedFile(name: string): boolean {
  const ext = extname(name).toLowerCase();
  return DOC_EXTENSIONS.has(ext) || ext in CODE_LANGUAGES;
}

function joinUrl(base: string, path: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  if (!base) return encoded;
  return base.endsWith('/') ? base + encoded : `${base}/${encoded}`;
}

/**
 * A base URL into a repository's file browser (GitHub's and GitLab's `…/blob/BRANCH/`), where a
 * page is its file: Markdown keeps its extension there, as a docs site's does not.
 */
export function servesFiles(baseUrl: string): boolean {
  if (!URL.canParse(baseUrl)) return false;
  return new URL(baseUrl).pathname.split('/').includes('blob');
}

/** A page path as a docs site serves it: `guides/index` as its folder, `guides/`; the root `index` as `` (the base URL). */
const folderIndex = (page: string) => (page === 'index' ? '' : page.endsWith('/index') ? page.slice(0, -'index'.length) : page);

/**
 * Parses one file by its kind; null for kinds we do not index. `pageUrl`, when given, is the page's
 * address (a docs site's route); `kramdown`, that its Markdown is kramdown (a Jekyll site's);
 * `mdx`, that its `.md` is MDX too (a Docusaurus site's).
 */
export function parseFile(text: string, relPath: string, baseUrl: string, pageUrl?: string, options: { kramdown?: boolean; mdx?: boolean } = {}): ParsedFile | null {
  const ext = extname(relPath).toLowerCase();
  const fallbackTitle = basename(relPath, ext);
  if (ext === '.md' || ext === '.markdown' || ext === '.mdx') {
    // A docs site serves a folder's index page at the folder's own address (`guides/`, not `guides/index`).
    const page = servesFiles(baseUrl) ? relPath : folderIndex(relPath.slice(0, -ext.length));
    return parseMarkdown(text, { url: pageUrl ?? joinUrl(baseUrl, page), fallbackTitle, mdx: ext === '.mdx' || (options.mdx === true && ext === '.md'), kramdown: options.kramdown ?? false });
  }
  if (ext === '.html' || ext === '.htm') return parseHtml(text, { url: joinUrl(baseUrl, relPath), fallbackTitle });
  if (ext === '.txt' || ext === '.rst') return parseText(text, { url: joinUrl(baseUrl, relPath), fallbackTitle });
  const lang = CODE_LANGUAGES[ext];
  if (lang) return parseCode(text, { url: joinUrl(baseUrl, relPath), path: relPath, lang });
  return null;
}
