/**
 * @module Docs search beside the libraries a docs site would otherwise pick (MiniSearch, Lunr and
 * Orama, each with its defaults), measured side by side in one process on the same sections (ours
 * as served, and with no query embedding: what the dense stage adds and costs),
 * query by query in turn: Hit@5 of gold pages for short queries (a question's key words) and whole
 * questions, and the time of one search, at 1,000 and at 50,000 sections.
 *
 * The sections are the development sets' (../shared/bench docs, code and help), as our engine
 * stores them after `kb ingest` with their sentence embeddings; the other libraries index the same
 * rows (title with its heading path; text and code). 1,000 sections: the docs set, the code set and
 * the first help pages; 50,000: all three sets and perturbed copies of them (a fifth of the words
 * of each copy changed, the copy's address under `/copy-N/`), each copy keeping its original's
 * embedding. A copy of a gold page counts as the gold page. `BENCH_DATA_DIR=dir` keeps the ingested
 * sets between runs (as the engine bench does); `BENCH_COMPARE_SIZES=1000` measures one size,
 * `BENCH_COMPARE_SETS=docs,code` those sets alone.
 */
import MiniSearch from 'minisearch';
import lunr from 'lunr';
import { create as createOrama, insertMultiple, search as searchOrama, type AnyOrama } from '@orama/orama';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { searchDocs } from '../../src/server/knowledge/search.js';
import { readSearchQuery } from '../../src/protocol/schemas/index.js';
import type { Sql } from '../../src/server/store/sql.js';
import { DEV_SETS, memorySql, type BenchQuestion, type DevSet } from './engine.bench.js';
import { shortQuery } from './search.bench.js';
import { quantile, type BenchTable } from './table.js';

/** A stored section, as every engine here indexes it. */
interface Row {
  id: number;
  doc_key: string;
  ord: number;
  kind: string;
  title: string;
  context: string;
  url: string;
  body: string;
  code: string;
  lang: string;
  embedding: Uint8Array | null;
  embedding_by: string | null;
}

/** One engine's search: the addresses of its results, best first. */
type Search = (query: string) => string[] | Promise<string[]>;

/** How many results each engine is asked for: a page of results (the widget shows 8; `GET /v0/search` allows 20). */
const LIMIT = 10;

