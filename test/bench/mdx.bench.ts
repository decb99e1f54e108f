/**
 * @module MDX with components against the same docs as plain Markdown: Mintlify's public docs
 * (github.com/mintlify/docs, read in place from the bare git directory or clone that
 * `SUPPORT_CHAT_BENCH_MDX` names, never copied into the project; skipped when it is unset),
 * ingested twice, and asked each section's heading as a question.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Nodes, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown, frontmatterToMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { toMarkdown } from 'mdast-util-to-markdown';
import { micromark } from 'micromark';
import { frontmatter, frontmatterHtml } from 'micromark-extension-frontmatter';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { mdxjs } from 'micromark-extension-mdxjs';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { parseMarkdown } from '../../src/server/knowledge/ingest/markdown.js';
import { migrations } from '../../src/server/schema.js';
import { migrate } from '../../src/server/store/migrate.js';
import { openSql } from '../../src/server/store/sql.js';
import { CHROME_SENTENCES, serveDocsSite, type SiteOptions } from '../helpers/docs-site.js';
import type { BenchTable } from './table.js';

const BASE = 'https://docs.example.com/';

/** The page as plain Markdown: components unwrapped to their content, imports and expressions gone. */
function plainMarkdown(mdx: string): string | null {
  let tree: Root;
  try {
    tree = fromMarkdown(mdx, { extensions: [frontmatter(['yaml']), gfm(), mdxjs()], mdastExtensions: [frontmatterFromMarkdown(['yaml']), gfmFromMarkdown(), mdxFromMarkdown()] });
  } catch {
    return null;
  }
  const unwrap = (node: Nodes): Nodes[] => {
    if (node.type === 'mdxjsEsm' || node.type === 'mdxFlowExpression' || node.type === 'mdxTextExpression') return [];
    if (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') return node.children.flatMap((c) => unwrap(c as Nodes));
    if ('children' in node) (node as { children: Nodes[] }).children = node.children.flatMap((c) => unwrap(c as Nodes));
    return [node];
  };
  unwrap(tree);
  return toMarkdown(tree, { extensions: [gfmToMarkdown(), frontmatterToMarkdown(['yaml'])] });
}

interface Question {
  question: string;
  page: string;
}

async function score(source: string, questions: Question[], pageOf: (gold: string) => string = (gold) => gold): Promise<{ hit5: number; mrr10: number; sections: number; chrome: number }> {
  const sql = await openSql({ dataDir: ':memory:' });
  await migrate(sql, migrations);
  const engine = createAnswerEngine({ sql, llm: null, embedder: null });
  await engine.ingest('bench', [source], { baseUrl: BASE, maxPages: 2_000 });
  let hit5 = 0;
  let mrr10 = 0;
  let chrome = 0;
  for (const [i, q] of questions.entries()) {
    const pages = [...new Set((await engine.search('bench', q.question, { limit: 20 })).map((h) => h.section.url.split('#')[0]))].slice(0, 10);
    if (i < 100) {
      const answer = await engine.answer({ orgId: 'bench', messages: [{ role: 'user', content: q.question, sources: [] }], signal: new AbortController().signal });
      if (CHROME_SENTENCES.some((sentence) => answer.content.includes(sentence))) chrome++;
    }
    const rank = pages.indexOf(pageOf(q.page));
    if (rank >= 0 && rank < 5) hit5++;
    if (rank >= 0) mrr10 += 1 / (rank + 1);
  }
  const sections = (await engine.stats('bench')).sections;
  await sql.close();
  return { hit5: hit5 / questions.length, mrr10: mrr10 / questions.length, sections, chrome };
}

export async function run(): Promise<BenchTable[]> {
  const repository = process.env.SUPPORT_CHAT_BENCH_MDX;
  if (!repository || !existsSync(repository)) {
    console.log(`mdx: skipped: SUPPORT_CHAT_BENCH_MDX does not name a clone or a bare git directory of github.com/mintlify/docs`);
    return [];
  }
  const gitDir = existsSync(join(repository, '.git')) ? join(repository, '.git') : repository;
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // The English pages (the translations and shared snippets left out).
  const files = git('ls-tree', '-r', '--name-only', 'HEAD')
    .split('\n')
    .filter((f) => f.endsWith('.mdx') && !/^(zh|fr|es|snippets)\//.test(f));
  const work = mkdtempSync(join(tmpdir(), 'support-chat-mdx-'));
  const questions: Question[] = [];
  let components = 0;
  let skipped = 0;
  const pages: SiteOptions['pages'] = {};
  try {
    for (const file of files) {
      const mdx = git('show', `HEAD:${file}`);
      const markdown = plainMarkdown(mdx);
      if (markdown === null) {
        skipped++;
        continue;
      }
      if (/<[A-Z]/.test(mdx)) components++;
      for (const [kind, text] of [['mdx', mdx], ['md', markdown]] as const) {
        const path = join(work, kind, 'docs', file.replace(/\.mdx$/, `.${kind}`));
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
      }
      const page = `${BASE}docs/${file.replace(/\.mdx$/, '')}`;
      const parsed = parseMarkdown(markdown, { url: page, fallbackTitle: file });
      // The same page as a docs site serves it: rendered by micromark, inside real chrome.
      pages[`/docs/${file.replace(/\.mdx$/, '')}`] = { title: parsed.title, html: micromark(markdown, { extensions: [frontmatter(['yaml']), gfm()], htmlExtensions: [frontmatterHtml(['yaml']), gfmHtml()] }) };
      for (const section of parsed.sections) {
        if (section.url.includes('#') && section.title.split(/\s+/).length >= 2) questions.push({ question: section.title, page: parsed.sections[0]!.url.split('#')[0]! });
      }
    }
    const asked = questions.filter((_, i) => i % Math.max(1, Math.floor(questions.length / 300)) === 0);
    const fromMdx = await score(join(work, 'mdx', 'docs'), asked);
    const fromMd = await score(join(work, 'md', 'docs'), asked);
    pages['/docs/'] = { title: 'Docs', html: '<p>Welcome.</p>' };
    const site = await serveDocsSite({ pages, robots: 'User-agent: *\nAllow: /\n', sitemap: Object.keys(pages) });
    let fromSite;
    try {
      fromSite = await score(`${site.url}/docs/`, asked, (gold) => gold.replace(BASE, `${site.url}/`));
    } finally {
      await site.close();
    }
    const sitePages = Object.keys(pages).length;
    return [
      {
        title: `Mintlify's docs (github.com/mintlify/docs ${git('rev-parse', '--short', 'HEAD').trim()}, ${files.length - skipped} English MDX pages, ${components} with components): MDX against the same docs as plain Markdown`,
        columns: ['read from', 'sections', 'page Hit@5', 'page MRR@10'],
        rows: [
          ['MDX files', fromMdx.sections, fromMdx.hit5, fromMdx.mrr10],
          ['plain Markdown', fromMd.sections, fromMd.hit5, fromMd.mrr10],
          ['the Markdown served as a site with chrome, crawled', fromSite.sections, fromSite.hit5, fromSite.mrr10],
        ],
        notes: [
          `${asked.length} questions: the headings (two words or more) of the Markdown pages' sections, each answered by its page; ranked by words (no embeddings). ${skipped} pages that are not valid MDX are left out.`,
          `Goal: MDX within 0.02 of Markdown (Hit@5 ${(fromMdx.hit5 - fromMd.hit5).toFixed(3)}, MRR@10 ${(fromMdx.mrr10 - fromMd.mrr10).toFixed(3)}).`,
          `Goal: the site within 0.03 of the files (Hit@5 ${(fromSite.hit5 - fromMd.hit5).toFixed(3)}, MRR@10 ${(fromSite.mrr10 - fromMd.mrr10).toFixed(3)}); answers (of the first 100 questions) with a chrome sentence: site ${fromSite.chrome}, files ${fromMd.chrome}; requests ${site.requests.length} for ${sitePages} pages (goal ≤ 2 × pages + 30 = ${2 * sitePages + 30}).`,
        ],
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
