import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { silentLogger } from '../../../src/server/log.js';
import { RetentionSettingsStore, RetentionSweep, type ExpiringConversations } from '../../../src/server/retention/index.js';
import { startCheckpointer } from '../../../src/server/retention/checkpointer.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { openSqlite, type Sql } from '../../../src/server/store/sql.js';
import { migrations } from '../../../src/server/schema.js';
import { testDatabases, TEST_POSTGRES_URL } from '../../helpers/database.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00Z');
const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const database = testDatabases();

/** Deletes expired conversations as the server's conversation store does (the cascade takes what was derived from them). */
const expiring = (sql: Sql): ExpiringConversations => ({
  deleteExpired: (orgId, before, limit) =>
    sql.run('DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE org_id = ? AND updated_at < ? ORDER BY updated_at LIMIT ?)', [orgId, before, limit]),
});

const sweepOf = (sql: Sql, options: { defaultDays?: number; batchSize?: number; batchMs?: number; conversations?: ExpiringConversations } = {}) =>
  new RetentionSweep({ sql, conversations: expiring(sql), logger: silentLogger, now: () => NOW, ...options });

/** A conversation last active `daysAgo` days before NOW, with a question, an answer, its job and a rating. */
async function seed(sql: Sql, orgId: string, id: string, daysAgo: number): Promise<void> {
  const at = new Date(NOW - daysAgo * DAY).toISOString();
  await sql.run("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES (?, ?, 'completed', ?, ?)", [id, orgId, at, at]);
  await sql.run("INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, 1, 'user', 'q', '[]', ?), (?, 2, 'assistant', 'a', '[]', ?)", [id, at, id, at]);
  await sql.run("INSERT INTO jobs (conversation_id, org_id, state, attempts, run_after, created_at, updated_at) VALUES (?, ?, 'done', 1, 0, 0, 0)", [id, orgId]);
  await sql.run("INSERT INTO feedback (conversation_id, message_seq, org_id, rating, comment, created_at, updated_at) VALUES (?, 2, ?, 'down', 'c', ?, ?)", [id, orgId, at, at]);
}

const left = async (sql: Sql, table: string) => (await sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
const ids = async (sql: Sql) => (await sql.all<{ id: string }>('SELECT id FROM conversations ORDER BY id')).map((r) => r.id);

describe('retention settings', () => {
  it("stores, reads, lists and clears an organization's own period, replacing an earlier one", async () => {
    const sql = await database();
    const settings = new RetentionSettingsStore(sql, () => NOW);
    await settings.set('acme', 30);
    await settings.set('acme', 45);
    await settings.set('globex', 365);
    expect(await settings.stored('acme')).toBe(45);
    expect(await settings.stored('initech')).toBeNull();
    expect(await settings.all()).toEqual(new Map([['acme', 45], ['globex', 365]]));
    expect(await settings.clear('acme')).toBe(true);
    expect(await settings.clear('acme')).toBe(false);
    expect(await settings.stored('acme')).toBeNull();
    await expect(settings.set('acme', 0)).rejects.toThrow('retention must be a whole number of days from 1 to 36500, got 0');
  });
});

describe('the retention sweep', () => {
  it('deletes conversations past 90 days by default, with their messages, jobs and feedback, and keeps the rest', async () => {
    const sql = await database();
    await seed(sql, 'acme', 'old', 91);
    await seed(sql, 'acme', 'recent', 89);
    const report = await sweepOf(sql).runOnce();
    expect(report.deleted).toBe(1);
    expect(await ids(sql)).toEqual(['recent']);
    expect([await left(sql, 'messages'), await left(sql, 'jobs'), await left(sql, 'feedback'), await left(sql, 'insight_questions')]).toEqual([2, 1, 1, 1]);
  });

  it("follows each organization's own retention and the server's default for the others", async () => {
    const sql = await database();
    const settings = new RetentionSettingsStore(sql);
    await settings.set('short', 10);
    await settings.set('long', 365);
    await seed(sql, 'short', 'short-20', 20);
    await seed(sql, 'short', 'short-5', 5);
    await seed(sql, 'long', 'long-200', 200);
    await seed(sql, 'other', 'other-40', 40);
    await seed(sql, 'other', 'other-20', 20);
    await sweepOf(sql, { defaultDays: 30 }).runOnce();
    expect(await ids(sql)).toEqual(['long-200', 'other-20', 'short-5']);
  });

  it('deletes in batches and lets other work run between them', async () => {
    const sql = await database();
    for (let i = 0; i < 35; i++) await seed(sql, 'acme', `c${String(i).padStart(2, '0')}`, 100 + i);
    let deleted = 0;
    const counting: ExpiringConversations = {
      deleteExpired: async (orgId, before, limit) => {
        const n = await expiring(sql).deleteExpired(orgId, before, limit);
        deleted += n;
        return n;
      },
    };
    // Batches of 10 however long they take (no database is that slow).
    const sweep = sweepOf(sql, { batchSize: 10, batchMs: 60_000, conversations: counting });
    const seen: number[] = [];
    let done = false;
    // Other work arriving during the sweep (a request): it runs between batches, before the sweep ends.
    const probe = () =>
      setImmediate(() => {
        if (done) return;
        seen.push(deleted);
        probe();
      });
    probe();
    const report = await sweep.runOnce();
    done = true;
    expect(report).toEqual({ deleted: 35, batches: 4 });
    expect(seen.some((n) => n > 0 && n < 35)).toBe(true);
    expect(await left(sql, 'conversations')).toBe(0);
  });

  it('stops between batches when the server stops', async () => {
    const sql = await database();
    for (let i = 0; i < 30; i++) await seed(sql, 'acme', `c${i}`, 100);
    let stopping: Promise<void> | undefined;
    const conversations = expiring(sql);
    const sweep = sweepOf(sql, {
      batchSize: 10,
      // The server stops while the first batch is being deleted.
      conversations: { deleteExpired: (...args) => ((stopping ??= sweep.stop()), conversations.deleteExpired(...args)) },
    });
    await sweep.runOnce();
    await stopping;
    expect(await left(sql, 'conversations')).toBe(20);
  });
});

describe.skipIf(TEST_POSTGRES_URL)('the sweep on a SQLite database file', () => {
  it('checkpoints on its own thread while it deletes, then lets the connection checkpoint again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-sweep-'));
    dirs.push(dataDir);
    const sql = openSqlite(dataDir);
    cleanups.push(() => sql.close());
    await migrate(sql, migrations);
    for (let i = 0; i < 300; i++) await seed(sql, 'acme', `c${i}`, 100);
    await seed(sql, 'acme', 'kept', 1);
    const pragmas: string[] = [];
    const db = sql.db;
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: { simple?: boolean }) => {
      pragmas.push(source);
      return pragma(source, options);
    }) as typeof db.pragma;
    const report = await sweepOf(sql, { batchSize: 50 }).runOnce();
    expect(report.deleted).toBe(300);
    expect(await ids(sql)).toEqual(['kept']);
    expect(pragmas).toContain('wal_autocheckpoint = 0');
    expect(pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });
});

describe.skipIf(!TEST_POSTGRES_URL)('the sweep on PostgreSQL', () => {
  it('starts no checkpointing thread (the server checkpoints by itself)', async () => {
    expect(startCheckpointer(await database())).toBeNull();
  });
});

describe('support-chat-kit retention and insights commands', () => {
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
