/**
 * @module What one request costs and how far a deployment goes, on SQLite (one `--role all`
 * process) and on PostgreSQL + Redis (an `--role api` process and `--role worker` processes) in the
 * same run: database statements, Redis commands and API CPU time per GET, per POST and per
 * answered question; GET and POST throughput of one API process; how soon a long poll wakes after
 * a worker completes the answer; answer jobs claimed and completed per second by 1, 2 and 4
 * workers when each answer takes 1 s. PostgreSQL figures need BENCH_DATABASE_URL's server
 * (default postgres://postgres@127.0.0.1:5432/postgres) and Redis (BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379); without them only SQLite is measured.
 */
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { missingServices } from '../helpers/cluster.js';
import { quantile, type BenchTable } from './table.js';
import type { Command, Counters } from './scale-target.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 4);
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Requests in each cost measurement, and how many are in flight at once. */
const SAMPLES = 300;
const IN_FLIGHT = 10;
/** Questions timed for the long poll's wakeup. */
const WAKEUPS = 40;
/** Answer jobs each worker count is timed on, and what one answer takes. */
const JOBS = 48;
const ANSWER_MS = 1_000;
/** How long an idle worker is watched. */
const IDLE_MS = 3_000;

interface Target {
  child: ChildProcess;
  url: string | null;
  command<T>(command: Command): Promise<T>;
  stop(): Promise<void>;
}

