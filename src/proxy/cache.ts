/**
 * @module The proxy's short cache of settled conversations: entries expire after a TTL, and the
 * least recently used go first once the cache holds `maxEntries` or `maxBytes`, so however many
 * conversations are polled, its memory stays bounded.
 *
 * Hand-written (a Map in insertion order is an LRU) rather than `lru-cache`, so that the proxy,
 * which site owners install, keeps no runtime dependency for 60 lines.
 */

interface Entry<V> {
  value: V;
  until: number;
  bytes: number;
}

export interface TtlLruCacheOptions {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
  /** @default Date.now */
  now?: () => number;
}

export class TtlLruCache<V> {
  readonly #map = new Map<string, Entry<V>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: TtlLruCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#maxBytes = options.maxBytes;
    this.#now = options.now ?? Date.now;
  }

  /** Entries held (expired ones may linger until the next `set` sweeps them). */
  get size(): number {
    return this.#map.size;
  }

  /** Bytes held, as the callers measured them. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The live value of `key`, marked as recently used; undefined when absent or expired. */
  get(key: string): V | undefined {
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    this.#map.delete(key);
    if (entry.until <= this.#now()) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#map.set(key, entry);
    return entry.value;
  }

  /** Holds `value` (of `bytes`) for the TTL; evicts expired entries, then the least recently used, to stay in bounds. */
  set(key: string, value: V, bytes: number): void {
    if (this.#ttlMs <= 0 || bytes > this.#maxBytes) return;
    this.delete(key);
    const now = this.#now();
    this.#map.set(key, { value, until: now + this.#ttlMs, bytes });
    this.#bytes += bytes;
    if (this.#map.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) return;
    for (const [k, entry] of this.#map) if (entry.until <= now) this.delete(k);
    for (const k of this.#map.keys()) {
      if (this.#map.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.delete(k);
    }
  }

  delete(key: string): void {
    const entry = this.#map.get(key);
    if (!entry) return;
    this.#map.delete(key);
    this.#bytes -= entry.bytes;
  }
}
