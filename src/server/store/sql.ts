/**
 * @module One asynchronous SQL interface over the two databases the server runs on: SQLite
 * (better-sqlite3, the embedded default) and PostgreSQL (`pg`, for several processes on several
 * machines). Stores are written once against it.
 *
 * Statements are written in the SQL both engines accept, with `?` placeholders and an array of
 * values, or `:name` placeholders and an object of values (both turned into `$1`, `$2`… for
 * PostgreSQL). Where the engines differ a statement asks `sql.dialect`. The database's
 * clock is `clock_ms()` in both: on PostgreSQL the server's clock (several machines share one), on
 * SQLite the clock the process was given (one machine).
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChangeTracker } from './change-tracker.js';
import { TransactionHandle, type DatabaseLocation, type OpenSqlOptions, type Params, type Sql } from './sql-interface.js';

export type { Dialect, NamedParams, Params, Sql, DatabaseLocation, OpenSqlOptions } from './sql-interface.js';
export { TransactionHandle } from './sql-interface.js';

/** How long after a deletion the write-ahead log is checkpointed and truncated (deletions close together share one). */
const SCRUB_DELAY_MS = 200;
/** Tries of that checkpoint while readers or a transaction keep it from finishing. */
const SCRUB_TRIES = 10;

/** Whether `value` names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(value);
}

/**
 * Opens the database at `location`: PostgreSQL for a `postgres://` URL (a `schema` query parameter
 * puts every table in that schema, created when absent), else SQLite in WAL mode.
 */
export async function openSql(location: DatabaseLocation, options: OpenSqlOptions = {}): Promise<Sql> {
  if ('url' in location) {
    if (!isPostgresUrl(location.url)) throw new TypeError(`not a PostgreSQL URL (postgres://…): ${redactUrl(location.url)}`);
    const { openPostgres } = await import('./postgres.js');
    return openPostgres(location.url, options);
  }
  return openSqlite(location.dataDir, options);
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

/** Opens (creating when absent) `support-chat.db` in `dataDir` as a Sql. */
export function openSqlite(dataDir: string, options: OpenSqlOptions = {}): SqliteSql {
  let db: Database.Database;
  if (dataDir === ':memory:') {
    db = new Database(':memory:');
  } else {
    mkdirSync(dataDir, { recursive: true });
    db = new Database(join(dataDir, 'support-chat.db'));
    db.pragma('journal_mode = WAL');
  }
  db.pragma('synchronous = NORMAL');
  // Deleted rows are overwritten with zeros, not left readable in free pages.
  db.pragma('secure_delete = ON');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const now = options.now ?? Date.now;
  db.function('clock_ms', { deterministic: false }, () => now());
  return new SqliteSql(db);
}

/**
 * SQLite through better-sqlite3, whose calls are synchronous: a statement runs at once and its
 * promise is already settled, so reads cost what they cost before the interface was async. One
 * connection serves every caller; while a transaction is open (its work may wait on other
 * promises) other callers queue behind it, so they never see or join its uncommitted writes.
 */
export class SqliteSql implements Sql {
  readonly dialect = 'sqlite';
  readonly db: Database.Database;
  readonly changes: ChangeTracker;
  readonly #statements = new Map<string, Database.Statement>();
  /** The transaction in progress and the ones waiting for it, shared by this process's connections to the file. */
  readonly #gate: Gate;

  constructor(db: Database.Database) {
    this.db = db;
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.changes = new ChangeTracker(() => dataVersion.get());
    this.#gate = gateOf(db);
  }

  get #tail(): Promise<void> | null {
    return this.#gate.tail;
  }

  set #tail(value: Promise<void> | null) {
    this.#gate.tail = value;
  }

  all<T>(text: string, params: Params = []): Promise<T[]> {
    return this.#outside(() => this.allNow<T>(text, params));
  }

  get<T>(text: string, params: Params = []): Promise<T | undefined> {
    return this.#outside(() => this.getNow<T>(text, params));
  }

  run(text: string, params: Params = []): Promise<number> {
    return this.#outside(() => this.runNow(text, params));
  }

  exec(text: string): Promise<void> {
    return this.#outside(() => this.execNow(text));
  }

  /** Synchronous forms, for the transaction's own handle and for callers that hold no lock to wait on. */
  allNow<T>(text: string, params: Params): T[] {
    const statement = this.#statement(text);
    return this.#counted(statement, () => (statement.reader ? statement.all(...bind(params)) : (statement.run(...bind(params)), [])) as T[]);
  }

  getNow<T>(text: string, params: Params): T | undefined {
    const statement = this.#statement(text);
    return this.#counted(statement, () => statement.get(...bind(params)) as T | undefined);
  }

  runNow(text: string, params: Params): number {
    const statement = this.#statement(text);
    // `… RETURNING` reads and writes: count its rows.
    return this.#counted(statement, () => (statement.reader ? statement.all(...bind(params)).length : statement.run(...bind(params)).changes));
  }

  execNow(text: string): void {
    try {
      this.db.exec(text);
    } finally {
      this.changes.touch();
    }
  }

  /** Runs one statement; one that may write (`readonly` is false, INSERT … RETURNING included) is counted even when it throws. */
  #counted<T>(statement: Database.Statement, run: () => T): T {
    if (statement.readonly) return run();
    try {
      return run();
    } finally {
      this.changes.touch();
    }
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.#tail = (previous ?? Promise.resolve()).then(() => mine);
    const tail = this.#tail;
    const run = async (): Promise<T> => {
      if (previous) await previous;
      const tx = new SqliteTransaction(this);
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(tx);
        this.execNow('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.execNow('ROLLBACK');
        throw error;
      } finally {
        tx.end();
        release();
        if (this.#tail === tail) this.#tail = null;
      }
    };
    return run();
  }

  #scrub: ReturnType<typeof setTimeout> | undefined;

  scrubSoon(): void {
    if (this.#scrub || this.db.memory) return;
    this.#scrubAfter(SCRUB_DELAY_MS, SCRUB_TRIES);
  }

  #scrubAfter(delayMs: number, tries: number): void {
    this.#scrub = setTimeout(() => {
      this.#scrub = undefined;
      if (!this.#scrubNow() && tries > 1) this.#scrubAfter(delayMs * 2, tries - 1);
    }, delayMs);
    this.#scrub.unref();
  }

  /** Checkpoints the whole write-ahead log and truncates it; false when a transaction or a reader kept it from finishing. */
  #scrubNow(): boolean {
    if (!this.db.open) return true;
    if (this.#tail) return false;
    try {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
      return !result || (result.busy === 0 && result.checkpointed >= result.log);
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    while (this.#tail) await this.#tail;
    if (this.#scrub) {
      clearTimeout(this.#scrub);
      this.#scrub = undefined;
      this.#scrubNow();
    }
    releaseGate(this.db);
    this.db.close();
  }

  /**
   * Runs `fn` (synchronous) outside any transaction: at once when none is open (its promise is
   * already settled), else once the open one and those queued behind it have ended.
   */
  #outside<T>(fn: () => T): Promise<T> {
    return this.#tail ? this.#after(fn) : settle(fn);
  }

  /** Runs `fn` once no transaction is open (it may open right after, so `fn` must be synchronous). */
  async #after<T>(fn: () => T): Promise<T> {
    while (this.#tail) await this.#tail;
    return fn();
  }

  #statement(text: string): Database.Statement {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      if (this.#statements.size >= 500) this.#statements.clear();
      this.#statements.set(text, statement);
    }
    return statement;
  }
}

