/**
 * @module Answer quality on the shared benchmark data (read in place from ../shared/bench), through
 * the same engine the server uses, beside plain minisearch with default options over the same
 * sections; then answer latency, index build time and memory on 50,000 synthetic sections.
 */
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { parseFile } from '../../src/server/answers/knowledge-base.js';
import type { Message } from '../../src/protocol/index.js';
import { quantile, type BenchTable } from './table.js';

const bench = resolve(import.meta.dirname, '../../../shared/bench');

// A full collection before each memory reading, so the index's size is not mixed with garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

const ask = (question: string): Message[] => [{ role: 'user', content: question, sources: [] }];

/** Plain minisearch (default options, fields title + text) over the same sections the engine indexes. */
function baseline(root: string) {
  const docs = files(root).flatMap((file) => {
    const parsed = parseFile(readFileSync(file, 'utf8'), relative(dirname(root), file), '');
    return (parsed?.sections ?? []).map((s, i) => ({ id: `${file}#${i}`, title: s.title, text: `${s.body}\n${s.code}`, url: s.url }));
  });
  const index = new MiniSearch({ fields: ['title', 'text'], storeFields: ['url'] });
  index.addAll(docs);
  return (query: string, limit: number) => {
    const urls: string[] = [];
    for (const r of index.search(query)) {
      const url = r.url as string;
      if (!urls.includes(url)) urls.push(url);
      if (urls.length === limit) break;
    }
    return urls;
  };
}

interface Scores {
  r5: number;
  h5: number;
  mrr: number;
  r10?: number;
}

function score(questions: { gold: string[] }[], ranked: (i: number) => string[], answered: (i: number) => string[], match: (url: string, gold: string) => boolean): Scores {
  let r5 = 0, h5 = 0, mrr = 0, r10 = 0;
  questions.forEach((q, i) => {
    const top5 = answered(i);
    const list = ranked(i);
    const found = q.gold.filter((g) => top5.some((u) => match(u, g))).length;
    r5 += found / q.gold.length;
    h5 += found > 0 ? 1 : 0;
    r10 += q.gold.filter((g) => list.slice(0, 10).some((u) => match(u, g))).length / q.gold.length;
    const rank = list.slice(0, 10).findIndex((u) => q.gold.some((g) => match(u, g)));
    if (rank >= 0) mrr += 1 / (rank + 1);
  });
  const n = questions.length;
  return { r5: r5 / n, h5: h5 / n, mrr: mrr / n, r10: r10 / n };
}

