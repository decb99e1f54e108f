/** The PostgreSQL server of the `node-postgres` tests: SUPPORT_CHAT_TEST_DATABASE_URL, else a local server at 127.0.0.1:5432 (trust auth). */
export const testPostgresUrl = process.env.SUPPORT_CHAT_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
