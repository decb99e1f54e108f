/**
 * @module PostgreSQL through `pg`'s connection pool, behind the same Sql interface as SQLite.
 * Loaded only when the database URL is a PostgreSQL one.
 */
import pg from 'pg';
import { MIGRATION_LOCK_SQL } from './migrate.js';
import { TransactionHandle, type NamedParams, type OpenSqlOptions, type Params, type Sql } from './sql-interface.js';

/** BIGINT and COUNT(*) arrive as JavaScript numbers: every integer the server stores fits in 2^53. */
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** The statement with `?` placeholders numbered `$1`, `$2`…; `?` inside quoted text is left alone. */
export function numberPlaceholders(text: string): string {
  let n = 0;
  let out = '';
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/**
 * The statement with `:name` placeholders numbered `$1`, `$2`… (a name used twice gets one number),
 * and the names in the order of their numbers. `:` inside quoted text and PostgreSQL's `::` casts
 * are left alone.
 */
export function numberNamedPlaceholders(text: string): { text: string; names: string[] } {
  const names: string[] = [];
  let out = '';
  let quote: string | null = null;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
      i++;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
      i++;
    } else if (ch === ':' && text[i + 1] === ':') {
      out += '::';
      i += 2;
    } else if (ch === ':' && isNameStart(text[i + 1])) {
      let end = i + 2;
      while (end < text.length && isNamePart(text[end])) end++;
      const name = text.slice(i + 1, end);
      let n = names.indexOf(name);
      if (n < 0) n = names.push(name) - 1;
      out += `$${n + 1}`;
      i = end;
    } else {
      out += ch;
      i++;
    }
  }
  return { text: out, names };
}

const isNameStart = (ch: string | undefined) => ch !== undefined && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_');
const isNamePart = (ch: string | undefined) => isNameStart(ch) || (ch !== undefined && ch >= '0' && ch <= '9');

const numbered = new Map<string, string>();
const named = new Map<string, { text: string; names: string[] }>();

/** The statement and values as `pg` takes them: `$n` placeholders and an array. */
function toPg(text: string, params: Params): [string, unknown[]] {
  if (Array.isArray(params)) {
    let out = numbered.get(text);
    if (out === undefined) {
      out = numberPlaceholders(text);
      if (numbered.size >= 1_000) numbered.clear();
      numbered.set(text, out);
    }
    return [out, params as unknown[]];
  }
  let out = named.get(text);
  if (out === undefined) {
    out = numberNamedPlaceholders(text);
    if (named.size >= 1_000) named.clear();
    named.set(text, out);
  }
  const values = params as NamedParams;
  return [
    out.text,
    out.names.map((name) => {
      // Like better-sqlite3 on SQLite: a placeholder with no value is an error, never NULL.
      if (!Object.hasOwn(values, name)) throw new RangeError(`missing named parameter "${name}"`);
      return values[name];
    }),
  ];
}

/** The SQL function `clock_ms()`: the database server's clock in milliseconds (one clock for every machine). */
const CLOCK_FUNCTION = `CREATE OR REPLACE FUNCTION clock_ms() RETURNS BIGINT LANGUAGE sql VOLATILE AS
  $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT $$`;

export async function openPostgres(url: string, options: OpenSqlOptions = {}): Promise<Sql> {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new TypeError(`schema must be a lowercase SQL identifier, got "${schema}"`);
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max: options.poolSize ?? 10,
    types,
    // Every connection works in the chosen schema (public when none).
    options: schema ? `-c search_path=${schema}` : undefined,
  });
  // An idle connection the server dropped is replaced by the pool; the error must not end the process.
  pool.on('error', () => undefined);
  const sql = new PostgresSql(pool);
  try {
    // The schema and the clock function are made under the migrations' lock, when missing, so
    // processes starting together neither race to make them nor replace one another's in use.
    await sql.transaction(async (tx) => {
      await tx.run(MIGRATION_LOCK_SQL);
      if (schema) await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      if (!(await tx.get("SELECT 1 AS found FROM pg_proc WHERE proname = 'clock_ms' AND pronamespace = current_schema()::regnamespace"))) await tx.exec(CLOCK_FUNCTION);
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return sql;
}

class PostgresSql implements Sql {
  readonly dialect = 'postgres';
  readonly changes = null;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async all<T>(text: string, params: Params = []): Promise<T[]> {
    return (await this.#pool.query(...toPg(text, params))).rows as T[];
  }

  async get<T>(text: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: Params = []): Promise<number> {
    return (await this.#pool.query(...toPg(text, params))).rowCount ?? 0;
  }

  async exec(text: string): Promise<void> {
    await this.#pool.query(text);
  }

  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const tx = new PostgresTransaction(client);
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      tx.end();
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

/** One transaction's connection. */
class PostgresTransaction extends TransactionHandle<pg.PoolClient> implements Sql {
  readonly dialect = 'postgres';
  readonly changes = null;

  async all<T>(text: string, params: Params = []): Promise<T[]> {
    return (await this.live().query(...toPg(text, params))).rows as T[];
  }

  async get<T>(text: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: Params = []): Promise<number> {
    return (await this.live().query(...toPg(text, params))).rowCount ?? 0;
  }

  async exec(text: string): Promise<void> {
    await this.live().query(text);
  }
}
