/**
 * Nothing half-made: `createServer` checks every option before it opens anything, a start that
 * fails closes what it opened, and `close()` closes every part even when one of them throws. The
 * SQLite database's handles are counted among the process's open files.
 */
import { mkdtempSync, readdirSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer, ServerConfigError } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { MemoryRateLimiter } from '../../src/server/http/rate-limit.js';

/** The process's open files inside `dir` (Linux's /proc). */
const openIn = (dir: string) =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });

const fresh = () => mkdtempSync(join(tmpdir(), 'sc-start-'));

describe('createServer, start and close', () => {
  it.each([
    [{ retentionDays: 0 }, 'retentionDays: retention must be a whole number of days from 1 to 36500, got 0'],
    [{ rateLimits: { perToken: -1 } }, 'rateLimits.perToken must be a positive whole number, got -1'],
    [{ rateLimits: { endpoints: { search: 1.5 } } }, 'rateLimits.endpoints.search must be a positive whole number, got 1.5'],
    [{ jobLeaseMs: 0 }, 'jobLeaseMs must be a positive whole number, got 0'],
    [{ streams: { maxPerOrganization: 0 } }, 'streams.maxPerOrganization must be a positive whole number, got 0'],
  ])('refuses %j before opening the database', async (options, message) => {
    const dir = fresh();
    const error = await createServer({ dataDir: dir, logger: silentLogger, startWorker: false, ...options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerConfigError);
    expect((error as Error).message).toBe(message);
    expect(readdirSync(dir)).toEqual([]);
    expect(openIn(dir)).toEqual([]);
  });

  it('closes the database it opened when a later part fails to start', async () => {
    const dir = fresh();
    const failing = () => {
      throw new Error('engine failed');
    };
    await expect(createServer({ dataDir: dir, logger: silentLogger, startWorker: false, engine: failing })).rejects.toThrow('engine failed');
    expect(readdirSync(dir)).toContain('support-chat.db');
    expect(openIn(dir)).toEqual([]);
  });

  it('closes every part when one throws on close, and rethrows its error', async () => {
    const dir = fresh();
    const limiter = new MemoryRateLimiter();
    const broken = Object.assign(limiter, { close: async () => Promise.reject(new Error('limiter failed to close')) });
    const server = await createServer({ dataDir: dir, logger: silentLogger, rateLimiter: broken });
    expect(openIn(dir).length).toBeGreaterThan(0);
    await expect(server.close()).rejects.toThrow('limiter failed to close');
    // The parts after the limiter, the database last, were closed all the same.
    expect(openIn(dir)).toEqual([]);
  });
});
