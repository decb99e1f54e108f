/**
 * @module The differential record of the fixture knowledge bases: every fixture corpus the tests
 * ingest, asked the questions and searches those tests ask of it (with the source they expect,
 * where they state one) and searched for each of its pages' headings; for each, the top sources,
 * the reply's first source and whether the reply is uncertain.
 *
 * `npx tsx test/bench/differential.ts out.json` writes the record of the checkout it runs in;
 * test/server/answers/differential.test.ts asks the same again and compares with the record kept
 * in test/server/answers/differential.json (made on the commit before the passage model).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown } from 'mdast-util-frontmatter';
import { toString } from 'mdast-util-to-string';
import { frontmatter } from 'micromark-extension-frontmatter';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { searchDocs } from '../../src/server/knowledge/search.js';
import { migrations } from '../../src/server/schema.js';
import { migrate } from '../../src/server/store/migrate.js';
import { openSql } from '../../src/server/store/sql.js';
import type { Message } from '../../src/protocol/index.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');

/** What a test states of a reply or a search: its first source (exactly, or a part of it), whether it is uncertain, or that it cites nothing. */
export interface Expectation {
  url?: string;
  urlIncludes?: string;
  uncertain?: boolean;
  silent?: boolean;
}

/** One question of a corpus: a search (its top results) or a reply (to the last of `turns`, the earlier ones a conversation so far). */
export interface Probe {
  kind: 'search' | 'answer';
  turns: string[];
  pageUrl?: string;
  /** Where a test states what is right; otherwise what was right is what the record shows. */
  expect?: Expectation;
  /** The test that asks it, or "heading" for a page heading searched. */
  from: string;
}

export interface Corpus {
  name: string;
  /** Folders under test/fixtures. */
  paths: string[];
  baseUrl?: string;
  probes: Probe[];
}

export interface Observation {
  corpus: string;
  kind: Probe['kind'];
  turns: string[];
  pageUrl?: string;
  expect?: Expectation;
  from: string;
  /** The first five sources: a search's results, or the reply's sources. */
  top: string[];
  first: string | null;
  uncertain: boolean;
  /** The reply's text (answers only), to read what changed. */
  content?: string;
}

const search = (from: string, query: string, expect?: Expectation, pageUrl?: string): Probe => ({ kind: 'search', turns: [query], from, expect, ...(pageUrl ? { pageUrl } : {}) });
const answer = (from: string, turns: string | string[], expect?: Expectation, pageUrl?: string): Probe => ({ kind: 'answer', turns: [turns].flat(), from, expect, ...(pageUrl ? { pageUrl } : {}) });

const GITHUB = 'https://github.com/acme/sync/blob/main/';
const ACME = 'https://docs.acme.example/';

