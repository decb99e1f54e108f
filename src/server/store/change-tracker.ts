/** @module Whether a SQLite database changed since a moment: for read caches that must never serve stale data. */

/**
 * Whether the database may have changed since a moment, for read caches that must never serve
 * stale data: a counter of this connection's writes, bumped by the `Sql` wrapper for every statement
 * that writes and every transaction it ends, plus SQLite's `PRAGMA data_version`, which changes when
 * another connection (another server process, the CLI revoking a token) commits.
 *
 * `data_version` is read on every `stamp()`, so another process's commit is seen by the very next
 * read. Inside `pin()` … `unpin()` (one request's synchronous run) it is read once: nothing else
 * runs in between, so a commit landing during that run is indistinguishable from one landing just
 * after it.
 */
export class ChangeTracker {
  #local = 0;
  #external: unknown = undefined;
  #pins = 0;
  /** Whether other connections' commits were already looked up during the current pin. */
  #readWhilePinned = false;
  readonly #dataVersion: () => unknown;

  /** @param dataVersion reads `PRAGMA data_version` on the connection whose writes are counted */
  constructor(dataVersion: () => unknown) {
    this.#dataVersion = dataVersion;
  }

  /** Called after every write through this connection. */
  touch(): void {
    this.#local++;
  }

  /** A stamp of the database's state: two equal stamps mean nothing was written in between. */
  stamp(): number {
    if (this.#pins === 0 || !this.#readWhilePinned) {
      const version = this.#dataVersion();
      if (version !== this.#external) {
        this.#external = version;
        this.#local++;
      }
      this.#readWhilePinned = this.#pins > 0;
    }
    return this.#local;
  }

  /** Until the matching `unpin()`, other connections' commits are looked up once. Call both in the same synchronous run. */
  pin(): void {
    if (this.#pins++ === 0) this.#readWhilePinned = false;
  }

  unpin(): void {
    if (this.#pins > 0) this.#pins--;
  }
}
