/** @module The protocol's shared parts: `Retry-After`, the retry loop, the window limiter, the capped body reader, the validators. */
import { describe, expect, it, vi } from 'vitest';
import {
  characterCount,
  clipCharacters,
  EMAIL_MAX_LENGTH,
  isPlausibleEmail,
  FixedWindowLimiter,
  HttpError,
  parseRetryAfter,
  readCappedText,
  withRetries,
} from '../../src/protocol/index.js';
import { readEscalationContact, readMessage } from '../../src/protocol/schemas/index.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-10-21T07:27:00Z');
  it.each([
    ['30', 30],
    [' 0 ', 0],
    ['Wed, 21 Oct 2026 07:28:00 GMT', 60],
    ['Wed, 21 Oct 2026 07:26:00 GMT', 0],
    ['1.5', undefined],
    ['-3', undefined],
    ['soon', undefined],
    [null, undefined],
  ])('reads %j as %j seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});

describe('withRetries', () => {
  it('retries until an attempt is final, waiting Retry-After when given', async () => {
    const started = Date.now();
    const seen: number[] = [];
    const value = await withRetries(async (n) => {
      seen.push(n);
      return n < 2 ? { retry: true, error: new Error('busy'), retryAfter: 0 } : { retry: false, value: 'done' };
    }, { retries: 3 });
    expect(value).toBe('done');
    expect(seen).toEqual([0, 1, 2]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits the backoff between attempts (doubling from baseDelayMs, jittered, capped) and Retry-After when given', async () => {
    vi.useFakeTimers();
    try {
      const run = async (maxDelayMs: number) => {
        const start = Date.now();
        const times: number[] = [];
        const done = withRetries(
          async (n) => {
            times.push(Date.now() - start);
            return n < 4 ? { retry: true, error: new Error('busy'), retryAfter: n === 3 ? 7 : undefined } : { retry: false, value: 'ok' };
          },
          { retries: 5, baseDelayMs: 100, maxDelayMs, random: () => 0.5 },
        );
        await vi.runAllTimersAsync();
        expect(await done).toBe('ok');
        return times;
      };
      // 100, 200, 400 ms of backoff, then the 7 s the server asked for.
      expect(await run(10_000)).toEqual([0, 100, 300, 700, 7_700]);
      // Capped: 400 ms of backoff and the 7 s of Retry-After both become 300 ms.
      expect(await run(300)).toEqual([0, 100, 300, 600, 900]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('returns the last value, or throws the last error, when retries run out; never retries what throws', async () => {
    expect(await withRetries(async () => ({ retry: true, value: 503, retryAfter: 0 }), { retries: 1 })).toBe(503);
    await expect(withRetries(async () => ({ retry: true, error: new Error('down'), retryAfter: 0 }), { retries: 2 })).rejects.toThrow('down');
    let calls = 0;
    await expect(
      withRetries(async () => {
        calls++;
        throw new Error('final');
      }, { retries: 5 }),
    ).rejects.toThrow('final');
    expect(calls).toBe(1);
  });

  it('stops waiting when its signal aborts', async () => {
    const controller = new AbortController();
    const pending = withRetries(async () => ({ retry: true, error: new Error('x'), retryAfter: 60 }), { retries: 1, signal: controller.signal });
    controller.abort(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
  });
});

describe('FixedWindowLimiter', () => {
  it('counts every bucket only when all allow, and forgets past windows', () => {
    let now = 60_000 * 1_000;
    const limiter = new FixedWindowLimiter(() => now);
    expect(limiter.consume([{ key: 'a', limit: 1 }, { key: 'b', limit: 5 }])).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(limiter.consume([{ key: 'a', limit: 1 }, { key: 'b', limit: 5 }])).toMatchObject({ allowed: false, retryAfter: 60 });
    expect(limiter.consume([{ key: 'b', limit: 5 }])).toMatchObject({ allowed: true, remaining: 3 });
    now += 60_000;
    expect(limiter.consume([{ key: 'c', limit: 1 }]).allowed).toBe(true);
    expect(limiter.size).toBe(1);
  });
});

describe('readCappedText', () => {
  const stream = (...chunks: string[]) => new Blob(chunks).stream();
  it('reads UTF-8 split across chunks, and refuses past the limit with 413', async () => {
    const bytes = new TextEncoder().encode('中文');
    const split = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 2));
        controller.enqueue(bytes.slice(2));
        controller.close();
      },
    });
    expect(await readCappedText(split)).toBe('中文');
    await expect(readCappedText(stream('x'.repeat(11)), { limit: 10 })).rejects.toMatchObject({ status: 413, message: 'Request body is larger than 10 bytes' });
    await expect(readCappedText(stream('x'), { limit: 10, declaredLength: '11' })).rejects.toBeInstanceOf(HttpError);
  });
});

describe('validators', () => {
  it('count characters, not UTF-16 units', () => {
    expect(characterCount('😀a中')).toBe(3);
    expect(readMessage({ message: '😀'.repeat(16_000) })).toHaveLength(32_000);
    expect(() => readMessage({ message: '😀'.repeat(16_001) })).toThrow('"message" must be at most 16000 characters');
  });

  it('bound an email in characters, as the API does: a name of emoji within the bound is plausible', () => {
    const at = '@example.com';
    const local = '😀'.repeat(EMAIL_MAX_LENGTH - at.length);
    expect(isPlausibleEmail(`${local}${at}`)).toBe(true);
    expect(readEscalationContact({ name: 'Ada', email: `${local}${at}` }).email).toBe(`${local}${at}`);
    expect(isPlausibleEmail(`😀${local}${at}`)).toBe(false);
    // The pattern runs on bounded text only: a long run of dots and a space costs nothing.
    expect(isPlausibleEmail(`a@${'.'.repeat(1_000_000)} `)).toBe(false);
  });

  it('clip to characters without splitting a surrogate pair', () => {
    expect(clipCharacters('😀a中😀', 3)).toBe('😀a中');
    expect(clipCharacters('😀😀', 1)).toBe('😀');
    expect(clipCharacters('abc', 5)).toBe('abc');
    expect(clipCharacters('\uD800x', 1)).toBe('\uD800');
    expect(characterCount(clipCharacters('😀'.repeat(600), 500))).toBe(500);
  });

  it('read an escalation contact, trimmed, with an optional note', () => {
    expect(readEscalationContact({ name: ' Ada ', email: 'ada@example.com ', note: '  ' })).toEqual({ name: 'Ada', email: 'ada@example.com' });
    expect(readEscalationContact({ name: 'Ada', email: 'ada@example.com', note: 'Tried twice' })).toEqual({ name: 'Ada', email: 'ada@example.com', note: 'Tried twice' });
    expect(() => readEscalationContact({ name: 'Ada', email: 'nope' })).toThrow('"email" must be an email address');
    expect(() => readEscalationContact({ email: 'ada@example.com' })).toThrow('"name" is required');
  });
});
