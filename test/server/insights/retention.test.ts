import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { silentLogger } from '../../../src/server/http/log.js';
import { insightsMigrations } from '../../../src/server/insights/migrations.js';
import { RetentionSettingsStore, RetentionSweep } from '../../../src/server/retention/index.js';
import { openDatabase, type Db } from '../../../src/server/store/database.js';
import { coreMigrations } from '../../../src/server/store/migrations.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00Z');
const dbs: Db[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database(): Db {
  const db = openDatabase({ dataDir: ':memory:', migrations: [...coreMigrations, ...insightsMigrations] });
  dbs.push(db);
  return db;
}

/** A conversation last active `daysAgo` days before NOW, with a question, an answer, its job and a rating. */
function seed(db: Db, orgId: string, id: string, daysAgo: number): void {
  const at = new Date(NOW - daysAgo * DAY).toISOString();
  db.prepare("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES (?, ?, 'completed', ?, ?)").run(id, orgId, at, at);
  db.prepare("INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, 1, 'user', 'q', '[]', ?), (?, 2, 'assistant', 'a', '[]', ?)").run(id, at, id, at);
  db.prepare("INSERT INTO jobs (conversation_id, org_id, state, attempts, run_after, created_at, updated_at) VALUES (?, ?, 'done', 1, 0, 0, 0)").run(id, orgId);
  db.prepare("INSERT INTO feedback (conversation_id, message_seq, org_id, rating, comment, created_at, updated_at) VALUES (?, 2, ?, 'down', 'c', ?, ?)").run(id, orgId, at, at);
}

const left = (db: Db, table: string) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
const ids = (db: Db) => db.prepare('SELECT id FROM conversations ORDER BY id').pluck().all();

describe('the retention sweep', () => {
  it('deletes conversations past 90 days by default, with their messages, jobs and feedback, and keeps the rest', async () => {
    const db = database();
    seed(db, 'acme', 'old', 91);
    seed(db, 'acme', 'recent', 89);
    const report = await new RetentionSweep({ db, logger: silentLogger, now: () => NOW }).runOnce();
    expect(report.deleted).toBe(1);
    expect(ids(db)).toEqual(['recent']);
    expect([left(db, 'messages'), left(db, 'jobs'), left(db, 'feedback')]).toEqual([2, 1, 1]);
  });

  it("follows each organization's own retention and the server's default for the others", async () => {
    const db = database();
    const settings = new RetentionSettingsStore(db);
    settings.set('short', 10);
    settings.set('long', 365);
    seed(db, 'short', 'short-20', 20);
    seed(db, 'short', 'short-5', 5);
    seed(db, 'long', 'long-200', 200);
    seed(db, 'other', 'other-40', 40);
    seed(db, 'other', 'other-20', 20);
    await new RetentionSweep({ db, logger: silentLogger, now: () => NOW, defaultDays: 30 }).runOnce();
    expect(ids(db)).toEqual(['long-200', 'other-20', 'short-5']);
  });

  it('deletes in batches and lets other work run between them', async () => {
    const db = database();
    for (let i = 0; i < 35; i++) seed(db, 'acme', `c${String(i).padStart(2, '0')}`, 100 + i);
    const sweep = new RetentionSweep({ db, logger: silentLogger, now: () => NOW, batchSize: 10 });
    const seen: number[] = [];
    let done = false;
    // A request arriving during the sweep: it runs before the sweep ends, seeing some but not all deleted.
    const probe = () =>
      setImmediate(() => {
        if (done) return;
        seen.push(left(db, 'conversations'));
        probe();
      });
    probe();
    const report = await sweep.runOnce();
    done = true;
    expect(report).toEqual({ deleted: 35, batches: 4 });
    expect(seen.some((n) => n > 0 && n < 35)).toBe(true);
  });

  it('stops between batches when the server stops', async () => {
    const db = database();
    for (let i = 0; i < 30; i++) seed(db, 'acme', `c${i}`, 100);
    const sweep = new RetentionSweep({ db, logger: silentLogger, now: () => NOW, batchSize: 10 });
    const running = sweep.runOnce();
    await sweep.stop();
    await running;
    expect(left(db, 'conversations')).toBe(20);
  });
});

describe('the sweep on a database file', () => {
  it('checkpoints on its own thread while it deletes, then lets the connection checkpoint again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-sweep-'));
    dirs.push(dataDir);
    const db = openDatabase({ dataDir, migrations: [...coreMigrations, ...insightsMigrations] });
    dbs.push(db);
    for (let i = 0; i < 300; i++) seed(db, 'acme', `c${i}`, 100);
    seed(db, 'acme', 'kept', 1);
    const pragmas: string[] = [];
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: { simple?: boolean }) => {
      pragmas.push(source);
      return pragma(source, options);
    }) as typeof db.pragma;
    const report = await new RetentionSweep({ db, logger: silentLogger, now: () => NOW, batchSize: 50 }).runOnce();
    expect(report.deleted).toBe(300);
    expect(ids(db)).toEqual(['kept']);
    expect(pragmas).toContain('wal_autocheckpoint = 0');
    expect(pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});

describe('support-chat retention and insights commands', () => {
  const cli = resolve(import.meta.dirname, '../../../src/cli/index.ts');
  const run = (args: string[], dataDir: string) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dataDir], { encoding: 'utf8' });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it("sets an organization's retention, refuses a bad one, and prints the insights report as tables or JSON", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-retention-'));
    dirs.push(dataDir);
    expect(run(['retention', 'set', '--org', 'acme', '--days', '30'], dataDir).code).toBe(0);
    expect(JSON.parse(run(['retention', 'show', '--org', 'acme', '--json'], dataDir).stdout)).toEqual({ organization: 'acme', days: 30, default: false });
    const bad = run(['retention', 'set', '--org', 'acme', '--days', '0'], dataDir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--days: retention must be a whole number of days from 1 to 36500, got 0');

    const tables = run(['insights', '--org', 'acme', '--since', '30d'], dataDir);
    expect(tables.code).toBe(0);
    expect(tables.stdout).toMatch(/^Insights for acme, /);
    expect(tables.stdout).toMatch(/Conversations {2}Questions {2}Answered/);
    expect(tables.stdout).toContain('Pages to write');
    const json = JSON.parse(run(['insights', '--org', 'acme', '--json'], dataDir).stdout);
    expect(json.days).toHaveLength(8);
    const wrong = run(['insights', '--org', 'acme', '--since', 'last week'], dataDir);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--since must be an ISO 8601 date or date-time or a duration like 7d');
  });
});
