/**
 * Every command answers --help from the options it declares, the usage lists every command, and a
 * bad argument gets one line naming what is wrong and the command line that would work.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const cli = resolve(import.meta.dirname, '../../src/cli/index.ts');
const tsx = import.meta.resolve('tsx/esm');
const cwd = mkdtempSync(join(tmpdir(), 'sc-help-'));

function run(args: string[]) {
  const result = spawnSync(process.execPath, ['--import', tsx, cli, ...args], { cwd, encoding: 'utf8', env: { ...process.env, SUPPORT_CHAT_DATA: join(cwd, 'data') } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('support-chat-kit --help', () => {
  const top = run(['--help']);
  const lines = top.stdout.split('\n').filter((l) => /^ {2}[a-z]/.test(l)).map((l) => l.trim());

  it('lists every command and action with its options', () => {
    expect(top.code).toBe(0);
    const commands = lines.map((l) => l.split(' ').slice(0, 2).filter((w) => /^[a-z]+$/.test(w)).join(' '));
    expect(commands).toEqual(expect.arrayContaining(['init', 'serve', 'token create', 'token list', 'token revoke', 'kb ingest', 'kb sources', 'kb sync', 'kb remove', 'kb stats', 'tickets list', 'tickets sync', 'integrations set', 'integrations show', 'integrations remove', 'insights', 'retention set', 'retention show', 'retention clear', 'retention sweep', 'mcp']));
    expect(lines).toContain('mcp --org ORG');
    expect(lines).toContain('kb ingest PATH|URL... --org ORG [--base-url URL] [--include PATTERN] [--exclude PATTERN] [--max-pages N] [--content-selector CSS] [--exclude-selector CSS] [--embed-code]');
    expect(lines).toContain('token create --org ORG --name NAME --scopes SCOPE,... [--expires-in DAYS] [--json]');
  });

  it('answers --help for every command and action, exit 0, without touching the data', () => {
    for (const line of lines) {
      const words = line.split(' ').filter((w, i) => i < 2 && /^[a-z]+$/.test(w));
      const help = run([...words, '--help']);
      expect(help.code, words.join(' ')).toBe(0);
      expect(help.stdout, words.join(' ')).toContain(`Usage: support-chat-kit ${line}`);
      expect(help.stdout).toContain('--data DIR');
    }
    for (const command of ['token', 'kb', 'tickets', 'integrations', 'retention']) {
      const help = run([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage:\\n  support-chat-kit ${command} `));
    }
    expect(spawnSync('ls', [cwd], { encoding: 'utf8' }).stdout).toBe('');
  }, 240_000);

  it('answers a bad argument with one line: what is wrong, and the usage that works', () => {
    const cases: [string[], string][] = [
      [['kb', 'ingest', './docs'], 'support-chat-kit kb ingest: missing required option --org (or SUPPORT_CHAT_ORG); usage: support-chat-kit kb ingest PATH|URL... --org ORG [--base-url URL] [--include PATTERN] [--exclude PATTERN] [--max-pages N] [--content-selector CSS] [--exclude-selector CSS] [--embed-code]'],
      [['token', 'create', '--org', 'acme', '--name', 'site', '--scope', 'chat:read'], "support-chat-kit token create: Unknown option '--scope'; usage: support-chat-kit token create --org ORG --name NAME --scopes SCOPE,... [--expires-in DAYS] [--json]"],
      [['kb', 'stats', '--org'], "support-chat-kit kb stats: Option '--org <value>' argument missing; usage: support-chat-kit kb stats --org ORG"],
      [['kb', 'wipe'], 'support-chat-kit kb: unknown action "wipe": one of ingest, sources, sync, remove, stats (support-chat-kit kb --help shows how to use each)'],
      [['tokens'], 'support-chat-kit: unknown command "tokens": one of init, serve, token, kb, tickets, integrations, insights, retention, mcp (support-chat-kit --help lists them with their options)'],
      [['serve', '--port', 'http'], 'support-chat-kit serve: --port must be a port number, got "http"; usage: support-chat-kit serve [--port PORT] [--host HOST] [--role api|worker|all] [--retention-days DAYS] [--kb-sync-every DURATION] [--site DIR] [--site-port PORT] [--site-base PATH] [--rate-limit-token N] [--rate-limit-org N] [--rate-limit-address N] [--rate-limit-send N] [--rate-limit-escalate N] [--rate-limit-delete-ticket N] [--rate-limit-search N]'],
    ];
    for (const [args, line] of cases) {
      const result = run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n').filter((l) => !l.includes(': database: ')), args.join(' ')).toEqual([line]);
    }
  }, 120_000);
});
