/**
 * Global setup of the `node-postgres` project: the server suite again, on PostgreSQL. Needs the
 * server at SUPPORT_CHAT_TEST_DATABASE_URL (`.ci/run` starts it); without one the project fails
 * with one line saying so. Each test's database is a schema of its own (`test_…`), all dropped at
 * the end, and those an interrupted run left behind at the start.
 */
import pg from 'pg';
import { testPostgresUrl as url } from './postgres-url.js';

async function dropTestSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'test\\_%'");
    for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  } finally {
    await client.end();
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  try {
    await dropTestSchemas();
  } catch (error) {
    throw new Error(`The node-postgres tests need PostgreSQL at ${url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@')}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return dropTestSchemas;
}
