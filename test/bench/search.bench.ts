/**
 * @module Docs search (`GET /v0/search`, `searchDocs`): quality on every development set and the
 * held-out ones (Hit@5 of gold pages, for a short query and the question typed as a sentence), and
 * the server's time per search on 50,000 sections. `BENCH_DATA_DIR=dir` keeps the ingested sets
 * between runs, as the engine bench does; `BENCH_SCALE_ONLY=1` measures latency alone.
 */
import { rmSync } from 'node:fs';
import { words } from '../../src/server/knowledge/text/text.js';
import { searchDocs } from '../../src/server/knowledge/search.js';
import { readSearchQuery } from '../../src/protocol/schemas/index.js';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { DEV_SETS, memoryEngine, syntheticKnowledgeBase, type BenchQuestion, type DevSet } from './engine.bench.js';
import { mainThreadCpuMs } from '../helpers/main-thread-cpu.js';
import { quantile, type BenchTable } from './table.js';

/**
 * A question as a visitor types it into a search field: its content words in their order, as
 * written (the retrieval tokenizer's stopwords left out: "how", "do", "I", "my"). Derived by code
 * from any question, knowing nothing of the benchmark.
 *
 * @example
 * shortQuery('How do I rotate my API keys?'); // 'rotate API keys'
 */
export function shortQuery(question: string): string {
  return words(question).filter((w) => w.terms.length > 0).map((w) => w.word).join(' ') || question;
}

/** The page of an address: without its fragment (a section's anchor, a code piece's lines). */
const pageOf = (url: string) => url.replace(/#.*$/, '');

/** Whether one of the first five results lies on a gold page (code: a gold file). */
function hit(set: DevSet, q: BenchQuestion, urls: string[]): boolean {
  const gold = q.gold.map(pageOf);
  return urls.slice(0, 5).some((u) => gold.some((g) => set.match(pageOf(u), g)));
}

async function qualityTable(): Promise<BenchTable> {
  const engine = await memoryEngine();
  const rows: (string | number)[][] = [];
  for (const set of DEV_SETS) {
    await engine.ingest(set.name, [set.root], { baseUrl: set.baseUrl });
    await engine.embedPending(set.name);
    // Follow-ups need their conversation and out-of-scope questions have no gold: a search is one query.
    const asked = set.questions.filter((q) => q.kind !== 'followup' && q.kind !== 'out_of_scope');
    let short = 0;
    let sentence = 0;
    for (const q of asked) {
      const query = (text: string) => searchDocs(engine, set.name, readSearchQuery(new URLSearchParams({ q: text.slice(0, 500) })).q, { limit: 5 });
      if (hit(set, q, (await query(shortQuery(q.question))).map((r) => r.url))) short++;
      if (hit(set, q, (await query(q.question)).map((r) => r.url))) sentence++;
    }
    const n = asked.length;
    rows.push([`${set.name}${set.heldOut ? ' (held out)' : ''}`, n, short / n, sentence / n, (short + sentence) / (2 * n)]);
  }
  return {
    title: 'Search quality: Hit@5 of gold pages',
    columns: ['set', 'questions', 'short query', 'typed as a sentence', 'both'],
    rows,
    notes: [
      'The first five results of `searchDocs` (what `GET /v0/search?limit=5` answers): a hit when one lies on a gold page (code: a gold file). Short query: the question\'s content words, derived by code (`shortQuery`); sentence: the question as written. Follow-ups and out-of-scope questions are left out.',
      'Goal: ≥ 0.90 on each set, both kinds of query counted.',
    ],
  };
}

async function latencyTable(): Promise<BenchTable> {
  const { dir, word, sql } = await syntheticKnowledgeBase();
  const engine = createAnswerEngine({ sql, llm: null });
  await searchDocs(engine, 'big', 'warm up the index');
  const short: number[] = [];
  const sentences: number[] = [];
  const cpuBefore = mainThreadCpuMs();
  const processBefore = process.cpuUsage();
  const SEARCHES = 200;
  for (let i = 0; i < SEARCHES; i++) {
    for (const [text, into] of [
      [`${word()} ${word()}`, short],
      [`How does ${word()} work with ${word()} and ${word()}?`, sentences],
    ] as const) {
      // The server's work for one request: read the parameters, search, write the body.
      const started = performance.now();
      const { q, limit } = readSearchQuery(new URLSearchParams({ q: text, limit: '8' }));
      JSON.stringify({ results: await searchDocs(engine, 'big', q, { limit }) });
      into.push(performance.now() - started);
    }
  }
  const cpu = (mainThreadCpuMs() - cpuBefore) / (2 * SEARCHES);
  const { user, system } = process.cpuUsage(processBefore);
  const processCpu = (user + system) / 1000 / (2 * SEARCHES);
  rmSync(dir, { recursive: true, force: true });
  const all = [...short, ...sentences];
  return {
    title: 'Search latency on 50,000 sections',
    columns: ['measure', 'value'],
    rows: [
      ['search p50 ms (server time, all queries)', quantile(all, 0.5)],
      ['search p95 ms (server time, all queries)', quantile(all, 0.95)],
      ['search p50 ms, two-word queries', quantile(short, 0.5)],
      ['search p50 ms, questions as sentences', quantile(sentences, 0.5)],
      ['CPU ms per search, main thread (mean)', cpu],
      ["CPU ms per search, all threads (mean; the rest is the embedding model's thread)", processCpu],
    ],
    notes: [
      "Server time: parameters read, the query embedded (the model's thread), ranked (words, pages, meaning over 50,000 random vectors), excerpts made and the body serialized, on a warm index; 200 searches of each kind. The question is embedded on the model's thread while the main thread ranks by words. Goal: p50 ≤ 20 ms, p95 ≤ 60 ms.",
      'On a machine shared with other work the clock counts waiting for a core too: the CPU figures are what one search costs.',
    ],
  };
}

export async function run(): Promise<BenchTable[]> {
  const tables: BenchTable[] = [];
  if (!process.env.BENCH_SCALE_ONLY) tables.push(await qualityTable());
  if (!process.env.BENCH_QUICK) tables.push(await latencyTable());
  return tables;
}
