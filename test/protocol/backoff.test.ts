import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/protocol/retry.js';
import { retryDelayMs } from '../../src/server/conversations/lifecycle.js';
import { followUpRetryDelayMs } from '../../src/server/escalation/follow-ups.js';

const low = () => 0;
const mid = () => 0.5;
const high = () => 0.999_999;

describe('the one backoff policy', () => {
  it('doubles from baseMs, spread by the jitter around each delay', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, { baseMs: 100, maxMs: 10_000 }, undefined, mid))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(2, { baseMs: 100, maxMs: 10_000 }, undefined, low)).toBe(200);
    expect(backoffDelay(2, { baseMs: 100, maxMs: 10_000 }, undefined, high)).toBe(600);
    expect(backoffDelay(2, { baseMs: 100, maxMs: 10_000, jitter: 0.2 }, undefined, low)).toBe(320);
    expect(backoffDelay(2, { baseMs: 100, maxMs: 10_000, jitter: 0 }, undefined, high)).toBe(400);
  });

  it('spreads delays: a thousand draws of one attempt are not all alike', () => {
    const delays = new Set(Array.from({ length: 1000 }, () => backoffDelay(3, { baseMs: 100 })));
    expect(delays.size).toBeGreaterThan(100);
    for (const d of delays) expect(d >= 400 && d <= 1200).toBe(true);
  });

  it('never waits past maxMs, however many attempts failed (no overflow)', () => {
    expect(backoffDelay(10, { baseMs: 100, maxMs: 5_000 }, undefined, high)).toBe(5_000);
    expect(backoffDelay(10_000, { baseMs: 100, maxMs: 5_000 }, undefined, low)).toBe(5_000);
  });

  it('honours Retry-After exactly, capped at maxRetryAfterMs (else maxMs)', () => {
    expect(backoffDelay(0, { maxMs: 5_000, maxRetryAfterMs: 60_000 }, 7)).toBe(7_000);
    expect(backoffDelay(0, { maxMs: 5_000, maxRetryAfterMs: 60_000 }, 3_600)).toBe(60_000);
    expect(backoffDelay(0, { maxMs: 5_000 }, 3_600)).toBe(5_000);
    expect(backoffDelay(4, { maxMs: 5_000 }, 0)).toBe(0);
  });

  it('is what the server loops use: answer jobs (500 ms → 30 s) and helpdesk follow-ups (1 s → 10 min), with jitter', () => {
    const answers = Array.from({ length: 200 }, () => retryDelayMs(2));
    expect(Math.min(...answers)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...answers)).toBeLessThanOrEqual(3_000);
    expect(new Set(answers).size).toBeGreaterThan(10);
    expect(retryDelayMs(30)).toBe(30_000);
    const followUps = Array.from({ length: 200 }, () => followUpRetryDelayMs(1));
    expect(Math.min(...followUps)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...followUps)).toBeLessThanOrEqual(3_000);
    expect(new Set(followUps).size).toBeGreaterThan(10);
    expect(followUpRetryDelayMs(40)).toBe(600_000);
  });
});
