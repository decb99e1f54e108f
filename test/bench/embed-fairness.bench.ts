/**
 * @module The embedding pool, measured: (a) organization B's ordinary search over HTTP against the
 * real server while organization A sends batches of 100 `search_docs` calls with long queries over
 * `POST /v0/mcp`, against B alone; (b) ingest sections per second on one core (the whole process
 * held to one CPU, the pool at one thread), with the pool at one thread on every core, and at one
 * thread per core, on the docs pages of ../shared/bench (read in place).
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import { startServer } from '../../src/server/index.js';
import { EmbeddingPool } from '../../src/server/knowledge/ranking/embedding-pool.js';
import { poolEncoder } from '../../src/server/knowledge/ranking/embeddings.js';
import { silentLogger } from '../../src/server/log.js';
import { migrate } from '../../src/server/store/migrate.js';
import { openSql } from '../../src/server/store/sql.js';
import { migrations } from '../../src/server/schema.js';
import { quantile, type BenchTable } from './table.js';

const bench = resolve(import.meta.dirname, '../../../shared/bench');
const pages = resolve(bench, 'docs/pages');
const questions = (JSON.parse(readFileSync(resolve(bench, 'docs/questions.json'), 'utf8')) as { question: string }[]).map((q) => q.question);

/** B's searches per phase, and A's batches sent at once. */
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 40);
const BATCH = 100;
const SENDERS = 2;

/** A query of about 490 characters: questions of the set run together, a different one each call. */
function longQuery(i: number): string {
  let text = '';
  for (let k = i; text.length < 490; k++) text += `${questions[k % questions.length]} `;
  return text.slice(0, 490).trim();
}

const ms = (values: number[], q: number) => Math.round(quantile(values, q));

