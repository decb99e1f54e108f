import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from '../../src/server/index.js';
import { jsonLogger } from '../../src/server/http/log.js';
import { createTestEngine } from '../helpers/test-engine.js';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], dataDir: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args, '--data', dataDir], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('support-chat token', () => {
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
    const env = { SUPPORT_CHAT_WEBHOOK_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/tickets`, SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec_logs_test' };
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
