/**
 * @module What the two users of Redis (the shared rate limiter and the bus) do alike: load the
 * optional `redis` package, make a client that keeps reconnecting, wait for it with a time limit,
 * and report an outage without flooding the logs.
 */

import { backoffDelay } from '../../protocol/retry.js';

/** `redis` is an optional peer dependency, loaded only by deployments that share state through it. */
export async function loadRedis(url: string): Promise<typeof import('redis')> {
  try {
    return await import('redis');
  } catch {
    throw new Error(`Redis at ${url} needs the optional package \`redis\`: run \`npm install redis\``);
  }
}

/**
 * A client that keeps reconnecting in the background (the shared backoff from about 50 ms, up to 2 s) and hands
 * its errors to `onError`. With `disableOfflineQueue` a command fails at once while disconnected
 * instead of waiting for the connection.
 */
export function createRedisClient(redis: typeof import('redis'), url: string, onError: (error: unknown) => void, options: { disableOfflineQueue?: boolean } = {}) {
  const client = redis.createClient({
    url,
    disableOfflineQueue: options.disableOfflineQueue ?? false,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => backoffDelay(retries, { baseMs: 50, maxMs: 2_000 }) },
  });
  client.on('error', onError);
  return client;
}

export type RedisClient = ReturnType<typeof createRedisClient>;

/** How often `connectedWithin` looks at the clock, and the most one look counts. */
const WAIT_STEP_MS = 100;

/**
 * Resolves when `connected` does; rejects when it takes longer than `timeoutMs` of this process's
 * own waiting, naming the Redis. Time the process could not run does not count: a step counts at
 * most twice its length, so five servers starting at once on two cores (each loading its model)
 * do not give up on a Redis that answers, while a Redis that does not answer is reported on time.
 */
export function connectedWithin(connected: Promise<unknown>, url: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    let waited = 0;
    let last = performance.now();
    const look = () => {
      const now = performance.now();
      waited += Math.min(now - last, 2 * WAIT_STEP_MS);
      last = now;
      if (waited >= timeoutMs) reject(new Error(`Redis at ${url} did not answer within ${timeoutMs} ms`));
      else timer = setTimeout(look, Math.min(WAIT_STEP_MS, timeoutMs - waited));
    };
    timer = setTimeout(look, Math.min(WAIT_STEP_MS, timeoutMs));
  });
  return Promise.race([connected.then(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

/** `report`, called at most once every 10 s (by `now`): an outage must not flood the logs. */
export function throttledReport(report: (error: unknown) => void, now: () => number = Date.now): (error: unknown) => void {
  let reportedAt = Number.NEGATIVE_INFINITY;
  return (error) => {
    const at = now();
    if (at - reportedAt < 10_000) return;
    reportedAt = at;
    report(error);
  };
}
