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