/** (a) B's search latency alone and while A floods `search_docs` batches. */
async function fairness(): Promise<BenchTable> {
  const limits = { perToken: 1_000_000, perOrganization: 1_000_000, perAddress: 1_000_000 };
  // A batch of 100 long queries may take minutes on a busy machine: the server's timeouts are raised so it is not cut.
  const connections = { requestTimeoutMs: 900_000, idleTimeoutMs: 900_000 };
  const api = await startServer({ dataDir: ':memory:', port: 0, logger: silentLogger, env: {}, rateLimits: limits, connections });
  try {
    const kb = api.server.engine.knowledge!;
    await kb.warmEmbeddings();
    // B searches the docs; A's queries are embedded whatever its knowledge base holds, so A gets none (one ingest less to wait for).
    await kb.ingest('org-b', [pages]);
    const token = async (orgId: string) => (await api.server.tokens.create({ orgId, name: 'bench', scopes: ['chat:read'] })).token;
    const [a, b] = [await token('org-a'), await token('org-b')];
    const searchB = async (i: number) => {
      const q = questions[(i * 7) % questions.length]!;
      const started = performance.now();
      const response = await fetch(`${api.url}/v0/search?q=${encodeURIComponent(q)}&limit=5`, { headers: { authorization: `Bearer ${b}` } });
      await response.json();
      if (response.status !== 200) throw new Error(`B's search answered ${response.status}`);
      return performance.now() - started;
    };
    const phaseB = async () => {
      const times: number[] = [];
      for (let i = 0; i < SEARCHES; i++) {
        times.push(await searchB(i));
        // A reader's pace: searches a few hundred milliseconds apart.
        await new Promise((r) => setTimeout(r, 200));
      }
      return times;
    };
    await searchB(0);
    const idle = await phaseB();
    let stop = false;
    let calls = 0;
    let errors = 0;
    let next = 0;
    const sender = async () => {
      while (!stop) {
        const body = Array.from({ length: BATCH }, (_, k) => ({ jsonrpc: '2.0', id: k, method: 'tools/call', params: { name: 'search_docs', arguments: { query: longQuery(next++), limit: 5 } } }));
        let answers: { error?: unknown; result?: { isError?: boolean } }[] | { error?: unknown };
        try {
          const response = await fetch(`${api.url}/v0/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${a}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
            body: JSON.stringify(body),
          });
          answers = (await response.json()) as typeof answers;
        } catch {
          answers = { error: 'no answer' };
        }
        if (!Array.isArray(answers)) errors += BATCH;
        else {
          calls += answers.length;
          errors += answers.filter((r) => r.error || r.result?.isError).length;
        }
      }
    };
    const started = performance.now();
    const senders = Array.from({ length: SENDERS }, sender);
    // A's batches are queued before B starts.
    await new Promise((r) => setTimeout(r, 1000));
    const loaded = await phaseB();
    stop = true;
    await Promise.all(senders);
    const seconds = (performance.now() - started) / 1000;
    const ratio = (q: number) => (quantile(loaded, q) / quantile(idle, q)).toFixed(1);
    return {
      title: `B's search (GET /v0/search of the docs pages, ${SEARCHES} questions) while A sends ${SENDERS} × ${BATCH}-call search_docs batches (490-character queries) over POST /v0/mcp; real server, SQLite, ${kb.embeddingStatus().size} embedding threads`,
      columns: ['B', 'p50, ms', 'p95, ms', 'p50 × idle', 'p95 × idle'],
      rows: [
        ['alone', ms(idle, 0.5), ms(idle, 0.95), '1.0', '1.0'],
        ['while A floods', ms(loaded, 0.5), ms(loaded, 0.95), ratio(0.5), ratio(0.95)],
      ],
      notes: [`A: ${calls} calls answered in ${seconds.toFixed(0)} s (${(calls / seconds).toFixed(1)}/s), ${errors} errors.`, 'Goal: B under 3× idle.'],
    };
  } finally {
    await api.close();
  }
}

/** (b) One ingest of the docs pages into a fresh database with a pool of `size` threads (started before the clock). */
async function ingestRate(size: number): Promise<{ sections: number; seconds: number; cpu: number }> {
  const pool = new EmbeddingPool({ size });
  const sql = await openSql({ dataDir: ':memory:' });
  try {
    await migrate(sql, migrations);
    await pool.warm(size);
    while (pool.status().threads < size) await new Promise((r) => setTimeout(r, 50));
    const kb: KnowledgeBase = createAnswerEngine({ sql, llm: null, embedder: poolEncoder(pool) });
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await kb.ingest('acme', [pages]);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return { sections: report.sections, seconds, cpu: (used.user + used.system) / 1e6 / seconds };
  } finally {
    await sql.close();
    await pool.close();
  }
}

/**
 * Holds every thread of this process, and the threads it starts from now on, to the CPUs `cpus`
 * names (`0`, `0-1`), with util-linux's `taskset`; false where it cannot (not Linux, no `taskset`).
 */
function holdTo(cpus: string): boolean {
  try {
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** (b) Ingest on one core, and with the pool at one thread and at one per core on all of them. */
async function ingestTable(): Promise<BenchTable> {
  const cores = availableParallelism();
  const every = `0-${cores - 1}`;
  // One core: the main thread's parsing, the pool's thread and the runtime's own threads take turns on CPU 0.
  const pinned = holdTo('0') ? await ingestRate(1).finally(() => holdTo(every)) : null;
  const one = await ingestRate(1);
  const all = await ingestRate(cores);
  const base = pinned ?? one;
  const rate = (r: typeof one) => (r.sections / r.seconds).toFixed(1);
  const row = (name: string, r: typeof one) => [name, r.seconds.toFixed(1), rate(r), r.cpu.toFixed(2), (base.seconds / r.seconds).toFixed(2), (one.seconds / r.seconds).toFixed(2)];
  return {
    title: `Ingest of the docs pages (${one.sections} sections, read in place) by the embedding pool`,
    columns: ['run', 'seconds', 'sections/s', 'cores busy', 'speed-up over one core', 'speed-up over one thread'],
    rows: [
      ...(pinned ? [row('one core (the process held to CPU 0), pool of 1 thread', pinned)] : []),
      row(`pool of 1 thread, ${cores} cores`, one),
      row(`pool of ${cores} threads, ${cores} cores (all cores)`, all),
    ],
    notes: [
      ...(pinned ? [] : ['One core was not measured: the process could not be held to one CPU here (`taskset`, Linux).']),
      'One core: every thread of the process held to CPU 0 with `taskset`, so parsing and embedding share it. A pool of one thread on all cores still parses on the main thread beside it (more than one core busy).',
      'Goal: all cores ≥ 1.8× one core on 2 cores.',
    ],
  };
}

export async function run(): Promise<BenchTable[]> {
  // BENCH_EMBED_PART=ingest or fairness runs one part.
  const part = process.env.BENCH_EMBED_PART;
  if (part === 'fairness') return [await fairness()];
  const ingest = await ingestTable();
  return part === 'ingest' ? [ingest] : [ingest, await fairness()];
}