export async function run(): Promise<BenchTable[]> {
  const engine = createAnswerEngine({ db: new Database(':memory:'), llm: null });
  const signal = new AbortController().signal;
  const tables: BenchTable[] = [];

  // Docs: ranked sections, Recall@5 and Hit@5 on the answer's sources, MRR@10 on the ranked list.
  const docsRoot = join(bench, 'docs/pages');
  await engine.ingest('docs', [docsRoot]);
  const docQuestions = JSON.parse(readFileSync(join(bench, 'docs/questions.json'), 'utf8')) as { question: string; gold: string[] }[];
  const answers: string[][] = [];
  const ranked: string[][] = [];
  const latencies: number[] = [];
  for (const q of docQuestions) {
    const started = performance.now();
    const answer = await engine.answer({ orgId: 'docs', messages: ask(q.question), signal });
    latencies.push(performance.now() - started);
    answers.push(answer.sources.map((s) => s.url));
    const urls: string[] = [];
    for (const hit of await engine.search('docs', q.question, { limit: 20 })) if (!urls.includes(hit.section.url)) urls.push(hit.section.url);
    ranked.push(urls);
  }
  const same = (u: string, g: string) => u === g;
  const ours = score(docQuestions, (i) => ranked[i]!, (i) => answers[i]!, same);
  const mini = baseline(docsRoot);
  const miniRanked = docQuestions.map((q) => mini(q.question, 10));
  const base = score(docQuestions, (i) => miniRanked[i]!, (i) => miniRanked[i]!.slice(0, 5), same);
  tables.push({
    title: `Docs (${docQuestions.length} questions)`,
    columns: ['system', 'Recall@5', 'Hit@5', 'MRR@10'],
    rows: [
      ['support-chat (answer sources; ranked list for MRR)', ours.r5, ours.h5, ours.mrr],
      ['minisearch defaults (title + text)', base.r5, base.h5, base.mrr],
    ],
    notes: ['Goals: Recall@5 ≥ 0.85, MRR@10 ≥ 0.87.'],
  });

  // Code: file level; a source counts when its address, without #L…, names a gold file.
  const codeRoot = join(bench, 'code/files');
  await engine.ingest('code', [codeRoot]);
  const codeQuestions = JSON.parse(readFileSync(join(bench, 'code/questions.json'), 'utf8')) as { question: string; gold: string[] }[];
  const fileRanked: string[][] = [];
  const fileAnswers: string[][] = [];
  for (const q of codeQuestions) {
    const fileList: string[] = [];
    for (const hit of await engine.search('code', q.question, { limit: 40 })) {
      const file = hit.section.url.replace(/#.*$/, '');
      if (!fileList.includes(file)) fileList.push(file);
    }
    fileRanked.push(fileList);
    const answer = await engine.answer({ orgId: 'code', messages: ask(q.question), signal });
    fileAnswers.push(answer.sources.map((s) => s.url.replace(/#.*$/, '')));
  }
  const endsWith = (u: string, g: string) => u.endsWith(g);
  const codeOurs = score(codeQuestions, (i) => fileRanked[i]!, (i) => fileAnswers[i]!, endsWith);
  const codeMini = baseline(codeRoot);
  const codeMiniRanked = codeQuestions.map((q) => {
    const list: string[] = [];
    for (const url of codeMini(q.question, 40)) {
      const file = url.replace(/#.*$/, '');
      if (!list.includes(file)) list.push(file);
    }
    return list;
  });
  const codeBase = score(codeQuestions, (i) => codeMiniRanked[i]!, (i) => codeMiniRanked[i]!.slice(0, 5), endsWith);
  tables.push({
    title: `Code, file level (${codeQuestions.length} questions)`,
    columns: ['system', 'Recall@5 (answer)', 'Recall@10 (ranked)', 'MRR@10'],
    rows: [
      ['support-chat', codeOurs.r5, codeOurs.r10!, codeOurs.mrr],
      ['minisearch defaults (title + text)', codeBase.r5, codeBase.r10!, codeBase.mrr],
    ],
    notes: ['Goal: file-level Recall@10 ≥ 0.95.'],
  });

  // 50,000 synthetic sections, deterministic, ingested and answered through the same path.
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-kb50k-'));
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => `term${i.toString(36)}`);
  const word = () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]!;
  for (let f = 0; f < 1_000; f++) {
    const sub = join(dir, `area${f % 20}`);
    mkdirSync(sub, { recursive: true });
    const lines = [`---\ntitle: Page ${f}\nurl: https://docs.example.com/p${f}\n---\n`];
    for (let s = 0; s < 50; s++) {
      lines.push(`## Section ${f}-${s} ${word()} ${word()}\n`);
      lines.push(Array.from({ length: 60 }, word).join(' ') + '.\n');
    }
    writeFileSync(join(sub, `page-${f}.md`), lines.join('\n'));
  }
  const bigEngine = createAnswerEngine({ db: new Database(':memory:'), llm: null });
  const ingestStart = performance.now();
  await bigEngine.ingest('big', [dir]);
  const ingestMs = performance.now() - ingestStart;
  gc();
  // The postings live in typed arrays, whose memory is outside the JS heap: count both.
  const used = () => {
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const heapBefore = used();
  // The build yields to the event loop: how long can it hold a server's other requests up?
  const pauses = monitorEventLoopDelay({ resolution: 5 });
  pauses.enable();
  const buildStart = performance.now();
  await bigEngine.search('big', 'warm up the index');
  const buildMs = performance.now() - buildStart;
  // One more timer turn, so a pause that lasted until the build's end is recorded too.
  await new Promise((done) => setTimeout(done, 20));
  pauses.disable();
  gc();
  const heapMb = (used() - heapBefore) / 1024 / 1024;
  const stats = await bigEngine.stats('big');
  const bigLatencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const question = `How does ${word()} work with ${word()} and ${word()}?`;
    const started = performance.now();
    await bigEngine.answer({ orgId: 'big', messages: ask(question), signal });
    bigLatencies.push(performance.now() - started);
  }
  rmSync(dir, { recursive: true, force: true });
  tables.push({
    title: 'Latency and index size',
    columns: ['measure', 'value'],
    rows: [
      ['answer p50 ms (docs set, 232 sections)', quantile(latencies, 0.5)],
      ['answer p95 ms (docs set)', quantile(latencies, 0.95)],
      [`sections in the synthetic knowledge base`, stats.sections],
      ['ingest ms (parse + SQLite)', ingestMs],
      ['index build ms (in memory, on the first question after a change)', buildMs],
      ['longest event-loop pause during the build ms', pauses.max / 1e6],
      ['index memory MB (JS heap + typed arrays)', heapMb],
      ['answer p50 ms (50,000 sections)', quantile(bigLatencies, 0.5)],
      ['answer p95 ms (50,000 sections)', quantile(bigLatencies, 0.95)],
    ],
    notes: ['Goal: answer p50 ≤ 30 ms on 50,000 sections.'],
  });
  return tables;
}
