/**
 * Roles and what processes share: `serve --role` on PostgreSQL needs Redis (or runs alone as
 * `all`), a worker does not listen, and a token revoked by the CLI is refused by a running server
 * at once through Redis, and within a second without it. Runs on PostgreSQL and Redis when both
 * answer (as on CI), and says so when skipped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { freshPostgresUrl } from '../helpers/database.js';
import { missingServices } from '../helpers/cluster.js';
import { TEST_REDIS_URL as REDIS_URL } from '../helpers/redis.js';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');

const missing = await missingServices();
if (missing) console.warn(`roles tests skipped: ${missing}`);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function runCli(args: string[], env: NodeJS.ProcessEnv) {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-roles-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return spawnSync(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dir], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
}

const me = (server: SupportServer, token: string) =>
  server.fetch(new Request('http://api.test/v0/me', { headers: { authorization: `Bearer ${token}` } }), { remoteAddress: '203.0.113.7' }).then((r) => r.status);

describe.runIf(!missing)('roles on PostgreSQL', () => {
  it('refuses to start an API process or a worker on PostgreSQL without Redis, with a message saying why', () => {
    for (const role of ['api', 'worker']) {
      const result = runCli(['serve', '--role', role, '--port', '0', '--database', freshPostgresUrl()], { SUPPORT_CHAT_REDIS_URL: '' });
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`--role ${role} on PostgreSQL needs SUPPORT_CHAT_REDIS_URL`));
    }
  });

  it('has a worker that does not listen, and answers what an API process queued', async () => {
    const databaseUrl = freshPostgresUrl();
    const env = { SUPPORT_CHAT_REDIS_URL: REDIS_URL };
    const api = await createServer({ databaseUrl, role: 'api', engine: createTestEngine(), logger: silentLogger, env });
    const worker = await createServer({ databaseUrl, role: 'worker', engine: createTestEngine(), logger: silentLogger, env });
    cleanups.push(() => api.close(), () => worker.close());
    const { token } = await api.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read', 'chat:write'] });
    const sent = await api.fetch(
      new Request('http://api.test/v0/chat', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'How do I embed the widget?' }) }),
    );
    const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
    // The API process has no worker running: the worker process answers, and its answer wakes the long poll.
    const polled = await api.fetch(new Request(`http://api.test/v0/chat/${id}`, { headers: { authorization: `Bearer ${token}`, prefer: 'wait=10' } }));
    expect(((await polled.json()) as { status: string }).status).toBe('completed');
  });

  it('refuses a token revoked by `support-chat-kit token revoke` on the next request when Redis tells the servers', async () => {
    const databaseUrl = freshPostgresUrl();
    const server = await createServer({ databaseUrl, role: 'api', engine: createTestEngine(), logger: silentLogger, env: { SUPPORT_CHAT_REDIS_URL: REDIS_URL } });
    cleanups.push(() => server.close());
    await server.ready();
    const { token, record } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read'] });
    expect(await me(server, token)).toBe(200);
    const told = new Promise<string>((resolve) => server.bus.subscribe('tokens', resolve));
    const revoked = runCli(['token', 'revoke', record.id, '--database', databaseUrl], { SUPPORT_CHAT_REDIS_URL: REDIS_URL });
    expect(revoked.status).toBe(0);
    // The message may land a moment after the CLI exits; the server then drops its cached tokens.
    await expect(Promise.race([told, new Promise((_, reject) => setTimeout(() => reject(new Error('the server was not told')), 2_000))])).resolves.toBe('revoked');
    expect(await me(server, token)).toBe(401);
  });

  it('refuses a revoked token within a second even when no one tells the server', async () => {
    const databaseUrl = freshPostgresUrl();
    const server = await createServer({ databaseUrl, engine: createTestEngine(), logger: silentLogger, env: {} });
    cleanups.push(() => server.close());
    const { token, record } = await server.tokens.create({ orgId: 'acme', name: 'site', scopes: ['chat:read'] });
    expect(await me(server, token)).toBe(200);
    const revoked = runCli(['token', 'revoke', record.id, '--database', databaseUrl], { SUPPORT_CHAT_REDIS_URL: '' });
    expect(revoked.status).toBe(0);
    const started = performance.now();
    await expect.poll(() => me(server, token), { timeout: 1_500, interval: 25 }).toBe(401);
    expect(performance.now() - started).toBeLessThan(1_100);
  });
});
