/**
 * @module The database a CLI command works on: PostgreSQL when `--database URL` (or
 * SUPPORT_CHAT_DATABASE_URL) names one, else the SQLite file in the data directory; opened and
 * migrated to the server's whole schema, as the server does.
 */
import { join } from 'node:path';
import { migrations } from '../server/schema.js';
import { migrate } from '../server/store/migrate.js';
import { isPostgresUrl, openSql, redactUrl, type DatabaseLocation, type Sql } from '../server/store/sql.js';
import { CliError, dataDir, PROGRAM } from './args.js';

/** The options every command takes to find its database. */
export interface DatabaseFlags {
  /** `--database URL`: a PostgreSQL URL. */
  database?: string;
  /** `--data DIR`: the SQLite data directory. */
  data?: string;
}

/**
 * `--database URL`, else `$SUPPORT_CHAT_DATABASE_URL`, else SQLite in `--data DIR` (see `dataDir`).
 * A URL that is not a PostgreSQL one is a CliError naming where it came from.
 *
 * @example
 * databaseLocation({ database: 'postgres://app@db.internal/support' }) // { url: 'postgres://app@db.internal/support' }
 * databaseLocation({ data: './data' }, {}) // { dataDir: '/srv/app/data' }
 */
export function databaseLocation(flags: DatabaseFlags, env: NodeJS.ProcessEnv = process.env): DatabaseLocation {
  const fromEnv = env.SUPPORT_CHAT_DATABASE_URL || undefined;
  const url = flags.database ?? fromEnv;
  if (url === undefined) return { dataDir: dataDir(flags.data) };
  const source = flags.database !== undefined ? '--database' : 'SUPPORT_CHAT_DATABASE_URL';
  if (!isPostgresUrl(url) || !URL.canParse(url)) throw new CliError(`${source} must be a PostgreSQL URL (postgres://user@host:5432/database), got "${redactUrl(url)}"`, { usage: false });
  return { url };
}

/** Where the database is, for people: the URL without its password, or the SQLite file. */
export function describeLocation(location: DatabaseLocation): string {
  return 'url' in location ? `PostgreSQL at ${redactUrl(location.url)}` : `SQLite at ${join(location.dataDir, 'support-chat.db')}`;
}

/**
 * Opens the command's database and applies the server's migrations; says on stderr which database
 * it is. A database that cannot be opened or reached is a one-line CliError.
 */
export async function openDatabase(flags: DatabaseFlags): Promise<Sql> {
  const location = databaseLocation(flags);
  const where = describeLocation(location);
  console.error(`${PROGRAM}: database: ${where}`);
  let sql: Sql;
  try {
    sql = await openSql(location);
  } catch (error) {
    throw new CliError(`cannot open the database (${where}): ${reason(error)}`, { usage: false });
  }
  try {
    await migrate(sql, migrations);
  } catch (error) {
    await sql.close();
    throw new CliError(`cannot migrate the database (${where}): ${reason(error)}`, { usage: false });
  }
  return sql;
}

/** One line about why opening failed; a refused connection to every address of a host has no message of its own. */
function reason(error: unknown): string {
  if (error instanceof AggregateError && !error.message) return error.errors.map(reason).join('; ');
  if (error instanceof Error) return (error.message || (error as NodeJS.ErrnoException).code) ?? error.name;
  return String(error);
}
