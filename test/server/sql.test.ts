/**
 * The one SQL interface on both databases: the same statements, transactions that commit or roll
 * back whole, SQLite callers that never see another caller's open transaction, the database clock,
 * and migrations that five processes can run at once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { migrate, forPostgres } from '../../src/server/store/migrate.js';
import { openSql, openSqlite, type Sql } from '../../src/server/store/sql.js';
import { numberNamedPlaceholders, numberPlaceholders } from '../../src/server/store/postgres.js';
import { migrations } from '../../src/server/schema.js';
import { freshDatabaseUrl, openTestSql, TEST_POSTGRES_URL } from '../helpers/database.js';

const opened: Sql[] = [];
afterAll(async () => {
  await Promise.all(opened.map((sql) => sql.close()));
});

async function scratch(): Promise<Sql> {
  const sql = await openTestSql({ migrations: [] });
  opened.push(sql);
  await sql.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  return sql;
}

describe(`Sql on ${TEST_POSTGRES_URL ? 'PostgreSQL' : 'SQLite'}`, () => {
  it('runs the same statements, counts changed rows, and reads RETURNING', async () => {
    const sql = await scratch();
    expect(await sql.run('INSERT INTO scratch (id, v) VALUES (?, ?), (?, ?)', [1, 'a', 2, 'b?'])).toBe(2);
    expect(await sql.all('SELECT id, v FROM scratch ORDER BY id')).toEqual([
      { id: 1, v: 'a' },
      { id: 2, v: 'b?' },
    ]);
    expect(await sql.get("SELECT v FROM scratch WHERE v = '?' OR id = ?", [2])).toEqual({ v: 'b?' });
    expect(await sql.run('UPDATE scratch SET v = ? WHERE id > ?', ['z', 5])).toBe(0);
    expect(await sql.all('DELETE FROM scratch WHERE id = ? RETURNING v', [1])).toEqual([{ v: 'a' }]);
    expect(await sql.get('SELECT COUNT(*) AS n FROM scratch')).toEqual({ n: 1 });
  });

  it('takes values by name: one value in several places, inside a transaction too, and a missing one refused', async () => {
    const sql = await scratch();
    expect(await sql.run('INSERT INTO scratch (id, v) VALUES (:id, :v), (:id + 1, :v)', { id: 1, v: 'a:b' })).toBe(2);
    expect(await sql.all("SELECT id, v FROM scratch WHERE v = :v AND v <> ':v' ORDER BY id", { v: 'a:b' })).toEqual([
      { id: 1, v: 'a:b' },
      { id: 2, v: 'a:b' },
    ]);
    await sql.transaction(async (tx) => {
      expect(await tx.run('UPDATE scratch SET v = :v WHERE id >= :low AND id <= :high', { high: 1, low: 1, v: 'one' })).toBe(1);
      expect(await tx.get('SELECT v FROM scratch WHERE id = :id', { id: 1 })).toEqual({ v: 'one' });
    });
    await expect(sql.get('SELECT v FROM scratch WHERE id = :id AND v = :v', { id: 1 })).rejects.toThrow(/missing named parameter/i);
  });

  it('commits a transaction whole, or rolls it back whole', async () => {
    const sql = await scratch();
    await sql.transaction(async (tx) => {
      await tx.run('INSERT INTO scratch (id, v) VALUES (?, ?)', [1, 'kept']);
    });
    await expect(
      sql.transaction(async (tx) => {
        await tx.run('INSERT INTO scratch (id, v) VALUES (?, ?)', [2, 'lost']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await sql.all('SELECT v FROM scratch')).toEqual([{ v: 'kept' }]);
  });

  it('keeps a transaction’s uncommitted rows from other callers until it commits', async () => {
    const sql = await scratch();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const writing = sql.transaction(async (tx) => {
      await tx.run('INSERT INTO scratch (id, v) VALUES (?, ?)', [1, 'pending']);
      await held;
    });
    // Let the transaction begin and insert before the reader asks.
    await new Promise((r) => setTimeout(r, 20));
    const read = sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM scratch');
    const early = await Promise.race([read.then((row) => row!.n), new Promise((r) => setTimeout(() => r('waiting'), 50))]);
    // PostgreSQL answers at once from the last commit; SQLite waits for the commit: neither sees the pending row.
    expect(early === 0 || early === 'waiting').toBe(true);
    release();
    await writing;
    expect((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM scratch'))!.n).toBe(1);
  });

  it('has the database clock as clock_ms()', async () => {
    const sql = await scratch();
    const before = Date.now();
    const { now } = (await sql.get<{ now: number }>('SELECT clock_ms() AS now'))!;
    expect(typeof now).toBe('number');
    expect(Math.abs(now - before)).toBeLessThan(5_000);
  });
});

describe('SQLite', () => {
  it('uses the clock it was given as clock_ms() (one machine, one clock)', async () => {
    const sql = openSqlite(':memory:', { now: () => 42 });
    opened.push(sql);
    expect(await sql.get('SELECT clock_ms() AS now')).toEqual({ now: 42 });
  });

  it('runs callers queued behind a transaction in order, after it', async () => {
    const sql = openSqlite(':memory:');
    opened.push(sql);
    await sql.exec('CREATE TABLE log (n INTEGER)');
    const order: string[] = [];
    const tx = sql.transaction(async (t) => {
      await t.run('INSERT INTO log VALUES (1)');
      await new Promise((r) => setTimeout(r, 30));
      order.push('tx');
    });
    const after = sql.run('INSERT INTO log VALUES (2)').then(() => order.push('after'));
    await Promise.all([tx, after]);
    expect(order).toEqual(['tx', 'after']);
    expect(await sql.all('SELECT n FROM log ORDER BY rowid')).toEqual([{ n: 1 }, { n: 2 }]);
  });
});

describe('migrations', () => {
  it('maps SQLite column types for PostgreSQL', () => {
    expect(forPostgres('id INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER NOT NULL, h BLOB, r REAL')).toBe(
      'id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n BIGINT NOT NULL, h BYTEA, r DOUBLE PRECISION',
    );
    expect(numberPlaceholders("SELECT ? , '?', \"a?\", ?")).toBe("SELECT $1 , '?', \"a?\", $2");
    expect(numberNamedPlaceholders("SELECT :b, ':a', \":a\", x::text, :a, :b_2, :b")).toEqual({
      text: "SELECT $1, ':a', \":a\", x::text, $2, $3, $1",
      names: ['b', 'a', 'b_2'],
    });
  });

  it('applies each migration once, however often it runs', async () => {
    const sql = await openTestSql();
    opened.push(sql);
    await migrate(sql, migrations);
    const rows = await sql.all<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations GROUP BY component, version');
    expect(rows).toHaveLength(migrations.length);
    expect(rows.every((row) => row.n === 1)).toBe(true);
  });

  it.runIf(TEST_POSTGRES_URL)('lets five processes migrate one empty PostgreSQL schema at once', async () => {
    const url = freshDatabaseUrl()!;
    const script = `
      const { openSql } = await import(${JSON.stringify(resolve(import.meta.dirname, '../../src/server/store/sql.ts'))});
      const { migrate } = await import(${JSON.stringify(resolve(import.meta.dirname, '../../src/server/store/migrate.ts'))});
      const { migrations } = await import(${JSON.stringify(resolve(import.meta.dirname, '../../src/server/schema.ts'))});
      const sql = await openSql({ url: process.env.URL });
      await migrate(sql, migrations);
      await sql.close();`;
    const codes = await Promise.all(
      Array.from({ length: 5 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, URL: url }, stdio: ['ignore', 'ignore', 'inherit'] });
        return new Promise<number | null>((done) => child.once('exit', done));
      }),
    );
    expect(codes).toEqual([0, 0, 0, 0, 0]);
    const sql = await openSql({ url });
    opened.push(sql);
    const rows = await sql.all<{ n: number }>('SELECT COUNT(*) AS n FROM schema_migrations GROUP BY component, version');
    expect(rows).toHaveLength(migrations.length);
    expect(rows.every((row) => row.n === 1)).toBe(true);
  }, 60_000);
});
