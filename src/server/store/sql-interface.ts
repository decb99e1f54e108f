/**
 * @module What both SQL engines share, apart from either: the `Sql` interface the stores are
 * written against, its options, and the base of a transaction's handle. sql.ts (SQLite, and
 * `openSql`) and postgres.ts both import it, so neither imports the other's module for a type.
 */
import type { ChangeTracker } from './change-tracker.js';

export type Dialect = 'sqlite' | 'postgres';
/**
 * A statement's values: by position for `?` placeholders, or by name for `:name` placeholders (one
 * value may fill several places, and no order has to be kept across fragments of SQL).
 */
export type Params = readonly unknown[] | NamedParams;
export type NamedParams = Readonly<Record<string, unknown>>;

export interface Sql {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<T = Record<string, unknown>>(text: string, params?: Params): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T = Record<string, unknown>>(text: string, params?: Params): Promise<T | undefined>;
  /** Runs a statement; resolves with the number of rows it inserted, changed or deleted. */
  run(text: string, params?: Params): Promise<number>;
  /** Runs statements that are not parameterized, one after another (schema changes). */
  exec(text: string): Promise<void>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it rejects. Inside,
   * use the `tx` it is given (on SQLite other callers wait until it ends; on PostgreSQL it is its own
   * connection). Called on a `tx`, it joins the transaction already open.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Tells whether the database may have changed since a moment (see ChangeTracker), for read caches
   * that must never serve stale data; null where another process's commit cannot be seen without
   * asking the database (PostgreSQL), so such caches are not kept there.
   */
  readonly changes: ChangeTracker | null;
  /**
   * After a deletion: gets the deleted text out of the database's files soon. SQLite zeroes freed
   * pages (`secure_delete`), and this checkpoints the write-ahead log and truncates it, where old
   * page images would otherwise stay readable. Absent where the database manages its own files.
   */
  scrubSoon?(): void;
  /** Closes the connection (SQLite) or the pool (PostgreSQL). */
  close(): Promise<void>;
}

/** Where the database is: a PostgreSQL URL, or the directory of the SQLite file (`:memory:` for a throw-away one). */
export type DatabaseLocation = { url: string } | { dataDir: string };

export interface OpenSqlOptions {
  /** The clock of `clock_ms()` on SQLite. @default Date.now */
  now?: () => number;
  /** Connections a PostgreSQL pool holds at most. @default 10 */
  poolSize?: number;
}

/**
 * What a transaction's handle shares on both engines: a nested `transaction` joins it, `close` is
 * refused, and once the transaction has ended every statement through it fails.
 */
export abstract class TransactionHandle<Connection> {
  readonly #connection: Connection;
  #open = true;

  constructor(connection: Connection) {
    this.#connection = connection;
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return work(this as unknown as Sql);
  }

  close(): Promise<void> {
    return Promise.reject(new Error('close the database, not a transaction'));
  }

  end(): void {
    this.#open = false;
  }

  /** The transaction's connection, while it is open. */
  protected live(): Connection {
    if (!this.#open) throw new Error('the transaction has ended; use the database handle');
    return this.#connection;
  }
}
