/**
 * @module The insights report over 100,000 generated conversations with feedback (GET /v0/insights
 * through the server's pipeline, p50 and p95), and the retention sweep's longest event-loop pause
 * while it deletes 100,000 expired conversations with their messages, jobs and feedback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { silentLogger } from '../../src/server/log.js';
import { createServer } from '../../src/server/index.js';
import { RetentionSweep } from '../../src/server/retention/index.js';
import type Database from 'better-sqlite3';
import { migrate } from '../../src/server/store/migrate.js';
import { openSqlite } from '../../src/server/store/sql.js';
import { ConversationStore } from '../../src/server/store/conversations.js';
import { migrations } from '../../src/server/schema.js';
import { quantile, type BenchTable } from './table.js';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const RUNS = Number(process.env.BENCH_INSIGHTS_RUNS ?? 30);
const DAY = 86_400_000;
const TOPICS = ['password reset', 'api keys', 'rate limits', 'webhooks', 'billing invoices', 'sso saml', 'export csv', 'windows install', 'proxy setup', 'retention policy'];
const GAPS = ['quantum folders', 'mainframe support', 'fax integration', 'blockchain sync', 'offline mode on watches', 'cobol sdk', 'telex alerts', 'pager escalation'];
const PAGES = Array.from({ length: 300 }, (_, i) => ({ title: `Page ${i}`, url: `https://docs.example.com/page-${i}` }));

/** A small deterministic generator, so every run measures the same data. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Writes `count` conversations of one to three questions, started within `[from, to)`: about one
 * answer in five cites nothing, one conversation in ten is escalated, one answer in six is rated.
 */
