/**
 * The read caches of the hot path (tokens, conversations) never serve stale data: a write by this
 * process or a commit by another connection to the same database is seen on the next request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';
import { changeTracker, openDatabase } from '../../src/server/store/database.js';
import { coreMigrations } from '../../src/server/store/migrations.js';
import { TokenService } from '../../src/server/store/tokens.js';
import { createTestEngine } from '../helpers/test-engine.js';

const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function serverOnDisk(): { server: SupportServer; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-cache-'));
  const server = createServer({ dataDir: dir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => server.close());
  return { server, dir };
}

const get = (server: SupportServer, path: string, token: string) =>
  server.fetch(new Request(`http://api.test${path}`, { headers: { authorization: `Bearer ${token}` } }), { remoteAddress: '203.0.113.9' });

describe('hot-path caches', () => {
  it('sees a token revoked by another connection (the CLI) on the next request', async () => {
    const { server, dir } = serverOnDisk();
    const { token, record } = server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read'] });
    expect((await get(server, '/v0/me', token)).status).toBe(200);
    expect((await get(server, '/v0/me', token)).status).toBe(200);
    const other = openDatabase({ dataDir: dir, migrations: coreMigrations });
    cleanup.push(() => void other.close());
    new TokenService(other).revoke(record.id);
    // Other connections' commits are looked up at most once a millisecond.
    await new Promise((r) => setTimeout(r, 2));
    expect((await get(server, '/v0/me', token)).status).toBe(401);
  });

  it('sees a token revoked in this process at once, and an expiry when it passes', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-cache-'));
    const server = createServer({ dataDir: dir, engine: createTestEngine(), logger: silentLogger, startWorker: false, now: () => now });
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => server.close());
    const a = server.tokens.create({ orgId: 'acme', name: 'a', scopes: ['chat:read'] });
    const b = server.tokens.create({ orgId: 'acme', name: 'b', scopes: ['chat:read'], expiresAt: new Date(now + 60_000) });
    expect((await get(server, '/v0/me', a.token)).status).toBe(200);
    expect((await get(server, '/v0/me', b.token)).status).toBe(200);
    server.tokens.revoke(a.record.id);
    expect((await get(server, '/v0/me', a.token)).status).toBe(401);
    now += 61_000;
    expect((await get(server, '/v0/me', b.token)).status).toBe(401);
  });

  it('sees a conversation finished by another connection', async () => {
    const { server, dir } = serverOnDisk();
    const { token } = server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read', 'chat:write'] });
    const sent = await server.fetch(
      new Request('http://api.test/v0/chat', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Hello' }) }),
      { remoteAddress: '203.0.113.9' },
    );
    const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
    expect(((await (await get(server, `/v0/chat/${id}`, token)).json()) as { status: string }).status).toBe('processing');
    const other = openDatabase({ dataDir: dir, migrations: coreMigrations });
    cleanup.push(() => void other.close());
    other.prepare("UPDATE conversations SET status = 'failed', updated_at = ? WHERE id = ?").run(new Date().toISOString(), id);
    await new Promise((r) => setTimeout(r, 2));
    expect(((await (await get(server, `/v0/chat/${id}`, token)).json()) as { status: string }).status).toBe('failed');
  });

  it('counts every write through the connection, including INSERT … RETURNING read with get()', () => {
    const db = openDatabase({ dataDir: ':memory:', migrations: [] });
    cleanup.push(() => void db.close());
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const tracker = changeTracker(db);
    const stamps = [tracker.stamp()];
    db.prepare('INSERT INTO t (v) VALUES (?)').run('a');
    stamps.push(tracker.stamp());
    db.prepare('INSERT INTO t (v) VALUES (?) RETURNING id').get('b');
    stamps.push(tracker.stamp());
    db.prepare('SELECT * FROM t').all();
    stamps.push(tracker.stamp());
    db.exec("UPDATE t SET v = 'c'");
    stamps.push(tracker.stamp());
    expect(new Set(stamps.slice(0, 3)).size).toBe(3);
    expect(stamps[3]).toBe(stamps[2]);
    expect(stamps[4]).not.toBe(stamps[3]);
  });
});
