/**
 * @module The database a test runs on: SQLite in memory by default; PostgreSQL when
 * SUPPORT_CHAT_TEST_DATABASE_URL is set (the `node-postgres` test project sets it), each database
 * a fresh schema of its own.
 */
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import { migrate, type Migration } from '../../src/server/store/migrate.js';
import { openSql, type Sql } from '../../src/server/store/sql.js';
import { migrations } from '../../src/server/schema.js';
import { testPostgresUrl } from './postgres-url.js';

export const TEST_POSTGRES_URL = process.env.SUPPORT_CHAT_TEST_DATABASE_URL;

/** A URL of a new, empty schema on the test PostgreSQL server, or undefined when tests run on SQLite. */
export function freshDatabaseUrl(): string | undefined {
  return TEST_POSTGRES_URL ? freshPostgresUrl(TEST_POSTGRES_URL) : undefined;
}

/**
 * A URL of a new, empty schema `<prefix>_…` on `server`. The node-postgres project's setup drops
 * the `test_…` ones; the scale suite drops its own `scale_…` ones.
 */
export function freshPostgresUrl(server: string = testPostgresUrl, prefix: 'test' | 'scale' = 'test'): string {
  const url = new URL(server);
  url.searchParams.set('schema', `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  return url.toString();
}

/** An empty database for one test, with `migrations` applied (every part's schema unless told). */
export async function openTestSql(options: { now?: () => number; migrations?: readonly Migration[] } = {}): Promise<Sql> {
  const url = freshDatabaseUrl();
  const sql = await openSql(url ? { url } : { dataDir: ':memory:' }, options);
  await migrate(sql, options.migrations ?? migrations);
  return sql;
}

/**
 * An opener of test databases (see openTestSql) that closes each after the test that opened it.
 * Call once per test file, at its top level.
 */
export function testDatabases(): (options?: Parameters<typeof openTestSql>[0]) => Promise<Sql> {
  const opened: Sql[] = [];
  afterEach(async () => {
    for (const sql of opened.splice(0)) await sql.close();
  });
  return async (options) => {
    const sql = await openTestSql(options);
    opened.push(sql);
    return sql;
  };
}