export function generate(db: Database.Database, orgId: string, count: number, from: number, to: number): void {
  const rand = random(42);
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)]!;
  const conversation = db.prepare("INSERT INTO conversations (id, org_id, status, created_at, updated_at, escalation_state) VALUES (?, ?, 'completed', ?, ?, ?)");
  const message = db.prepare('INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const job = db.prepare("INSERT INTO jobs (conversation_id, org_id, state, attempts, run_after, created_at, updated_at) VALUES (?, ?, 'done', 1, 0, 0, 0)");
  const feedback = db.prepare('INSERT INTO feedback (conversation_id, message_seq, org_id, rating, comment, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const page = db.prepare("INSERT INTO kb_documents (org_id, doc_key, root, rel_path, hash, title, updated_at) VALUES (?, ?, 'r', ?, '', ?, '')");
  const section = db.prepare("INSERT INTO kb_sections (org_id, doc_key, ord, kind, title, context, url, body, code, lang) VALUES (?, ?, 0, 'prose', ?, '', ?, '', '', '')");
  db.transaction(() => {
    for (const p of PAGES) {
      page.run(orgId, p.url, p.url, p.title);
      section.run(orgId, p.url, p.title, `${p.url}#intro`);
    }
    // Conversations arrive in time order, as they do in production; ids are random, as `conv_<uuid>` are.
    const starts = Array.from({ length: count }, () => from + Math.floor(rand() * (to - from - 3_600_000))).sort((a, b) => a - b);
    for (let i = 0; i < count; i++) {
      const id = `conv_${Math.floor(rand() * 2 ** 52).toString(16)}${i.toString(16)}`;
      const start = starts[i]!;
      const turns = 1 + Math.floor(rand() * 3);
      const last = new Date(start + turns * 60_000).toISOString();
      conversation.run(id, orgId, new Date(start).toISOString(), last, rand() < 0.1 ? 'done' : null);
      for (let turn = 0; turn < turns; turn++) {
        const at = new Date(start + turn * 60_000).toISOString();
        const gap = rand() < 0.2;
        const question = gap ? `How do I use ${pick(GAPS)} with ${pick(['the app', 'my team', 'our servers'])}?` : `How does ${pick(TOPICS)} work?`;
        const sources = gap ? '[]' : JSON.stringify([pick(PAGES.slice(0, 120)), pick(PAGES.slice(0, 120))].map((p) => ({ title: p.title, url: `${p.url}#intro` })));
        message.run(id, turn * 2 + 1, 'user', question, '[]', at);
        message.run(id, turn * 2 + 2, 'assistant', gap ? 'Not found in the docs.' : 'Here is how it works.', sources, at);
        job.run(id, orgId);
        if (rand() < 1 / 6) {
          const down = gap || rand() < 0.3;
          feedback.run(id, turn * 2 + 2, orgId, down ? 'down' : 'up', down && rand() < 0.5 ? 'Did not help' : null, at, at);
        }
      }
    }
  })();
}

/** The bench's SQLite database with the server's schema, for seeding through better-sqlite3 directly (fast). */
async function openMigrated(dataDir: string): Promise<Database.Database> {
  const sql = openSqlite(dataDir);
  await migrate(sql, migrations);
  return sql.db;
}

async function insightsLatency(): Promise<BenchTable> {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-bench-insights-'));
  try {
    const now = Date.now();
    const seeding = await openMigrated(dataDir);
    generate(seeding, 'acme', CONVERSATIONS, now - 7 * DAY + 3_600_000, now - 3_600_000);
    // Another organization's conversations share the tables.
    generate(seeding, 'globex', Math.floor(CONVERSATIONS / 10), now - 7 * DAY, now);
    seeding.pragma('optimize');
    seeding.close();
    const server = await createServer({ dataDir, logger: silentLogger, rateLimits: { perToken: 1_000_000, perOrganization: 1_000_000 } });
    const { token } = await server.tokens.create({ orgId: 'acme', name: 'bench', scopes: ['insights:read'] });
    const request = () => server.fetch(new Request('http://bench/v0/insights', { headers: { authorization: `Bearer ${token}` } }));
    const first = await request();
    const report = (await first.json()) as { totals: Record<string, number>; unanswered_group_count: number };
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const response = await request();
      await response.text();
      samples.push(performance.now() - started);
    }
    await server.close();
    const p95 = quantile(samples, 0.95);
    return {
      title: `GET /v0/insights (last 7 days) over ${CONVERSATIONS.toLocaleString('en')} conversations`,
      columns: ['conversations', 'questions', 'unanswered groups', 'thumbs down', 'runs', 'p50 ms', 'p95 ms', 'goal p95 ms'],
      rows: [[report.totals.conversations!, report.totals.questions!, report.unanswered_group_count, report.totals.thumbs_down!, RUNS, quantile(samples, 0.5), p95, 200]],
      notes: [
        `SQLite file in WAL mode, through the server's pipeline (auth, limits, JSON). Load average at the end: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores. Goal ${p95 <= 200 ? 'met' : 'NOT met'}.`,
      ],
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The largest of many numbers (too many to spread into Math.max). */
const largest = (values: number[]) => values.reduce((a, b) => (b > a ? b : a), 0);

/** The gaps between turns of the event loop, in ms, while `work` runs. */
async function gaps(work: () => Promise<void>): Promise<number[]> {
  const seen: number[] = [];
  let last = performance.now();
  let running = true;
  const probe = () =>
    setImmediate(() => {
      const t = performance.now();
      seen.push(t - last);
      last = t;
      if (running) probe();
    });
  probe();
  await work();
  running = false;
  return seen;
}

async function sweepPause(): Promise<BenchTable> {
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-bench-retention-'));
  try {
    const sql = openSqlite(dataDir);
    await migrate(sql, migrations);
    const db = sql.db;
    const now = Date.now();
    generate(db, 'acme', CONVERSATIONS, now - 200 * DAY, now - 100 * DAY);
    const sweep = new RetentionSweep({ sql, conversations: new ConversationStore(sql), logger: silentLogger });
    // The same probe on an idle loop first: on a shared machine the loop also waits for the CPU.
    const idle = await gaps(() => new Promise((resolve) => setTimeout(resolve, 5_000)));
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const started = performance.now();
    let report = { deleted: 0, batches: 0 };
    const during = await gaps(async () => {
      report = await sweep.runOnce();
    });
    const total = performance.now() - started;
    histogram.disable();
    const left = db.prepare('SELECT COUNT(*) FROM conversations').pluck().get() as number;
    db.close();
    const longest = largest(during);
    return {
      title: `Retention sweep deleting ${CONVERSATIONS.toLocaleString('en')} expired conversations`,
      columns: ['deleted', 'left', 'batches', 'total s', 'longest pause ms', 'p99 pause ms', 'idle loop: longest, p99 ms', 'goal ms'],
      rows: [[report.deleted, left, report.batches, total / 1000, longest, quantile(during, 0.99), `${largest(idle).toFixed(1)}, ${quantile(idle, 0.99).toFixed(1)}`, 50]],
      notes: [
        `A pause is the gap between two turns of the event loop (setImmediate probe; event-loop delay histogram max ${(histogram.max / 1e6).toFixed(0)} ms). Each conversation goes with its messages, answer jobs, feedback and question rows, in batches sized to 10 ms. Load average at the end: ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores. Goal ${longest <= 50 ? 'met' : 'NOT met'}.`,
      ],
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchTable[]> {
  return [await insightsLatency(), await sweepPause()];
}
