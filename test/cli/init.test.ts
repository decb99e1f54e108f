/**
 * `support-chat-kit init` as a site owner runs it, in a folder of their own: what it makes, that a
 * second run changes nothing, that it refuses to replace what differs without --force, and that
 * every later command finds the same data and organization through the .env it wrote.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
const tsx = import.meta.resolve('tsx/esm');
const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** A new folder named like a site, with docs when asked. */
function site(docs: boolean): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sc-init-')), 'Acme Help');
  folders.push(dir);
  mkdirSync(dir, { recursive: true });
  if (docs) {
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'billing.md'), '# Billing\n\n## Refunds\n\nA refund is issued within 14 days of your request.\n');
  }
  return dir;
}

function run(cwd: string, args: string[]) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('SUPPORT_CHAT_')) delete env[key];
  const result = spawnSync(process.execPath, ['--import', tsx, cli, ...args], { cwd, encoding: 'utf8', env });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const envOf = (dir: string) => parseEnv(readFileSync(join(dir, '.env'), 'utf8'));

describe('support-chat-kit init', () => {
  it('in a folder with docs: makes the data, a token, the .env and server.mjs, ingests ./docs and says what to run next', () => {
    const dir = site(true);
    const first = run(dir, ['init', '--base-url', 'https://github.com/acme/help/blob/main/']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('ingested 1 files from docs');
    expect(first.stdout).toContain('npx support-chat-kit serve\n  node server.mjs');
    const env = envOf(dir);
    expect(env).toMatchObject({ SUPPORT_CHAT_DATA: '.support-chat', SUPPORT_CHAT_ORG: 'acme-help', SUPPORT_CHAT_BASE_URL: 'https://github.com/acme/help/blob/main/', PORT: '3000' });
    expect(env.SUPPORT_CHAT_TOKEN).toMatch(/^sc_live_/);
    expect(env.SUPPORT_PROXY_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(env.SUPPORT_CHAT_WEBHOOK_URL).toBe('http://127.0.0.1:3000/escalations');
    // The quick start's webhook receiver is server.mjs on this machine: loopback targets must be allowed.
    expect(env.SUPPORT_CHAT_ALLOW_LOCAL_TARGETS).toBe('true');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toMatch(/^# .*\n# .*\nSUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true$/m);
    expect(statSync(join(dir, '.support-chat', 'support-chat.db')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'server.mjs'), 'utf8')).toBe(readFileSync(resolve(import.meta.dirname, '../../src/cli/templates/server.mjs'), 'utf8'));
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('.env\n.support-chat/\n');

    // Every later command reads .env: the same data directory and organization, no flags.
    const stats = run(dir, ['kb', 'stats']);
    expect(stats.stdout.split('\n')[0], stats.stderr).toBe('acme-help: 1 documents, 1 sections, 1 of 1 prose sections embedded');
    const tokens = JSON.parse(run(dir, ['token', 'list', '--json']).stdout) as { prefix: string; scopes: string[] }[];
    expect(tokens).toHaveLength(1);
    expect(env.SUPPORT_CHAT_TOKEN!.startsWith(tokens[0]!.prefix)).toBe(true);
    expect(tokens[0]!.scopes).toEqual(['chat:read', 'chat:write', 'chat:escalate']);

    // Idempotent: the same files, the same token, nothing ingested again.
    const before = readFileSync(join(dir, '.env'), 'utf8');
    const second = run(dir, ['init']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('kept the token in .env');
    expect(second.stdout).toContain('1 unchanged');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(before);
    expect(JSON.parse(run(dir, ['token', 'list', '--json']).stdout)).toHaveLength(1);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toBe('.env\n.support-chat/\n');
  });

  it('in an empty folder: asks nothing, and says where the docs go', () => {
    const dir = site(false);
    const result = spawnSync(process.execPath, ['--import', tsx, cli, 'init'], { cwd: dir, encoding: 'utf8', input: '', env: { ...process.env, SUPPORT_CHAT_DATA: '' } });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('No docs/ folder: put your docs there, then run support-chat-kit kb ingest ./docs');
    expect(existsSync(join(dir, 'server.mjs'))).toBe(true);
    expect(existsSync(join(dir, '.support-chat', 'support-chat.db'))).toBe(true);
  });

  it('refuses to replace a server.mjs or a setting that differs, changing nothing, until --force', () => {
    const dir = site(true);
    expect(run(dir, ['init']).code).toBe(0);
    const env = readFileSync(join(dir, '.env'), 'utf8');
    writeFileSync(join(dir, 'server.mjs'), '// my own server\n');

    const refused = run(dir, ['init', '--org', 'other']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n').at(-1)).toBe(
      'support-chat-kit init: SUPPORT_CHAT_ORG in .env, server.mjs already exist and differ; nothing was changed (support-chat-kit init --force replaces them)',
    );
    expect(readFileSync(join(dir, 'server.mjs'), 'utf8')).toBe('// my own server\n');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(env);

    const forced = run(dir, ['init', '--org', 'other', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(envOf(dir).SUPPORT_CHAT_ORG).toBe('other');
    expect(readFileSync(join(dir, 'server.mjs'), 'utf8')).toContain("from 'support-chat-kit/proxy'");
    // A new token for the new organization, and the docs ingested for it.
    expect(run(dir, ['kb', 'stats']).stdout.split('\n')[0]).toBe('other: 1 documents, 1 sections, 1 of 1 prose sections embedded');
    const token = envOf(dir).SUPPORT_CHAT_TOKEN!;
    const listed = JSON.parse(run(dir, ['token', 'list', '--json', '--org', 'other']).stdout) as { prefix: string }[];
    expect(listed.some((t) => token.startsWith(t.prefix))).toBe(true);
  });
});