/** The page of an address, a copy's as its original's: no fragment, no `/copy-N` segment. */
function originalPage(url: string): string {
  const page = url.replace(/#.*$/, '');
  try {
    const parsed = new URL(page);
    parsed.pathname = parsed.pathname.replace(/^\/copy-\d+(?=\/)/, '');
    return parsed.href;
  } catch {
    return page.replace(/^copy-\d+\//, '');
  }
}

/**
 * The first `n` distinct pages of ranked addresses (what a results list grouped by page shows
 * first), each named as its original: a copy is a page of its own, so every engine shows `n`
 * pages however many results it returns, and a copy of a gold page counts as the gold page.
 */
function firstPages(urls: string[], n: number): string[] {
  const pages: string[] = [];
  for (const u of urls) {
    const page = u.replace(/#.*$/, '');
    if (!pages.includes(page)) pages.push(page);
    if (pages.length === n) break;
  }
  return pages.map(originalPage);
}

const pageOfGold = (g: string) => g.replace(/#.*$/, '');

/** A question of one set, asked of a corpus that holds its gold pages. */
interface Asked {
  set: DevSet;
  q: BenchQuestion;
}

/** A fixed pseudo-random sequence: the same copies on every run. */
function random(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** Copy `k` of a row: its address under `/copy-k/`, a fifth of its words (title, heading path, text) changed for words of the corpus. */
function perturbed(row: Row, k: number, vocabulary: string[], next: () => number): Row {
  const change = (text: string) =>
    text
      .split(' ')
      .map((w) => (w && next() < 0.2 ? vocabulary[Math.floor(next() * vocabulary.length)]! : w))
      .join(' ');
  let url: string;
  try {
    const parsed = new URL(row.url);
    parsed.pathname = `/copy-${k}${parsed.pathname}`;
    url = parsed.href;
  } catch {
    url = `copy-${k}/${row.url}`;
  }
  return { ...row, doc_key: `copy-${k}/${row.doc_key}`, url, title: change(row.title), context: change(row.context), body: change(row.body) };
}

/** Stores `rows` as organization `orgId`'s sections (no documents are needed to rank them). */
async function store(sql: Sql, orgId: string, rows: Row[]): Promise<void> {
  await sql.transaction(async (tx) => {
    for (const r of rows) {
      await tx.run(
        'INSERT INTO kb_sections (org_id, doc_key, ord, kind, title, context, url, body, code, lang, embedding, embedding_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [orgId, r.doc_key, r.ord, r.kind, r.title, r.context, r.url, r.body, r.code, r.lang, r.embedding, r.embedding_by],
      );
    }
    await tx.run('INSERT INTO kb_versions (org_id, version) VALUES (?, 1) ON CONFLICT (org_id) DO UPDATE SET version = kb_versions.version + 1', [orgId]);
  });
}

/** The corpus of `size` sections (see the module's note) and the questions whose gold pages it holds. */
function corpus(sets: { set: DevSet; rows: Row[] }[], size: number): { rows: Row[]; asked: Asked[] } {
  const all = sets.flatMap((s) => s.rows);
  const rows = all.slice(0, size);
  if (rows.length < size) {
    const vocabulary = [...new Set(all.flatMap((r) => r.body.split(/\s+/)).filter((w) => /^[a-z]{3,}$/i.test(w)))];
    const next = random(7);
    for (let k = 1; rows.length < size; k++) for (const r of all) if (rows.length < size) rows.push(perturbed(r, k, vocabulary, next));
  }
  const held = new Set(rows.map((r) => originalPage(r.url)));
  const asked: Asked[] = [];
  for (const { set } of sets) {
    for (const q of set.questions) {
      if (q.kind === 'followup' || q.kind === 'out_of_scope') continue;
      // Code gold names files, which every section of the file's address ends with.
      const present = set.name === 'code' ? q.gold.every((g) => [...held].some((p) => p.endsWith(g))) : q.gold.every((g) => held.has(pageOfGold(g)));
      if (present) asked.push({ set, q });
    }
  }
  return { rows, asked };
}

/** The other engines over the same rows, each with its defaults: title (with the heading path) and text (prose and code). */
async function libraries(rows: Row[]): Promise<Record<string, Search>> {
  const docs = rows.map((r, i) => ({ id: i, title: [r.title, r.context].filter(Boolean).join(' '), text: `${r.body}\n${r.code}` }));
  const url = (i: number) => rows[i]!.url;

  const mini = new MiniSearch({ fields: ['title', 'text'] });
  mini.addAll(docs);

  const lunrIndex = lunr(function () {
    this.ref('id');
    this.field('title');
    this.field('text');
    for (const d of docs) this.add(d);
  });

  const orama: AnyOrama = createOrama({ schema: { title: 'string', text: 'string' } as const });
  // Orama keeps its own ids as strings.
  await insertMultiple(orama, docs.map((d) => ({ id: String(d.id), title: d.title, text: d.text })), 1_000);

  return {
    MiniSearch: (q) => mini.search(q).slice(0, LIMIT * 3).map((r) => url(r.id as number)),
    // Lunr's query syntax (`+`, `-`, `:`, `~`, `^`) is not a visitor's: the query's words are searched as terms, as a docs site's box does.
    // Lunr's own lookup throws on some terms of a large index (`posting._index` of undefined): such a
    // query finds nothing, and the table's notes count them.
    Lunr: (q) => {
      try {
        return lunrIndex
          .query((query) => query.term(lunr.tokenizer(q), {}))
          .slice(0, LIMIT * 3)
          .map((r) => url(Number(r.ref)));
      } catch {
        lunrFailures.count++;
        return [];
      }
    },
    Orama: async (q) => (await searchOrama(orama, { term: q, limit: LIMIT * 3 })).hits.map((h) => url(Number(h.id))),
  };
}

/** Queries Lunr threw on (see `libraries`), in the run under way. */
const lunrFailures = { count: 0 };

interface Measured {
  short: number[];
  whole: number[];
  hitsShort: number;
  hitsWhole: number;
}

/** Every engine asked every question, short then whole, the engines' order turning query by query. */
async function measure(engines: Record<string, Search>, asked: Asked[]): Promise<Map<string, Measured>> {
  const names = Object.keys(engines);
  const out = new Map(names.map((n) => [n, { short: [], whole: [], hitsShort: 0, hitsWhole: 0 } as Measured]));
  let turn = 0;
  for (const { set, q } of asked) {
    const gold = q.gold.map(pageOfGold);
    const isHit = (urls: string[]) => firstPages(urls, 5).some((p) => gold.some((g) => set.match(p, g)));
    for (const kind of ['short', 'whole'] as const) {
      const text = kind === 'short' ? shortQuery(q.question) : q.question;
      turn++;
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + turn) % names.length]!;
        const started = performance.now();
        const urls = await engines[name]!(text);
        const ms = performance.now() - started;
        const m = out.get(name)!;
        m[kind].push(ms);
        if (isHit(urls)) m[kind === 'short' ? 'hitsShort' : 'hitsWhole']++;
      }
    }
  }
  return out;
}

export async function run(): Promise<BenchTable[]> {
  const sql = await memorySql(process.env.BENCH_DATA_DIR);
  const ingesting = createAnswerEngine({ sql, llm: null });
  const sets: { set: DevSet; rows: Row[] }[] = [];
  const only = process.env.BENCH_COMPARE_SETS?.split(',');
  for (const set of DEV_SETS.filter((s) => !s.heldOut && (!only || only.includes(s.name)))) {
    await ingesting.ingest(set.name, [set.root], { baseUrl: set.baseUrl });
    await ingesting.embedPending(set.name);
    const rows = await sql.all<Row>('SELECT id, doc_key, ord, kind, title, context, url, body, code, lang, embedding, embedding_by FROM kb_sections WHERE org_id = ? ORDER BY doc_key, ord', [set.name]);
    sets.push({ set, rows });
  }
  const sizes = (process.env.BENCH_COMPARE_SIZES ?? '1000,50000').split(',').map(Number);
  const tables: BenchTable[] = [];
  for (const size of sizes) {
    const orgId = `compare-${size}`;
    const { rows, asked } = corpus(sets, size);
    await sql.run('DELETE FROM kb_sections WHERE org_id = ?', [orgId]);
    await store(sql, orgId, rows);
    // A fresh engine per corpus: no question's embedding is kept from another corpus.
    const ours = createAnswerEngine({ sql, llm: null });
    const engines: Record<string, Search> = {
      // As served: parameters read, ranked (words, pages, meaning when the words are weak), excerpts made, the body serialized.
      ours: async (text) => {
        const { q } = readSearchQuery(new URLSearchParams({ q: text.slice(0, 500) }));
        const results = await searchDocs(ours, orgId, q, { limit: LIMIT });
        JSON.stringify({ results });
        return results.map((r) => r.url);
      },
      // The same with no query embedding at all: what the dense stage adds to a search, and costs.
      'ours, words only': async (text) => {
        const { q } = readSearchQuery(new URLSearchParams({ q: text.slice(0, 500) }));
        const wordsOnly = { search: (org: string, query: string, options: { limit: number }) => ours.search(org, query, { ...options, vector: null }) };
        const results = await searchDocs(wordsOnly, orgId, q, { limit: LIMIT });
        JSON.stringify({ results });
        return results.map((r) => r.url);
      },
      ...(await libraries(rows)),
    };
    // Warm every index (ours is built on its first search).
    for (const search of Object.values(engines)) await search('warm up the index');
    lunrFailures.count = 0;
    const measured = await measure(engines, asked);
    const n = asked.length;
    tables.push({
      title: `Search beside MiniSearch, Lunr and Orama: ${rows.length.toLocaleString('en')} sections`,
      columns: ['engine', 'Hit@5 short', 'Hit@5 whole', 'p50 ms short', 'p95 ms short', 'p50 ms whole', 'p95 ms whole', 'p50 ms all', 'p95 ms all'],
      rows: [...measured].map(([name, m]) => [
        name,
        m.hitsShort / n,
        m.hitsWhole / n,
        quantile(m.short, 0.5),
        quantile(m.short, 0.95),
        quantile(m.whole, 0.5),
        quantile(m.whole, 0.95),
        quantile([...m.short, ...m.whole], 0.5),
        quantile([...m.short, ...m.whole], 0.95),
      ]),
      notes: [
        ...(lunrFailures.count ? [`Lunr threw on ${lunrFailures.count} of its ${2 * n} queries (its index lookup, on some terms of a large index); each counts as finding nothing.`] : []),
        `${n} questions of the development sets whose gold pages the corpus holds, each asked as its key words (\`shortQuery\`) and whole; a hit when one of the first five pages of the results is a gold page (code: a gold file; a copy counts as its original). Every engine asked each query in turn, the order turning. Goals: ours' Hit@5 short ≥ MiniSearch's; at 1,000 sections p50 ≤ 3 × MiniSearch's and p95 ≤ 2 ×; at 50,000 p50 ≤ 10 ms.`,
      ],
    });
    await sql.run('DELETE FROM kb_sections WHERE org_id = ?', [orgId]);
  }
  return tables;
}