/** The corpora the tests ingest, with what those tests ask of them. */
export const CORPORA: Corpus[] = [
  {
    name: 'kb',
    paths: ['kb/docs', 'kb/code'],
    baseUrl: GITHUB,
    probes: [
      search('engine.test.ts', 'install CLI windows password reset'),
      search('engine.test.ts', 'reset password', { url: 'https://docs.example.com/start#password-reset' }),
      search('engine.test.ts', 'rate limit 429 Retry-After', { url: `${GITHUB}docs/api.mdx#rate-limits` }),
      search('engine.test.ts', 'verify webhook signature', { url: `${GITHUB}docs/webhooks.html#verify-signatures` }),
      search('engine.test.ts', 'alert never indexed'),
      search('engine.test.ts', 'selective sync large folders', { urlIncludes: 'changelog.txt' }),
      search('engine.test.ts', 'retryBackoffDelay', { url: `${GITHUB}code/sync_client.ts#L14-L17` }),
      search('engine.test.ts', 'SyncClient uploadFile', { url: `${GITHUB}code/sync_client.ts#L3-L12` }),
      search('engine.test.ts', 'resolve_conflict newest version', { urlIncludes: 'conflicts.py#L4-L8' }),
      search('engine.test.ts', 'conflict copy namer'),
      search('engine.test.ts', 'WatchFolder', { urlIncludes: 'watcher.go#L3-L7' }),
      search('engine.test.ts', 'content hash changed files', { urlIncludes: 'hashing.rs#L1-L9' }),
      search('engine.test.ts', 'exclude folder selective', { urlIncludes: 'Selective.java#L' }),
      answer('engine.test.ts', 'How do I reset my password?', { url: 'https://docs.example.com/start#password-reset', uncertain: false }),
      answer('engine.test.ts', 'How do I install on Windows?'),
      answer('engine.test.ts', 'What happens when I exceed the rate limit?'),
      answer('engine.test.ts', 'How are conflicts resolved?'),
      answer('engine.test.ts', 'What is the capital of Mongolia?', { silent: true }),
      answer('engine.test.ts', 'how fast does the email with the link come', { url: 'https://docs.example.com/start#password-reset', uncertain: true }),
      answer('engine.test.ts', 'my folders are not the same on both computers', { uncertain: true }),
      answer('engine.test.ts', ['How do I install the CLI?', 'Install the command-line tool with npm.', 'And on Windows?'], { url: 'https://docs.example.com/start#install-on-windows' }),
      answer('engine.test.ts', 'Can I reset the password of a shared team account?'),
    ],
  },
  {
    name: 'kb/docs',
    paths: ['kb/docs'],
    probes: [answer('crash-recovery.test.ts', 'What is the rate limit per token?')],
  },
  {
    name: 'help-center-five',
    paths: ['help-center-five'],
    probes: [
      answer('product.test.ts', 'do you guys take paypal?', { url: 'https://help.notely.test/billing#payment-methods', uncertain: false }),
      answer('product.test.ts', 'what happens to all my stuff if i close my account', { url: 'https://help.notely.test/account#what-happens-to-your-data', uncertain: false }),
      answer('product.test.ts', 'does it work on my android phone?', { url: 'https://help.notely.test/sync#supported-devices', uncertain: false }),
      answer('product.test.ts', 'can my coworkers join my account?', { url: 'https://help.notely.test/team#invite-teammates', uncertain: true }),
      answer('product.test.ts', "what's the weather in Paris tomorrow?", { silent: true }),
      answer('product.test.ts', 'write me a poem about the sea', { silent: true }),
    ],
  },
  {
    name: 'kb-two-pages/help',
    paths: ['kb-two-pages/help'],
    baseUrl: 'https://help.shop.test/',
    probes: [
      ...[
        ['how long do refunds take?', 'refunds'],
        ['refund policy', 'refunds'],
        ['when are invoices sent?', 'invoices'],
        ['where do I find my invoice', 'invoices'],
        ['how long do refnuds take', 'refunds'],
        ['when are invioces sent?', 'invoices'],
      ].map(([question, page]) => answer('short-kb.test.ts', question!, { urlIncludes: `/help/${page}` })),
      answer('short-kb.test.ts', 'what is the capital of France', { silent: true }),
      answer('short-kb.test.ts', 'how many tablespoons are in a cup', { silent: true }),
    ],
  },
  {
    name: 'kb-two-pages',
    paths: ['kb-two-pages'],
    baseUrl: 'https://docs.globex.example/',
    probes: [search('mcp.test.ts', 'download invoices billing acme-cli'), search('search.test.ts', 'install npm'), search('search.test.ts', 'download invoices refunds')],
  },
  {
    name: 'products',
    paths: ['products'],
    baseUrl: ACME,
    probes: [
      search('search.test.ts', 'download invoices', { url: `${ACME}products/billing#invoices` }),
      search('search.test.ts', 'billed monthly', { url: `${ACME}products/billing` }),
      search('search.test.ts', 'billing invoice plan payment refunds'),
      search('search.test.ts', 'download invoices refunds'),
      search('search.test.ts', 'how do I install it', { url: `${ACME}products/cli/install` }, `${ACME}products/cli/commands`),
      search('search.test.ts', 'how do I install it', { url: `${ACME}products/desktop/install` }, `${ACME}products/desktop/preferences`),
      search('search.test.ts', 'how do I install it', { url: `${ACME}products/desktop/install` }, `${ACME}products/desktop/install`),
      search('search.test.ts', 'download invoices', { url: `${ACME}products/billing#invoices` }, `${ACME}products/cli/commands`),
      search('searches.test.ts', 'refund'),
      search('searches.test.ts', 'invoice'),
      search('mcp.test.ts', 'install'),
      answer('search.test.ts', 'How do I install it?', { url: `${ACME}products/cli/install` }, `${ACME}products/cli/commands`),
      answer('mcp.test.ts', 'How do I install the CLI?'),
      answer('mcp.test.ts', 'How do I update the CLI?'),
    ],
  },
];

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') || name.endsWith('.mdx') ? [path] : [];
  });
}

