/** @module A bounded least-recently-used cache: a Map, whose insertion order is its recency order. */

/**
 * At most `capacity` entries; reading or writing an entry makes it the most recent, and adding one
 * past the capacity drops the least recent. Unlike a cache emptied when full, the entries in use
 * stay: a stream of one-off keys (a visitor's distinct rare words) pushes out only the oldest.
 * Values are never undefined (undefined is what `get` returns for a missing key; use null).
 */
export class LruCache<K, V extends NonNullable<unknown> | null> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The value for `key` (undefined when absent), now the most recent. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
    return this;
  }

  /** The value for `key`, made by `make` and kept when absent. */
  getOrSet(key: K, make: () => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make();
      this.set(key, value);
    }
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
