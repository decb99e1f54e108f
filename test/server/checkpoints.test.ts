/**
 * The server's write-ahead log is checkpointed on a thread of its own: the connection that
 * commits sends and answers never copies the log back (and syncs the file) inside a commit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointInBackground } from '../../src/server/retention/checkpointer.js';
import { openSql, SqliteSql } from '../../src/server/store/sql.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('checkpoints in the background', () => {
  it('copy the log into the database file from their own thread, and give the connection its own checkpoints back when closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-checkpoints-'));
    dirs.push(dir);
    const sql = await openSql({ dataDir: dir });
    const db = (sql as SqliteSql).db;
    const checkpoints = checkpointInBackground(sql, 20)!;
    expect(checkpoints).not.toBeNull();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await sql.exec('CREATE TABLE t (v TEXT)');
    const file = join(dir, 'support-chat.db');
    const before = statSync(file).size;
    // About 2 MB committed: far past the 1,000 pages after which the connection would checkpoint itself.
    for (let i = 0; i < 100; i++) await sql.run('INSERT INTO t (v) VALUES (?)', ['x'.repeat(20_000)]);
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + 1_500_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(statSync(file).size).toBeGreaterThan(before + 1_500_000);
    await checkpoints.close();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await sql.close();
  });
});