/**
 * One queue of transactions per database file in this process. Two connections of one process to
 * one file (two servers in a test, a server and a store opened beside it) would otherwise deadlock:
 * the second's BEGIN waits synchronously (busy timeout) for a lock the first can only release once
 * the event loop runs again.
 */
interface Gate {
  tail: Promise<void> | null;
  users: number;
}
const gates = new Map<string, Gate>();

function gateOf(db: Database.Database): Gate {
  if (db.memory) return { tail: null, users: 1 };
  const key = resolve(db.name);
  let gate = gates.get(key);
  if (!gate) gates.set(key, (gate = { tail: null, users: 0 }));
  gate.users++;
  return gate;
}

function releaseGate(db: Database.Database): void {
  if (db.memory) return;
  const key = resolve(db.name);
  const gate = gates.get(key);
  if (gate && --gate.users === 0) gates.delete(key);
}

/** The handle a SQLite transaction's work is given: it runs statements at once, inside the transaction. */
class SqliteTransaction extends TransactionHandle<SqliteSql> implements Sql {
  readonly dialect = 'sqlite';

  get changes(): ChangeTracker {
    return this.live().changes;
  }

  all<T>(text: string, params: Params = []): Promise<T[]> {
    return settle(() => this.live().allNow<T>(text, params));
  }

  get<T>(text: string, params: Params = []): Promise<T | undefined> {
    return settle(() => this.live().getNow<T>(text, params));
  }

  run(text: string, params: Params = []): Promise<number> {
    return settle(() => this.live().runNow(text, params));
  }

  exec(text: string): Promise<void> {
    return settle(() => this.live().execNow(text));
  }
}

/** better-sqlite3's arguments for `params`: the values by position, or one object of named values. */
function bind(params: Params): unknown[] {
  return Array.isArray(params) ? params : [params];
}

/** A settled promise of `fn()`'s result, or of the error it threw. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error);
  }
}
