import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from '../../src/server/index.js';
import { jsonLogger } from '../../src/server/log.js';
import { openSql } from '../../src/server/store/sql.js';
import { freshDatabaseUrl, TEST_POSTGRES_URL } from '../helpers/database.js';
import { createTestEngine } from '../helpers/test-engine.js';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], dataDir: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dataDir], { encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('support-chat-kit token', () => {
  it('creates a token shown once, lists it without the secret, and revokes it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-cli-'));
    dirs.push(dataDir);
    const created = run(['token', 'create', '--org', 'acme', '--name', 'site', '--scopes', 'chat:read,chat:write', '--json'], dataDir);
    expect(created.code).toBe(0);
    const info = JSON.parse(created.stdout) as { token: string; prefix: string; scopes: string[]; organization: string };
    expect(info.token).toMatch(/^sc_live_/);
    expect(info).toMatchObject({ organization: 'acme', scopes: ['chat:read', 'chat:write'] });
    const listed = run(['token', 'list', '--org', 'acme', '--json'], dataDir);
    expect(listed.stdout).not.toContain(info.token);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ prefix: info.prefix, revoked_at: null })]);
    expect(run(['token', 'revoke', info.prefix], dataDir).code).toBe(0);
    expect(JSON.parse(run(['token', 'list', '--json'], dataDir).stdout)[0].revoked_at).not.toBeNull();
  });

  it('refuses unknown scopes and missing options with exit code 2 and a clear message', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-cli-'));
    dirs.push(dataDir);
    const bad = run(['token', 'create', '--org', 'acme', '--name', 'x', '--scopes', 'chat:everything'], dataDir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown scope "chat:everything"');
    const missing = run(['token', 'create', '--name', 'x', '--scopes', 'chat:read'], dataDir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required option --org');
  });
});

describe('support-chat --database', () => {
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-cli-'));
    dirs.push(dir);
    return dir;
  };

  it('refuses a URL that is not PostgreSQL in one line with exit code 2, from the flag or the environment, without the password', () => {
    const flag = run(['token', 'list', '--database', 'mysql://app:hunter2@db.internal/support'], scratch());
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim()).toBe('support-chat-kit token list: --database must be a PostgreSQL URL (postgres://user@host:5432/database), got "mysql://app:***@db.internal/support"');
    const env = run(['kb', 'stats', '--org', 'acme'], scratch(), { ...process.env, SUPPORT_CHAT_DATABASE_URL: 'db.internal/support' });
    expect(env.code).toBe(2);
    expect(env.stderr.trim()).toBe('support-chat-kit kb stats: SUPPORT_CHAT_DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/database), got "db.internal/support"');
  });

  it('says in one line that a PostgreSQL server it cannot reach cannot be opened, with exit code 2', () => {
    const result = run(['retention', 'show', '--org', 'acme', '--database', 'postgres://app:hunter2@127.0.0.1:1/support'], scratch());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('support-chat-kit retention show: cannot open the database (PostgreSQL at postgres://app:***@127.0.0.1:1/support): connect ECONNREFUSED');
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an unknown serve --role with exit code 2 before opening anything', () => {
    const dir = scratch();
    const result = run(['serve', '--role', 'scheduler'], dir);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('support-chat-kit serve: --role must be one of api, worker, all, got "scheduler"; usage: support-chat-kit serve [--port PORT] [--host HOST] [--role api|worker|all] [--retention-days DAYS] [--kb-sync-every DURATION] [--site DIR] [--site-port PORT] [--site-base PATH] [--rate-limit-token N] [--rate-limit-org N] [--rate-limit-address N] [--rate-limit-send N] [--rate-limit-escalate N] [--rate-limit-delete-ticket N] [--rate-limit-search N]');
    expect(existsSync(join(dir, 'support-chat.db'))).toBe(false);
  });

  it('refuses a worker concurrency that is not a whole number from 1 to 256, before opening anything', () => {
    const dir = scratch();
    const result = run(['serve'], dir, { ...process.env, SUPPORT_CHAT_WORKER_CONCURRENCY: '0' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('support-chat-kit serve: SUPPORT_CHAT_WORKER_CONCURRENCY must be a whole number from 1 to 256, got "0"');
    expect(existsSync(join(dir, 'support-chat.db'))).toBe(false);
  });

  it('keeps SQLite in the data directory when no URL is given, and says so', () => {
    const dir = scratch();
    const env = { ...process.env, SUPPORT_CHAT_DATABASE_URL: '' };
    const listed = run(['kb', 'stats', '--org', 'acme'], dir, env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^acme: 0 documents, 0 sections\nsentence embeddings: ready \(a server runs \d+ threads?\)\n$/);
    expect(listed.stderr).toContain(`database: SQLite at ${join(dir, 'support-chat.db')}`);
    expect(existsSync(join(dir, 'support-chat.db'))).toBe(true);
  });

  it('kb ingest says the code pieces are left to the server, and embeds them now with --embed-code', () => {
    const code = resolve(import.meta.dirname, '../fixtures/kb/code');
    const later = run(['kb', 'ingest', code, '--org', 'acme'], scratch());
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toMatch(/^\d+ sections \(code pieces\) will be embedded in the background by the server \(support-chat-kit serve\); --embed-code embeds them now\.$/m);
    const now = run(['kb', 'ingest', code, '--org', 'acme', '--embed-code'], scratch());
    expect(now.code, now.stderr).toBe(0);
    expect(now.stdout).toMatch(/^Ingested \d+ files for acme/);
    expect(now.stdout).not.toContain('background');
  });

  // A password the server's trust authentication ignores: it must still never be printed.
  const withPassword = (url: string) => url.replace('://postgres@', '://postgres:hunter2@');

  it.skipIf(!TEST_POSTGRES_URL).each(['--database', 'SUPPORT_CHAT_DATABASE_URL'])('creates a token, ingests docs and lists tokens on PostgreSQL named by %s', async (how) => {
    const url = withPassword(freshDatabaseUrl()!);
    const dataDir = scratch();
    // The flag wins over the environment: a bad URL there is not read when the flag names the database.
    const [flag, env] = how === '--database' ? [['--database', url], { ...process.env, SUPPORT_CHAT_DATABASE_URL: 'not-a-url' }] : [[], { ...process.env, SUPPORT_CHAT_DATABASE_URL: url }];
    const created = run(['token', 'create', '--org', 'acme', '--name', 'site', '--scopes', 'chat:read', '--json', ...flag], dataDir, env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain('database: PostgreSQL at postgres://postgres:***@');
    expect(created.stderr).not.toContain('hunter2');
    const { prefix } = JSON.parse(created.stdout) as { prefix: string };
    const ingested = run(['kb', 'ingest', resolve(import.meta.dirname, '../fixtures/kb/docs'), '--org', 'acme', ...flag], dataDir, env);
    expect(ingested.code, ingested.stderr).toBe(0);
    expect(ingested.stdout).toContain('Ingested 4 files for acme: 4 added');
    const listed = run(['token', 'list', '--json', ...flag], dataDir, env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ prefix, organization: 'acme' })]);
    // Everything went to PostgreSQL: no SQLite file in the data directory.
    expect(existsSync(join(dataDir, 'support-chat.db'))).toBe(false);
    const sql = await openSql({ url });
    try {
      expect(await sql.get('SELECT COUNT(*) AS n FROM kb_documents WHERE org_id = ?', ['acme'])).toEqual({ n: 4 });
      expect(await sql.get('SELECT COUNT(*) AS n FROM tokens WHERE prefix = ?', [prefix])).toEqual({ n: 1 });
    } finally {
      await sql.close();
    }
  });
});

