/**
 * Waiting for Redis at start: a Redis that does not answer is reported after the time limit, and
 * time the process could not run (its event loop held, as when several servers start at once on
 * few cores) does not count against a Redis that answers.
 */
import { describe, expect, it } from 'vitest';
import { connectedWithin } from '../../../src/server/bus/redis.js';

/** Holds the event loop for `ms`. */
function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('connectedWithin', () => {
  it('reports a Redis that does not answer once the time limit has passed', async () => {
    const started = performance.now();
    await expect(connectedWithin(new Promise(() => undefined), 'redis://127.0.0.1:1', 300)).rejects.toThrow('Redis at redis://127.0.0.1:1 did not answer within 300 ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('does not count time the event loop was held against a Redis that answers', async () => {
    const connected = new Promise((done) => setTimeout(done, 1_100));
    const waiting = connectedWithin(connected, 'redis://127.0.0.1:6379', 500);
    hold(1_000);
    await expect(waiting).resolves.toBeUndefined();
  });
});
