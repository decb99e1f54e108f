/** @module Opening the SQLite database (WAL mode) and running versioned migrations. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export type Db = Database.Database;

/**
 * One numbered schema change. Each part of the server (core API, knowledge base,
 * tickets, integrations) owns its own `component` and numbers its migrations
 * from 1, so parts evolve their tables independently.
 */
export interface Migration {
  component: string;
  version: number;
  description: string;
  up: string | ((db: Db) => void);
}

export interface OpenDatabaseOptions {
  /** Directory holding `support-chat.db`; `:memory:` for a throw-away database. */
  dataDir: string;
  migrations: readonly Migration[];
}

/** Opens (creating when absent) the database in `dataDir`, in WAL mode, and applies pending migrations in order. */
export function openDatabase({ dataDir, migrations }: OpenDatabaseOptions): Db {
  let db: Db;
  if (dataDir === ':memory:') {
    db = new Database(':memory:');
  } else {
    mkdirSync(dataDir, { recursive: true });
    db = new Database(join(dataDir, 'support-chat.db'));
    db.pragma('journal_mode = WAL');
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  changeTracker(db);
  migrate(db, migrations);
  return db;
}

/** Applies every migration not yet recorded in `schema_migrations`, each in its own transaction. */
export function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    component TEXT NOT NULL,
    version INTEGER NOT NULL,
    description TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (component, version)
  )`);
  const applied = new Set(
    db
      .prepare('SELECT component, version FROM schema_migrations')
      .all()
      .map((row) => {
        const r = row as { component: string; version: number };
        return `${r.component}:${r.version}`;
      }),
  );
  const pending = [...migrations]
    .filter((m) => !applied.has(`${m.component}:${m.version}`))
    .sort((a, b) => a.component.localeCompare(b.component) || a.version - b.version);
  const record = db.prepare(
    'INSERT INTO schema_migrations (component, version, description, applied_at) VALUES (?, ?, ?, ?)',
  );
  for (const m of pending) {
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      record.run(m.component, m.version, m.description, new Date().toISOString());
    })();
  }
}

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
  /** Whether `data_version` was already read during the current pin. */
  #readWhilePinned = false;
  readonly #dataVersion: Database.Statement;

  constructor(db: Db) {
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Called after every write through this connection. */
  touch(): void {
    this.#local++;
  }

  /** A stamp of the database's state: two equal stamps mean nothing was written in between. */
  stamp(): number {
    if (this.#pins === 0 || !this.#readWhilePinned) {
      const version = this.#dataVersion.get() as number;
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