describe('request logs', () => {
  it('write one JSON line per request with no token, message text or email, through a real escalation', async () => {
    // A webhook receiver that records what it was sent: the email must reach the ticket, not the logs.
    const delivered: string[] = [];
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        delivered.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/tickets`, SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec_logs_test' };
    const lines: string[] = [];
    const server = await createServer({ dataDir: ':memory:', engine: createTestEngine(), logger: jsonLogger((line) => lines.push(line)), startWorker: false, env });
    try {
      const { token } = await server.tokens.create({ orgId: 'acme', name: 'logs', scopes: ['chat:read', 'chat:write', 'chat:escalate'] });
      const headers = { authorization: `Bearer ${token}` };
      const sent = await server.fetch(new Request('http://x/v0/chat', { method: 'POST', headers, body: '{"message":"my secret question"}' }));
      const { conversation_id } = (await sent.json()) as { conversation_id: string };
      await server.worker.runOnce();
      await server.fetch(new Request(`http://x/v0/chat/${conversation_id}`, { headers }));
      const escalated = await server.fetch(new Request(`http://x/v0/chat/${conversation_id}/escalate`, { method: 'POST', headers, body: '{"integration":"webhook","name":"Ada","email":"ada@example.com"}' }));
      expect(escalated.status).toBe(200);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]).toContain('ada@example.com');
      await server.fetch(new Request('http://x/v0/me', { headers: { authorization: 'Bearer sc_live_wrong' } }));
      const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
      expect(requests).toHaveLength(4);
      expect(requests.map((r) => r.status)).toEqual([202, 200, 200, 401]);
      expect(requests[0]).toMatchObject({ method: 'POST', route: '/v0/chat', org: 'acme', token: expect.stringMatching(/^sc_live_.{6}$/) });
      expect(lines.some((l) => JSON.parse(l).msg === 'escalated')).toBe(true);
      const all = lines.join('\n');
      expect(all).not.toContain(token);
      expect(all).not.toContain('my secret question');
      expect(all).not.toContain('ada@example.com');
    } finally {
      await server.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
