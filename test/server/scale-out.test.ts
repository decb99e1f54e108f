/**
 * Scale-out on one machine: two server processes' worth of servers on one SQLite file, sharing
 * their rate limits through Redis. Runs when Redis answers at SUPPORT_CHAT_TEST_REDIS_URL
 * (default redis://127.0.0.1:6379), and says so when it is skipped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';
import { RedisRateLimiter } from '../../src/server/http/redis-rate-limit.js';
import { createTestEngine } from '../helpers/test-engine.js';

const REDIS_URL = process.env.SUPPORT_CHAT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAvailable(): Promise<boolean> {
  const client = createClient({ url: REDIS_URL, socket: { connectTimeout: 500, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    await client.quit();
    return true;
  } catch {
    return false;
  }
}

const available = await redisAvailable();
if (!available) console.warn(`scale-out tests skipped: no Redis at ${REDIS_URL}`);

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe.runIf(available)('two servers on one database, limits shared through Redis', () => {
  it('lets exactly 120 of 1,000 concurrent requests on one token through, across both servers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-scale-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    // The clock stands still, so the burst cannot straddle two one-minute windows on a slow machine.
    const t0 = Date.now();
    const start = () => startServer({ dataDir: dir, port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false, now: () => t0, env: { SUPPORT_CHAT_REDIS_URL: REDIS_URL } });
    const a = await start();
    const b = await start();
    cleanup.push(() => a.close(), () => b.close());
    // A token made through one server is valid on the other: they share the database.
    const { token } = await a.server.tokens.create({ orgId: `scale-${Date.now()}`, name: 'load', scopes: ['chat:read'] });
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => fetch(`${i % 2 ? a.url : b.url}/v0/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses.filter((s) => s === 429)).toHaveLength(880);
  }, 30_000);

  it('reports the limit with the fewest remaining, and lets requests through when Redis is gone', async () => {
    const errors: unknown[] = [];
    const limiter = new RedisRateLimiter({ url: REDIS_URL, prefix: `test-${Date.now()}`, onError: (e) => errors.push(e) });
    await limiter.ready();
    const buckets = [
      { key: 'token:t1', limit: 5 },
      { key: 'org:o1', limit: 3 },
    ];
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(buckets));
    expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
      [true, 3, 2],
      [true, 3, 1],
      [true, 3, 0],
      [false, 3, 0],
    ]);
    // A refusal consumed nothing: the token bucket still has 2 left once the organization's resets.
    await limiter.close();
    const down = new RedisRateLimiter({ url: 'redis://127.0.0.1:1', onError: (e) => errors.push(e) });
    const decision = await down.consume(buckets);
    expect(decision.allowed).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
    await down.close();
  });
});
