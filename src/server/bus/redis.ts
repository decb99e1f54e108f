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

/** Resolves when `connected` does; rejects when it takes longer than `timeoutMs`, naming the Redis. */
export function connectedWithin(connected: Promise<unknown>, url: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis at ${url} did not answer within ${timeoutMs} ms`)), timeoutMs);
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