/** Each heading of a corpus's Markdown pages, read with the Markdown parser, as a search a reader may type. */
export function headingSearches(corpus: Corpus): Probe[] {
  const headings = corpus.paths.flatMap((path) =>
    markdownFiles(join(FIXTURES, path)).flatMap((file) => {
      const tree = fromMarkdown(readFileSync(file, 'utf8'), { extensions: [frontmatter()], mdastExtensions: [frontmatterFromMarkdown()] });
      const found = tree.children.filter((node) => node.type === 'heading').map((node) => toString(node));
      return found.map((heading) => ({ heading, file: relative(FIXTURES, file) }));
    }),
  );
  const seen = new Set<string>();
  return headings.filter(({ heading }) => heading.trim() && !seen.has(heading) && seen.add(heading)).map(({ heading, file }) => search(`heading of ${file}`, heading));
}

/** An answer engine as the server makes it (sentence embeddings on, no LLM) on a throw-away SQLite database. */
async function engine() {
  const sql = await openSql({ dataDir: ':memory:' });
  await migrate(sql, migrations);
  return { engine: createAnswerEngine({ sql, llm: null }), close: () => sql.close() };
}

/** Ingests each corpus into an engine of its own and asks it every probe; what the record holds. */
export async function observe(corpora: Corpus[] = CORPORA, probesOf: (corpus: Corpus) => Probe[] = (c) => [...c.probes, ...headingSearches(c)]): Promise<Observation[]> {
  const observations: Observation[] = [];
  const signal = new AbortController().signal;
  for (const corpus of corpora) {
    const { engine: e, close } = await engine();
    await e.ingest('org', corpus.paths.map((path) => join(FIXTURES, path)), corpus.baseUrl ? { baseUrl: corpus.baseUrl } : {});
    await e.embedPending('org');
    for (const probe of probesOf(corpus)) {
      const base = { corpus: corpus.name, kind: probe.kind, turns: probe.turns, ...(probe.pageUrl ? { pageUrl: probe.pageUrl } : {}), ...(probe.expect ? { expect: probe.expect } : {}), from: probe.from };
      if (probe.kind === 'search') {
        const results = await searchDocs(e, 'org', probe.turns[0]!, { limit: 5, ...(probe.pageUrl ? { pageUrl: probe.pageUrl } : {}) });
        const top = results.map((r) => r.url);
        observations.push({ ...base, top, first: top[0] ?? null, uncertain: false });
      } else {
        const messages: Message[] = probe.turns.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content, sources: [] }));
        const reply = await e.answer({ orgId: 'org', messages, signal, ...(probe.pageUrl ? { context: { pageUrl: probe.pageUrl } } : {}) });
        const top = reply.sources.slice(0, 5).map((s) => s.url);
        observations.push({ ...base, top, first: top[0] ?? null, uncertain: reply.isUncertain ?? false, content: reply.content });
      }
    }
    await close();
  }
  return observations;
}

/** Whether an observation meets a test's expectation. */
export function meets(o: Pick<Observation, 'first' | 'uncertain'>, expect: Expectation): boolean {
  if (expect.silent) return o.first === null;
  if (expect.url !== undefined && o.first !== expect.url) return false;
  if (expect.urlIncludes !== undefined && !o.first?.includes(expect.urlIncludes)) return false;
  if (expect.uncertain !== undefined && o.uncertain !== expect.uncertain) return false;
  return true;
}

/** The key an accepted change names an observation by. */
export const probeKey = (o: Pick<Observation, 'corpus' | 'kind' | 'turns' | 'pageUrl'>) => `${o.corpus} | ${o.kind} | ${o.turns.join(' / ')}${o.pageUrl ? ` | on ${o.pageUrl}` : ''}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: tsx test/bench/differential.ts out.json');
  const observations = await observe();
  writeFileSync(out, JSON.stringify({ observations }, null, 1) + '\n');
  console.log(`${observations.length} observations written to ${out}`);
  process.exit(0);
}
