/**
 * Scale-out on one machine: two server processes' worth of servers on one SQLite file, sharing
 * their rate limits through Redis. Runs when Redis answers at SUPPORT_CHAT_TEST_REDIS_URL
 * (default redis://127.0.0.1:6379), and says so when it is skipped.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { RedisRateLimiter } from '../../src/server/http/redis-rate-limit.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { awayFromWindowEnd, keySlot, redisAvailable, TEST_REDIS_URL as REDIS_URL } from '../helpers/redis.js';

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
    const start = () => startServer({ dataDir: dir, port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false, env: { SUPPORT_CHAT_REDIS_URL: REDIS_URL } });
    const a = await start();
    const b = await start();
    cleanup.push(() => a.close(), () => b.close());
    // A token made through one server is valid on the other: they share the database.
    const { token } = await a.server.tokens.create({ orgId: `scale-${Date.now()}`, name: 'load', scopes: ['chat:read'] });
    // The window is Redis's minute: the burst must not straddle two of them on a slow machine.
    await awayFromWindowEnd(20);
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
    await limiter.close();
    const down = new RedisRateLimiter({ url: 'redis://127.0.0.1:1', onError: (e) => errors.push(e) });
    const decision = await down.consume(buckets);
    expect(decision.allowed).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
    await down.close();
  });
});

describe.runIf(available)('the shared rate limiter', () => {
  const redis = createClient({ url: REDIS_URL });
  redis.on('error', () => undefined);
  let prefix = '';

  beforeAll(async () => {
    await redis.connect();
  });
  afterAll(async () => {
    await redis.close();
  });
  beforeEach(async () => {
    prefix = `test-${randomUUID()}`;
    // One test's requests share a window of Redis's clock.
    await awayFromWindowEnd(2);
  });

  function limiter(now?: () => number): RedisRateLimiter {
    const made = new RedisRateLimiter({ url: REDIS_URL, prefix, now });
    cleanup.push(() => made.close());
    return made;
  }

  it('counts in the window of Redis\'s clock, whatever the machine\'s clock says', async () => {
    const right = limiter();
    const wrong = limiter(() => Date.now() + 3_600_000);
    await Promise.all([right.ready(), wrong.ready()]);
    const buckets = [{ key: 'token:t1', limit: 3 }];
    const decisions = [await right.consume(buckets), await wrong.consume(buckets), await right.consume(buckets), await wrong.consume(buckets)];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    // The headers come from Redis's clock too: the end of the current minute there.
    const seconds = Number((await redis.time())[0]);
    const end = (Math.floor(seconds / 60) + 1) * 60;
    for (const decision of decisions) expect(decision.reset).toBe(end);
    // Counted before TIME was read: the same second, or one more when a second began in between.
    expect(decisions[3]!.retryAfter - (end - seconds)).toBeOneOf([0, 1]);
  });

  it('keeps every key of one organization in one cluster slot, and spreads organizations', async () => {
    const shared = limiter();
    await shared.ready();
    await shared.consume([
      { key: 'token:t1', limit: 120 },
      { key: 'org:acme', limit: 600 },
      { key: 'org:acme:send', limit: 300 },
    ]);
    await shared.consume([
      { key: 'token:t2', limit: 120 },
      { key: 'org:globex', limit: 600 },
    ]);
    await shared.consume([{ key: 'addr:192.0.2.1', limit: 60 }]);
    const keys = (await redis.keys(`${prefix}:*`)).sort();
    expect(keys).toEqual([
      `${prefix}:{addr:192.0.2.1}:addr:192.0.2.1`,
      `${prefix}:{org:acme}:org:acme`,
      `${prefix}:{org:acme}:org:acme:send`,
      `${prefix}:{org:acme}:token:t1`,
      `${prefix}:{org:globex}:org:globex`,
      `${prefix}:{org:globex}:token:t2`,
    ]);
    const slots = (tag: string) => new Set(keys.filter((k) => k.includes(`{${tag}}`)).map(keySlot));
    expect(slots('org:acme').size).toBe(1);
    expect(slots('org:globex').size).toBe(1);
    expect([...slots('org:acme')][0]).not.toBe([...slots('org:globex')][0]);
    // Redis's own figures, so the slot helper is the cluster's: KEYSLOT of "123456789" and "foo".
    expect([keySlot('123456789'), keySlot('foo'), keySlot('{user1000}.following')]).toEqual([12739, 12182, keySlot('user1000')]);
    // Every key expires when its window ends on Redis's clock.
    for (const key of keys) expect(await redis.pTTL(key)).toBeLessThanOrEqual(60_000);
  });

  it('refuses and consumes nothing when any one bucket is used up', async () => {
    const shared = limiter();
    await shared.ready();
    const buckets = [
      { key: 'token:t1', limit: 5 },
      { key: 'org:o1', limit: 10 },
      { key: 'org:o1:escalate', limit: 2 },
    ];
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await shared.consume(buckets));
    expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
      [true, 2, 1],
      [true, 2, 0],
      [false, 2, 0],
      [false, 2, 0],
    ]);
    const count = (key: string) => redis.get(`${prefix}:{org:o1}:${key}`);
    expect([await count('token:t1'), await count('org:o1'), await count('org:o1:escalate')]).toEqual(['2', '2', '2']);
    // The token's other endpoints still have what the refusals did not take.
    const other = await shared.consume(buckets.slice(0, 2));
    expect([other.allowed, other.limit, other.remaining]).toEqual([true, 5, 2]);
  });
});
