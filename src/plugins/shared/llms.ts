/**
 * @module `llms.txt` and `llms-full.txt` (https://llmstxt.org/) from a site's pages at build: the
 * first an index (the site's title, its description, one link per page), the second every page's
 * Markdown in full, for agents that read a site whole. Pages are read with the Markdown (or MDX)
 * parser: front matter gives a page's title and description, and `import`/`export` lines of MDX
 * are left out of its text.
 */
import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Heading, Nodes, Root } from 'mdast';
import { Parser } from 'acorn';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { frontmatter } from 'micromark-extension-frontmatter';
import { mdxExpression } from 'micromark-extension-mdx-expression';
import { mdxJsx } from 'micromark-extension-mdx-jsx';
import { mdxMd } from 'micromark-extension-mdx-md';
import { mdxjsEsm } from 'micromark-extension-mdxjs-esm';
import { parse as parseYaml } from 'yaml';

export interface LlmsPage {
  /** Where the page is served: a full URL, or a path on the site. */
  url: string;
  title: string;
  description?: string;
  /** The page's Markdown, without front matter or MDX imports. */
  markdown: string;
}

export interface LlmsSite {
  title: string;
  description?: string;
  pages: LlmsPage[];
}

/** A page's source read as Markdown (MDX when `mdx`): its title, description and text. */
export function readPageSource(source: string, mdx: boolean): Omit<LlmsPage, 'url' | 'title'> & { title: string | undefined; hidden: boolean } {
  const tree: Root = fromMarkdown(source, {
    extensions: [frontmatter(['yaml']), ...(mdx ? [mdxjsEsm({ acorn: Parser, acornOptions: { ecmaVersion: 'latest', sourceType: 'module' } }), mdxExpression(), mdxJsx(), mdxMd()] : [])],
    mdastExtensions: [frontmatterFromMarkdown(['yaml']), ...(mdx ? [mdxFromMarkdown()] : [])],
  });
  let meta: Record<string, unknown> = {};
  const cut: [number, number][] = [];
  for (const node of tree.children) {
    if (node.type === 'yaml') {
      const parsed: unknown = parseYaml(node.value);
      if (parsed && typeof parsed === 'object') meta = parsed as Record<string, unknown>;
    }
    if ((node.type === 'yaml' || node.type === 'mdxjsEsm') && node.position?.start.offset !== undefined && node.position.end.offset !== undefined) {
      cut.push([node.position.start.offset, node.position.end.offset]);
    }
  }
  let markdown = '';
  let at = 0;
  for (const [start, end] of cut) {
    markdown += source.slice(at, start);
    at = end;
  }
  markdown += source.slice(at);
  const heading = tree.children.find((node): node is Heading => node.type === 'heading' && node.depth === 1);
  const text = (meta.title ?? meta.sidebar_label) as unknown;
  return {
    title: typeof text === 'string' && text ? text : heading ? plainText(heading) : undefined,
    description: typeof meta.description === 'string' ? meta.description : undefined,
    markdown: markdown.trim(),
    // Drafts and pages kept out of search and indexes by their front matter.
    hidden: meta.draft === true || meta.unlisted === true || meta.pagefind === false || meta.search === false,
  };
}

/** A page file read for the llms files, at `url`; null when it is hidden from indexes. */
export function readPageFile(file: string, url: string, fallbackTitle: string): LlmsPage | null {
  const page = readPageSource(readFileSync(file, 'utf8'), file.endsWith('.mdx'));
  if (page.hidden) return null;
  return { url, title: page.title ?? fallbackTitle, ...(page.description ? { description: page.description } : {}), markdown: page.markdown };
}

function plainText(node: Nodes): string {
  if ('value' in node && (node.type === 'text' || node.type === 'inlineCode')) return node.value;
  return 'children' in node ? (node.children as Nodes[]).map(plainText).join('') : '';
}

/** A link's text with the characters that would end it escaped. */
const linkText = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('[', '\\[').replaceAll(']', '\\]');
const oneLine = (text: string) => text.split(/\s+/).filter(Boolean).join(' ');

/** The two files' contents. */
export function llmsFiles(site: LlmsSite): { index: string; full: string } {
  const head = [`# ${oneLine(site.title)}`, '', ...(site.description ? [`> ${oneLine(site.description)}`, ''] : [])];
  const list = site.pages.map((page) => `- [${linkText(oneLine(page.title))}](${encodeURI(page.url)})${page.description ? `: ${oneLine(page.description)}` : ''}`);
  const index = [...head, '## Docs', '', ...list, ''].join('\n');
  const full = [...head, ...site.pages.map((page) => `---\n\nSource: ${encodeURI(page.url)}\n\n${page.markdown}\n`)].join('\n');
  return { index, full };
}

/** Writes `llms.txt` and `llms-full.txt` into `outDir`. */
export async function writeLlmsFiles(outDir: string, site: LlmsSite): Promise<void> {
  const { index, full } = llmsFiles(site);
  await writeFile(join(outDir, 'llms.txt'), index);
  await writeFile(join(outDir, 'llms-full.txt'), full);
}

/** A page's path joined to the site's address when it has one (`https://docs.example.com` + `/proj/install`). */
export function pageUrl(site: string | undefined, path: string): string {
  return site ? new URL(path, site.endsWith('/') ? site : `${site}/`).href : path;
}
