/** `support-chat-kit serve` sets every rate limit from a flag or its environment variable (a real process over HTTP). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/cli.js';

const root = resolve(import.meta.dirname, '../..');
const cli = resolve(root, 'src/cli/index.ts');

describe('serve rate limits', () => {
  it('takes a limit from its environment variable', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sc-serve-limits-'));
    // startServe passes no flag: the variable sets the per-address limit.
    const { url, child } = await startServe(dataDir, { ...process.env, SUPPORT_CHAT_RATE_LIMIT_ADDRESS: '2', SUPPORT_CHAT_DATABASE_URL: '', SUPPORT_CHAT_REDIS_URL: '' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${url}/v0/me`);
        expect(response.headers.get('x-ratelimit-limit')).toBe('2');
        statuses.push(response.status);
      }
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);

  it('refuses a limit that is not a positive whole number, naming the flag and its variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', cli, 'serve', '--port', '0', '--rate-limit-search', '0'], { cwd: root, encoding: 'utf8', env: { ...process.env, SUPPORT_CHAT_DATABASE_URL: '' } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--rate-limit-search (or SUPPORT_CHAT_RATE_LIMIT_SEARCH) must be a positive whole number of requests a minute, got "0"');
  }, 120_000);
});