/** Starts a server process of `role` (see scale-target.ts) and waits until it is ready. */
async function target(role: 'api' | 'worker' | 'all', env: NodeJS.ProcessEnv): Promise<Target> {
  const child = fork(join(import.meta.dirname, 'scale-target.ts'), [role], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const url = await new Promise<string | null>((resolve, reject) => {
    child.once('message', (message: { ready: string | null }) => resolve(message.ready));
    child.once('exit', (code) => reject(new Error(`bench ${role} process exited with ${code}`)));
  });
  let next = 0;
  const waiting = new Map<number, (reply: unknown) => void>();
  child.on('message', (message: { id?: number; reply?: unknown }) => {
    if (message.id === undefined) return;
    waiting.get(message.id)?.(message.reply);
    waiting.delete(message.id);
  });
  return {
    child,
    url,
    command<T>(command: Command) {
      const id = next++;
      return new Promise<T>((resolve) => {
        waiting.set(id, resolve as (reply: unknown) => void);
        child.send({ id, command });
      });
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface Backend {
  name: string;
  api: Target;
  /** The processes that answer (the API process itself on SQLite). */
  workers: Target[];
  /** Processes whose costs count (the API process and the workers, once each). */
  all: Target[];
  /** Answer jobs not done yet (read outside the measured processes). */
  pending(): Promise<number>;
  /** Answer jobs claimed at least once. */
  claimed(): Promise<number>;
  startWorker(): Promise<Target>;
  close(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-scale-bench-'));
  const api = await target('all', { BENCH_DATA_DIR: dataDir, BENCH_DATABASE_URL: '', BENCH_REDIS_URL: '' });
  const db = new Database(join(dataDir, 'support-chat.db'), { readonly: true });
  const count = (where: string) => (db.prepare(`SELECT COUNT(*) AS n FROM jobs WHERE ${where}`).get() as { n: number }).n;
  return {
    name: 'SQLite',
    api,
    workers: [api],
    all: [api],
    pending: async () => count("state <> 'done'"),
    claimed: async () => count('attempts > 0'),
    startWorker: () => Promise.reject(new Error('SQLite runs one process')),
    async close() {
      await api.stop();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const schema = `bench_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('schema', schema);
  const env = { BENCH_DATABASE_URL: url.toString(), BENCH_REDIS_URL: REDIS_URL };
  // The API process migrates the empty schema before any worker opens it.
  const api = await target('api', env);
  const workers = [await target('worker', env)];
  const db = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` });
  await db.connect();
  const count = async (where: string) => (await db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM jobs WHERE ${where}`)).rows[0]!.n;
  const extra: Target[] = [];
  return {
    name: 'PostgreSQL + Redis',
    api,
    workers,
    all: [api, workers[0]!],
    pending: () => count("state <> 'done'"),
    claimed: () => count('attempts > 0'),
    async startWorker() {
      const worker = await target('worker', env);
      extra.push(worker);
      return worker;
    },
    async close() {
      await Promise.all([api, ...workers, ...extra].map((t) => t.stop()));
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.end();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => Promise<boolean>, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

/** Runs `request` `n` times, `IN_FLIGHT` at a time. */
async function repeat(n: number, request: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) await request(next++);
    }),
  );
}

async function counters(targets: Target[]): Promise<Counters> {
  const all = await Promise.all(targets.map((t) => t.command<Counters>({ type: 'stats' })));
  return all.reduce((sum, c) => ({ statements: sum.statements + c.statements, transactions: sum.transactions + c.transactions, redis: sum.redis + c.redis, cpu: sum.cpu + c.cpu }));
}

interface Cost {
  statements: number;
  transactions: number;
  redis: number;
  /** The API process's CPU time per request, ms. */
  apiCpuMs: number;
}

/** The costs of `n` runs of `work`, per run: statements and Redis commands of every process, CPU of the API process. */
async function cost(backend: Backend, n: number, work: () => Promise<void>): Promise<Cost> {
  const before = await counters(backend.all);
  const apiBefore = await backend.api.command<Counters>({ type: 'stats' });
  await work();
  const after = await counters(backend.all);
  const apiAfter = await backend.api.command<Counters>({ type: 'stats' });
  return {
    statements: (after.statements - before.statements) / n,
    transactions: (after.transactions - before.transactions) / n,
    redis: (after.redis - before.redis) / n,
    apiCpuMs: (apiAfter.cpu - apiBefore.cpu) / 1000 / n,
  };
}

interface Api {
  headers: Record<string, string>;
  post(): Promise<string>;
  get(id: string, wait?: number): Promise<{ status: string; updated_at: string }>;
}

function client(url: string, token: string): Api {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return {
    headers,
    async post() {
      const res = await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'How do I benchmark?' }) });
      if (res.status !== 202) throw new Error(`POST /v0/chat answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { conversation_id: string }).conversation_id;
    },
    async get(id, wait) {
      const res = await fetch(`${url}/v0/chat/${id}`, { headers: wait ? { ...headers, prefer: `wait=${wait}` } : headers });
      if (res.status !== 200) throw new Error(`GET /v0/chat answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { status: string; updated_at: string };
    },
  };
}

async function runWorkers(targets: Target[], run: boolean): Promise<void> {
  await Promise.all(targets.map((t) => t.command({ type: 'worker', run })));
}

interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** The API process's CPU time per request during the run, ms: what one core-second buys, whatever else the machine runs. */
  cpuMs: number;
}

async function throughput(api: Target, url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<Throughput> {
  const before = await api.command<Counters>({ type: 'stats' });
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon({ url, connections: 50, duration: DURATION, method: init.method, headers: init.headers, body: init.body }, (error, done) => (error ? reject(error) : resolve(done)));
  });
  const after = await api.command<Counters>({ type: 'stats' });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    cpuMs: (after.cpu - before.cpu) / 1000 / result.requests.total,
  };
}

interface Measured {
  name: string;
  get: Cost;
  post: Cost;
  question: Cost;
  wakeup: { p50: number; p99: number };
  getRps: Throughput;
  postRps: Throughput;
  jobs: { workers: number; claimedPerSecond: number; completedPerSecond: number }[];
  /** An idle worker's database statements and Redis commands per second (it polls for jobs). */
  idle: { statements: number; redis: number };
}

async function measure(backend: Backend): Promise<Measured> {
  const url = backend.api.url!;
  const api = client(url, await backend.api.command<string>({ type: 'token' }));
  await runWorkers(backend.workers, true);
  const answered = await api.post();
  while ((await api.get(answered, 5)).status !== 'completed');

  // Costs of a GET and of a POST with the workers stopped (on SQLite the worker shares the API process).
  await runWorkers(backend.workers, false);
  const get = await cost(backend, SAMPLES, () => repeat(SAMPLES, () => api.get(answered)));
  const posted: string[] = [];
  const post = await cost(backend, SAMPLES, () => repeat(SAMPLES, async () => void posted.push(await api.post())));
  await runWorkers(backend.workers, true);
  await until(async () => (await backend.pending()) === 0, 'the posted questions are answered');

  // An answered question: the POST, the long poll that returns the answer, and the worker's work.
  const question = await cost(backend, SAMPLES, () =>
    repeat(SAMPLES, async () => {
      const id = await api.post();
      while ((await api.get(id, 10)).status !== 'completed');
    }),
  );

  // The long poll wakes when the worker completes: the answer takes 200 ms, so the poll is waiting by then.
  await Promise.all(backend.workers.map((w) => w.command({ type: 'delay', ms: 200 })));
  const latencies: number[] = [];
  for (let i = 0; i < WAKEUPS; i++) {
    const id = await api.post();
    const polled = await api.get(id, 10);
    latencies.push(Date.now() - Date.parse(polled.updated_at));
  }

  // Jobs per second with 1, 2, 4 workers (PostgreSQL; SQLite's one process has one).
  const jobs: Measured['jobs'] = [];
  const pool = [...backend.workers];
  for (const n of backend.name === 'SQLite' ? [1] : [1, 2, 4]) {
    while (pool.length < n) pool.push(await backend.startWorker());
    await runWorkers(pool, false);
    await Promise.all(pool.map((w) => w.command({ type: 'delay', ms: ANSWER_MS })));
    const claimedBefore = await backend.claimed();
    await repeat(JOBS, () => api.post());
    const started = Date.now();
    await runWorkers(pool.slice(0, n), true);
    let allClaimedAt = 0;
    await until(async () => {
      if (!allClaimedAt && (await backend.claimed()) - claimedBefore >= JOBS) allClaimedAt = Date.now();
      return (await backend.pending()) === 0;
    }, `${n} workers answer ${JOBS} questions`);
    const seconds = (Date.now() - started) / 1000;
    jobs.push({ workers: n, claimedPerSecond: JOBS / ((allClaimedAt - started) / 1000), completedPerSecond: JOBS / seconds });
  }
  await runWorkers(pool, false);
  await Promise.all(pool.map((w) => w.command({ type: 'delay', ms: 0 })));
  await runWorkers(backend.workers, true);

  // What a worker costs while there is nothing to do: it polls the queue.
  const worker = backend.workers[0]!;
  const idleBefore = await worker.command<Counters>({ type: 'stats' });
  await sleep(IDLE_MS);
  const idleAfter = await worker.command<Counters>({ type: 'stats' });
  const idle = { statements: ((idleAfter.statements - idleBefore.statements) * 1000) / IDLE_MS, redis: ((idleAfter.redis - idleBefore.redis) * 1000) / IDLE_MS };

  // Throughput of the one API process; the workers answer the POSTs' questions meanwhile.
  const getRps = await throughput(backend.api, `${url}/v0/chat/${answered}`, { method: 'GET', headers: api.headers });
  const postRps = await throughput(backend.api, `${url}/v0/chat`, { method: 'POST', headers: api.headers, body: JSON.stringify({ message: 'How do I benchmark?' }) });
  return { name: backend.name, get, post, question, wakeup: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) }, getRps, postRps, jobs, idle };
}

export async function run(): Promise<BenchTable[]> {
  const results: Measured[] = [];
  const sqlite = await sqliteBackend();
  try {
    results.push(await measure(sqlite));
  } finally {
    await sqlite.close();
  }
  const postgres = (await missingServices(POSTGRES_URL, REDIS_URL)) === null ? await postgresBackend() : undefined;
  if (postgres) {
    try {
      results.push(await measure(postgres));
    } finally {
      await postgres.close();
    }
  }
  const costRow = (label: string, pick: (m: Measured) => Cost) =>
    results.flatMap((m) => {
      const c = pick(m);
      return [[label, m.name, c.statements, c.transactions, c.redis, c.apiCpuMs]];
    });
  return [
    {
      title: `Cost per request (${SAMPLES} requests, ${IN_FLIGHT} in flight; every process's statements and Redis commands, the API process's CPU)`,
      columns: ['request', 'backend', 'DB statements', 'DB transactions', 'Redis commands', 'API CPU ms'],
      rows: [...costRow('GET /v0/chat/{id}', (m) => m.get), ...costRow('POST /v0/chat', (m) => m.post), ...costRow('answered question', (m) => m.question)],
      notes: [
        'An answered question is the POST, the long poll (Prefer: wait=10) that returns the answer, and the worker claiming, answering and completing the job.',
        'SQLite is one `--role all` process (in-memory limits and wakeups), so its API CPU includes answering; PostgreSQL is an `--role api` process and an `--role worker` process sharing Redis.',
        ...(postgres ? [] : [`PostgreSQL (${POSTGRES_URL}) or Redis (${REDIS_URL}) did not answer: SQLite only.`]),
      ],
    },
    {
      title: `One API process under 50 concurrent connections (autocannon, ${DURATION} s each; workers answering meanwhile)`,
      columns: ['backend', 'GET req/s', 'GET p50 ms', 'GET p99 ms', 'GET API CPU ms', 'POST req/s', 'POST p50 ms', 'POST p99 ms', 'POST API CPU ms', 'non-2xx'],
      rows: results.map((m) => [
        m.name,
        Math.round(m.getRps.rps),
        m.getRps.p50,
        m.getRps.p99,
        m.getRps.cpuMs,
        Math.round(m.postRps.rps),
        m.postRps.p50,
        m.postRps.p99,
        m.postRps.cpuMs,
        m.getRps.errors + m.postRps.errors,
      ]),
      notes: [
        `API CPU ms: the API process's CPU time per request during the run; 1000 / it is what one core serves when nothing else runs on it. Load average when the runs ended: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores.`,
      ],
    },
    {
      title: `Long poll wakeup after the worker completes the answer (${WAKEUPS} questions, one at a time)`,
      columns: ['backend', 'p50 ms', 'p99 ms'],
      rows: results.map((m) => [m.name, m.wakeup.p50, m.wakeup.p99]),
      notes: ['From the conversation\'s updated_at (written by the worker with the answer) to the long poll\'s response reaching the client; on PostgreSQL the worker and the API process are different processes, woken through Redis.'],
    },
    {
      title: `Answer jobs per second, each answer taking ${ANSWER_MS} ms (${JOBS} queued questions; each worker runs 4 at a time)`,
      columns: ['backend', 'workers', 'claimed/s', 'completed/s', 'ceiling/s'],
      rows: results.flatMap((m) => m.jobs.map((j) => [m.name, j.workers, j.claimedPerSecond, j.completedPerSecond, (j.workers * 4 * 1000) / ANSWER_MS])),
      notes: ['claimed/s: the questions over the time until the last was claimed; completed/s: over the time until the last was answered. The ceiling is 4 answers at a time per worker.'],
    },
    {
      title: `An idle worker (no jobs, ${IDLE_MS / 1000} s watched)`,
      columns: ['backend', 'DB statements/s', 'Redis commands/s'],
      rows: results.map((m) => [m.name, m.idle.statements, m.idle.redis]),
      notes: ['A worker looks for jobs queued by other processes every 250 ms; on SQLite the worker shares the API process.'],
    },
  ];
}
