/** @module Throughput and latency of GET /v0/chat/{id} and POST /v0/chat against a bare Node server answering the same JSON from memory. */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { quantile, type BenchTable } from './table.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function load(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 50, duration: DURATION, method: init.method, headers: init.headers, body: init.body }, (error, result) => {
      if (error) return reject(error);
      resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors });
    });
  });
}

/** Starts a target in its own process and reads the JSON line it writes to fd 3; its stdout (ours: the request log) goes to /dev/null. */
async function target(args: string[]): Promise<{ info: Record<string, string>; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'server-target.ts'), ...args], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    let out = '';
    const channel = child.stdio[3] as Readable;
    channel.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line) as Record<string, string>);
    });
    child.once('exit', (code) => reject(new Error(`bench target exited with ${code}`)));
  });
  return { info, child };
}

export async function run(): Promise<BenchTable[]> {
  const ours = await target(['ours']);
  const { url, token, conversationId, conversation } = ours.info as Record<string, string>;
  const bare = await target(['bare', JSON.stringify({ conversation, conversationId })]);
  const bareUrl = bare.info.url!;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ message: 'How do I benchmark?' });
  // Ours and bare take turns, round after round, so a machine that drifts (other tenants, CPU
  // frequency) weighs on both alike; each figure is the median of its rounds. Every GET round runs
  // before the first POST: each POST queues an answer job, and ours would be answering them
  // during later GET rounds.
  const alternate = async (path: string, init: Parameters<typeof load>[1]) => {
    const rounds: { ours: Result; bare: Result }[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push({ ours: await load(`${url}${path}`, init), bare: await load(`${bareUrl}${path}`, init) });
    return rounds;
  };
  const gets = await alternate(`/v0/chat/${conversationId}`, { method: 'GET', headers });
  const posts = await alternate('/v0/chat', { method: 'POST', headers, body });
  // Let each target exit on its own (ours removes its data directory).
  await Promise.all([ours.child, bare.child].map((child) => new Promise((resolve) => { child.once('exit', resolve); child.kill(); })));

  const median = (values: number[]) => quantile(values, 0.5);
  const row = (name: string, ours: Result[], bare: Result[]) => {
    const ratios = ours.map((o, i) => o.rps / bare[i]!.rps);
    const pick = (results: Result[], key: keyof Result) => median(results.map((r) => r[key]));
    return [
      name,
      Math.round(pick(ours, 'rps')),
      Math.round(pick(bare, 'rps')),
      median(ratios),
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      pick(ours, 'p50'),
      pick(ours, 'p99'),
      pick(bare, 'p50'),
      pick(bare, 'p99'),
      ours.reduce((sum, o) => sum + o.errors, 0),
    ];
  };
  return [
    {
      title: `Server under 50 concurrent connections (autocannon, ${ROUNDS} alternating rounds of ${DURATION} s per server; medians; each server in its own process)`,
      columns: ['endpoint', 'ours req/s', 'bare req/s', 'ours/bare', 'ours/bare per round', 'ours p50 ms', 'ours p99 ms', 'bare p50 ms', 'bare p99 ms', 'ours non-2xx'],
      rows: [
        row('GET /v0/chat/{id}', gets.map((r) => r.ours), gets.map((r) => r.bare)),
        row('POST /v0/chat', posts.map((r) => r.ours), posts.map((r) => r.bare)),
      ],
      notes: [
        'Goal: ours/bare ≥ 0.5 for the GET. The POST writes the message and its job to SQLite while the worker answers.',
        'Ours runs as deployed: a database file (WAL) in a data directory and one JSON log line per request on stdout (sent to /dev/null).',
      ],
    },
  ];
}
