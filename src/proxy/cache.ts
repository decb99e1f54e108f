/**
 * @module The proxy's short caches (settled conversations, searches, conversation owners):
 * `lru-cache` with a TTL, bounded in entries and in bytes as the callers measure them, so however
 * much is polled their memory stays bounded. A TTL or a size of 0 turns a cache off.
 */
import { LRUCache } from 'lru-cache';

export interface ShortCacheOptions {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
  /** The clock of the TTL (tests). @default performance */
  perf?: { now(): number };
}

/** A short cache: `get` marks an entry recently used; `set` holds a value of `bytes` for the TTL. */
export interface ShortCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, bytes: number): void;
  delete(key: string): void;
  /** Entries held (expired ones may linger until looked up or evicted). */
  readonly size: number;
  /** Bytes held, as the callers measured them. */
  readonly bytes: number;
}

/** A cache that holds nothing (a TTL or a size of 0). */
const OFF: ShortCache<never> = { get: () => undefined, set: () => {}, delete: () => {}, size: 0, bytes: 0 };

/**
 * A short cache: entries expire after `ttlMs`; past `maxEntries` or `maxBytes` the least recently
 * used go first; a value larger than `maxBytes` is not held.
 */
export function shortCache<V extends object | string>(options: ShortCacheOptions): ShortCache<V> {
  if (options.ttlMs <= 0 || options.maxEntries <= 0 || options.maxBytes <= 0) return OFF;
  // ttlResolution 0: each lookup reads the clock, so an entry is never served past its TTL.
  const lru = new LRUCache<string, V>({ max: options.maxEntries, maxSize: options.maxBytes, ttl: options.ttlMs, ttlResolution: 0, ...(options.perf ? { perf: options.perf } : {}) });
  return {
    get: (key) => lru.get(key),
    set: (key, value, bytes) => {
      lru.set(key, value, { size: Math.max(1, Math.ceil(bytes)) });
    },
    delete: (key) => {
      lru.delete(key);
    },
    get size() {
      return lru.size;
    },
    get bytes() {
      return lru.calculatedSize;
    },
  };
}
