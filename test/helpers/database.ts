/**
 * @module The database a test runs on: SQLite in memory by default; PostgreSQL when
 * SUPPORT_CHAT_TEST_DATABASE_URL is set (the `node-postgres` test project sets it), each database
 * a fresh schema of its own.
 */
import { randomUUID } from 'node:crypto';
import { migrate, type Migration } from '../../src/server/store/migrate.js';
import { openSql, type Sql } from '../../src/server/store/sql.js';
import { migrations } from '../../src/server/schema.js';

export const TEST_POSTGRES_URL = process.env.SUPPORT_CHAT_TEST_DATABASE_URL;

/** A URL of a new, empty schema on the test PostgreSQL server, or undefined when tests run on SQLite. */
export function freshDatabaseUrl(): string | undefined {
  if (!TEST_POSTGRES_URL) return undefined;
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('schema', `test_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  return url.toString();
}

/** An empty database for one test, with `migrations` applied (every part's schema unless told). */
export async function openTestSql(options: { now?: () => number; migrations?: readonly Migration[] } = {}): Promise<Sql> {
  const url = freshDatabaseUrl();
  const sql = await openSql(url ? { url } : { dataDir: ':memory:' }, options);
  await migrate(sql, options.migrations ?? migrations);
  return sql;
}
