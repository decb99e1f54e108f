import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/server/lru.js';

describe('least-recently-used cache', () => {
  it('drops the least recently used entry past its capacity, keeping those in use', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('a', 1).set('b', 2).set('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    expect(cache.size).toBe(3);
  });

  it('keeps a value in use while a stream of one-off keys passes through', () => {
    const cache = new LruCache<string, string | null>(100);
    cache.set('hot', null);
    let made = 0;
    for (let i = 0; i < 10_000; i++) {
      cache.getOrSet(`cold${i}`, () => 'x');
      cache.getOrSet('hot', () => (made++, null));
    }
    expect(made).toBe(0);
    expect(cache.size).toBe(100);
  });
});
