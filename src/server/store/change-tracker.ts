/** @module Whether a SQLite database changed since a moment: for read caches that must never serve stale data. */
import type Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';

type Db = Database.Database;

/**
 * Whether the database may have changed since a moment, for read caches that must never serve
 * stale data: a counter of this process's writes, plus SQLite's `data_version`, which changes when
 * another connection (another server process, the CLI revoking a token) commits. Every statement
 * that writes is counted, because `changeTracker` wraps the connection's `prepare` and `exec`.
 *
 * `data_version` is read on every `stamp()` (about 1.5 µs), so another process's commit is seen by
 * the very next read. Inside `pin()` … `unpin()` (one request's synchronous run) it is read once:
 * nothing else runs in between, so a commit landing during that run is indistinguishable from one
 * landing just after it.
 */
export class ChangeTracker {
  #local = 0;
  #external = -1;
  #pins = 0;
  /** Whether other connections' commits were already looked up during the current pin. */
  #readWhilePinned = false;
  readonly #dataVersion: Database.Statement;
  readonly #db: Db;
  /** Where the WAL index would be, fixed now in case the working directory changes later. */
  readonly #shmPath: string;
  /** The WAL index (`<db>-shm`), opened on first use in WAL mode; null when not usable. */
  #shm: number | null | undefined;
  readonly #header = Buffer.alloc(96);
  readonly #lastHeader = Buffer.alloc(48);

  constructor(db: Db) {
    this.#db = db;
    this.#shmPath = db.memory ? '' : `${resolve(db.name)}-shm`;
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Called after every write through this connection. */
  touch(): void {
    this.#local++;
  }

  /** A stamp of the database's state: two equal stamps mean nothing was written in between. */
  stamp(): number {
    if (this.#pins === 0 || !this.#readWhilePinned) {
      if (this.#externalChange()) this.#local++;
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

  /** Stops reading the WAL index (the connection is closing). */
  close(): void {
    if (typeof this.#shm === 'number') closeSync(this.#shm);
    this.#shm = null;
  }

  /**
   * Whether another connection may have committed since the last call. In WAL mode every commit
   * rewrites the WAL-index header at the start of `<db>-shm` (its change counter, frame count and
   * checksum; https://sqlite.org/walformat.html), so one 96-byte read of that file tells, where
   * `PRAGMA data_version` takes a read transaction (file locks, several system calls). SQLite writes
   * the header's second copy, then the first; when the two copies differ a commit is in flight,
   * which counts as a change. Without a usable WAL index, `data_version` answers.
   */
  #externalChange(): boolean {
    if (this.#shm === undefined) this.#shm = openWalIndex(this.#db, this.#shmPath);
    if (this.#shm !== null) {
      const header = this.#header;
      if (readSync(this.#shm, header, 0, 96, 0) === 96 && header[12] === 1) {
        const settled = header.compare(header, 48, 96, 0, 48) === 0;
        if (settled && header.compare(this.#lastHeader, 0, 48, 0, 48) === 0) return false;
        header.copy(this.#lastHeader, 0, 0, 48);
        return true;
      }
    }
    const version = this.#dataVersion.get() as number;
    if (version === this.#external) return false;
    this.#external = version;
    return true;
  }
}

/** A read-only descriptor of the connection's WAL index, or null (in memory, not in WAL mode, not there yet). */
function openWalIndex(db: Db, path: string): number | null {
  if (db.memory || String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
  try {
    return openSync(path, 'r');
  } catch {
    return null;
  }
}

const trackers = new WeakMap<Db, ChangeTracker>();

/** The connection's change tracker; the first call starts counting its writes. */
export function changeTracker(db: Db): ChangeTracker {
  let tracker = trackers.get(db);
  if (tracker) return tracker;
  const t = new ChangeTracker(db);
  tracker = t;
  trackers.set(db, t);
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    // `readonly` is false for anything that writes, including INSERT … RETURNING read with get().
    if (!statement.readonly) {
      for (const method of ['run', 'get', 'all', 'iterate'] as const) {
        const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
        (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          try {
            return original(...args);
          } finally {
            t.touch();
          }
        };
      }
    }
    return statement;
  }) as Db['prepare'];
  const close = db.close.bind(db);
  db.close = (() => {
    t.close();
    return close();
  }) as Db['close'];
  const exec = db.exec.bind(db);
  db.exec = ((source: string) => {
    try {
      return exec(source);
    } finally {
      t.touch();
    }
  }) as Db['exec'];
  return tracker;
}
