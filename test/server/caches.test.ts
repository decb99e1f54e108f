/**
 * The read caches of the hot path (tokens, conversations) never serve stale data: a write by this
 * process or a commit by another connection to the same database is seen on the next request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, startServer, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { openSql, openSqlite, SqliteSql } from '../../src/server/store/sql.js';
import { TokenService } from '../../src/server/store/tokens.js';
import { createTestEngine } from '../helpers/test-engine.js';

const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function serverOnDisk(): Promise<{ server: SupportServer; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-cache-'));
  const server = await createServer({ dataDir: dir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => server.close());
  return { server, dir };
}

/** Two connections to one database in a fresh folder (each opened by `open`), closed after the test. */
function twoConnections(open: (dir: string) => SqliteSql): { sql: SqliteSql; other: SqliteSql } {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-cache-'));
  const sql = open(dir);
  const other = open(dir);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => sql.close(), () => other.close());
  return { sql, other };
}

const get = (server: SupportServer, path: string, token: string) =>
  server.fetch(new Request(`http://api.test${path}`, { headers: { authorization: `Bearer ${token}` } }), { remoteAddress: '203.0.113.9' });

describe('hot-path caches', () => {
  it('sees a token revoked by another connection (the CLI) on the next request', async () => {
    const { server, dir } = await serverOnDisk();
    const { token, record } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read'] });
    expect((await get(server, '/v0/me', token)).status).toBe(200);
    expect((await get(server, '/v0/me', token)).status).toBe(200);
    const other = await openSql({ dataDir: dir });
    cleanup.push(() => other.close());
    await new TokenService(other).revoke(record.id);
    // No pause: every request looks up other connections' commits before trusting a cache.
    expect((await get(server, '/v0/me', token)).status).toBe(401);
  });

  it('sees a token revoked by another connection on the next request, in the same millisecond as a cached hit', async () => {
    const { server, dir } = await serverOnDisk();
    const { token, record } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read'] });
    const other = await openSql({ dataDir: dir });
    cleanup.push(() => other.close());
    // The pipeline answers GET /v0/me synchronously, so these run back to back with no time to spare.
    const request = () =>
      server.handle({
        method: 'GET',
        url: '/v0/me',
        header: (name) => (name === 'authorization' ? `Bearer ${token}` : null),
        remoteAddress: '203.0.113.9',
        signal: new AbortController().signal,
        text: () => Promise.resolve(''),
      });
    const me = (): number => {
      const response = request();
      if (response instanceof Promise) throw new Error('expected a synchronous answer');
      return response.status;
    };
    const lookedUp = async (): Promise<number> => (await request()).status;
    // The first lookup waits on the database; the next ones are cache hits, answered at once.
    expect(await lookedUp()).toBe(200);
    expect([me(), me(), me()]).toEqual([200, 200, 200]);
    await new TokenService(other).revoke(record.id);
    expect(await lookedUp()).toBe(401);
  });

  it('over HTTP, refuses a token on the first request after `support-chat-kit token revoke` ran in another process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-cache-'));
    const { url, server, close } = await startServer({ dataDir: dir, port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }), close);
    const { token, record } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read'] });
    const me = () => fetch(`${url}/v0/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await me()).toBe(200);
    expect(await me()).toBe(200);
    const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
    const revoked = spawnSync(process.execPath, ['--import', 'tsx', cli, 'token', 'revoke', record.id, '--data', dir], { encoding: 'utf8' });
    expect(revoked.status).toBe(0);
    expect(await me()).toBe(401);
  });

  it('sees a token revoked in this process at once, and an expiry when it passes', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-cache-'));
    const server = await createServer({ dataDir: dir, engine: createTestEngine(), logger: silentLogger, startWorker: false, now: () => now });
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => server.close());
    const a = await server.tokens.create({ orgId: 'acme', name: 'a', scopes: ['chat:read'] });
    const b = await server.tokens.create({ orgId: 'acme', name: 'b', scopes: ['chat:read'], expiresAt: new Date(now + 60_000) });
    expect((await get(server, '/v0/me', a.token)).status).toBe(200);
    expect((await get(server, '/v0/me', b.token)).status).toBe(200);
    await server.tokens.revoke(a.record.id);
    expect((await get(server, '/v0/me', a.token)).status).toBe(401);
    now += 61_000;
    expect((await get(server, '/v0/me', b.token)).status).toBe(401);
  });

  it('sees a conversation finished by another connection', async () => {
    const { server, dir } = await serverOnDisk();
    const { token } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read', 'chat:write'] });
    const sent = await server.fetch(
      new Request('http://api.test/v0/chat', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Hello' }) }),
      { remoteAddress: '203.0.113.9' },
    );
    const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
    expect(((await (await get(server, `/v0/chat/${id}`, token)).json()) as { status: string }).status).toBe('processing');
    const other = await openSql({ dataDir: dir });
    cleanup.push(() => other.close());
    await other.run("UPDATE conversations SET status = 'failed', updated_at = ? WHERE id = ?", [new Date().toISOString(), id]);
    expect(((await (await get(server, `/v0/chat/${id}`, token)).json()) as { status: string }).status).toBe('failed');
  });

  it('reads data_version on every stamp, and once per pin (one request\'s synchronous run)', async () => {
    const { sql, other } = twoConnections((dir) => openSqlite(dir));
    await sql.exec('CREATE TABLE scratch (v TEXT)');
    const tracker = sql.changes;
    const first = tracker.stamp();
    expect(tracker.stamp()).toBe(first);
    await other.run("INSERT INTO scratch VALUES ('a')");
    const second = tracker.stamp();
    expect(second).not.toBe(first);
    tracker.pin();
    expect(tracker.stamp()).toBe(second);
    // A commit elsewhere during the pinned run is seen after it ends…
    await other.run("INSERT INTO scratch VALUES ('b')");
    expect(tracker.stamp()).toBe(second);
    // …but this connection's own writes count at once.
    await sql.run("INSERT INTO scratch VALUES ('c')");
    const third = tracker.stamp();
    expect(third).not.toBe(second);
    tracker.unpin();
    expect(tracker.stamp()).not.toBe(third);
  });

  it('sees every commit by another connection, across checkpoints and WAL restarts', async () => {
    const { sql, other } = twoConnections((dir) => openSqlite(dir));
    await other.exec('CREATE TABLE scratch (v INTEGER)');
    const tracker = sql.changes;
    let last = tracker.stamp();
    for (let i = 0; i < 300; i++) {
      await other.run('INSERT INTO scratch VALUES (?)', [i]);
      if (i % 50 === 0) other.db.pragma('wal_checkpoint(TRUNCATE)');
      const stamp = tracker.stamp();
      expect(stamp, `commit ${i}`).not.toBe(last);
      expect(tracker.stamp(), `no commit after ${i}`).toBe(stamp);
      last = stamp;
    }
  });

  it('sees another connection\'s commit when the database is not in WAL mode', async () => {
    const { sql, other } = twoConnections((dir) => new SqliteSql(new Database(join(dir, 'plain.db'))));
    await sql.exec('CREATE TABLE scratch (v INTEGER)');
    const tracker = sql.changes;
    const first = tracker.stamp();
    expect(tracker.stamp()).toBe(first);
    await other.run('INSERT INTO scratch VALUES (1)');
    expect(tracker.stamp()).not.toBe(first);
  });

  it('counts every write through the Sql wrapper, including INSERT … RETURNING read with get() and transactions', async () => {
    const sql = openSqlite(':memory:');
    cleanup.push(() => sql.close());
    await sql.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const tracker = sql.changes;
    const stamps = [tracker.stamp()];
    await sql.run('INSERT INTO t (v) VALUES (?)', ['a']);
    stamps.push(tracker.stamp());
    await sql.get('INSERT INTO t (v) VALUES (?) RETURNING id', ['b']);
    stamps.push(tracker.stamp());
    await sql.all('INSERT INTO t (v) VALUES (?) RETURNING id', ['c']);
    stamps.push(tracker.stamp());
    await sql.all('SELECT * FROM t');
    await sql.get('SELECT COUNT(*) AS n FROM t');
    stamps.push(tracker.stamp());
    await sql.exec("UPDATE t SET v = 'c'");
    stamps.push(tracker.stamp());
    await sql.transaction(async (tx) => void (await tx.run("UPDATE t SET v = 'd'")));
    stamps.push(tracker.stamp());
    // A statement that fails still counts: it may have written before failing.
    await expect(sql.run('INSERT INTO t (id, v) VALUES (1, ?)', ['dup'])).rejects.toThrow();
    stamps.push(tracker.stamp());
    expect(new Set(stamps.slice(0, 4)).size).toBe(4);
    expect(stamps[4]).toBe(stamps[3]);
    expect(new Set(stamps.slice(4)).size).toBe(4);
  });
});
