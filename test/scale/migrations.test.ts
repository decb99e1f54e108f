/**
 * Starting a scaled-out deployment on an empty database: several processes migrate it at once,
 * and a process that cannot share state with the others refuses to start. Runs when PostgreSQL
 * and Redis answer, and says so when it is skipped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrations } from '../../src/server/schema.js';
import { MIGRATION_LOCK_CLASS, MIGRATION_LOCK_KEY } from '../../src/server/store/migrate.js';
import { clusterEnv, dropSchema, freshScaleDatabaseUrl, missingServices, startCluster, startRole, type Cluster } from '../helpers/cluster.js';

const missing = await missingServices();
if (missing) console.warn(`scale tests skipped: ${missing}`);


const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

describe.runIf(!missing)('an empty database under a starting deployment', () => {
  it('is migrated once when five processes start on it at the same moment', async () => {
    const databaseUrl = freshScaleDatabaseUrl();
    cleanup.push(() => dropSchema(databaseUrl));
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    const db = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    await db.connect();
    try {
      // The five processes start at their own pace; holding their lock lines them up, so they
      // all reach the empty database at the same moment when it is let go.
      await db.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
      const starting = startCluster({ databaseUrl, apis: 3, workers: 2, together: true });
      starting.catch(() => undefined);
      const deadline = Date.now() + 90_000;
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          // A two-key advisory lock shows its first key as classid and its second (unsigned) as objid.
          `SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2
             AND classid::bigint = ${MIGRATION_LOCK_CLASS} AND objid::bigint = (hashtext(current_setting('search_path'))::bigint & 4294967295)`,
        );
        if (rows[0]!.n >= 5) break;
        if (Date.now() > deadline) throw new Error(`only ${rows[0]!.n} of 5 processes reached the database`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await db.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
      const cluster: Cluster = await starting;
      cleanup.push(() => cluster.close());
      expect([cluster.apis.length, cluster.workers.length]).toEqual([3, 2]);
      const { rows } = await db.query<{ component: string; version: number; n: number }>(
        'SELECT component, version::int AS version, COUNT(*)::int AS n FROM schema_migrations GROUP BY component, version ORDER BY component, version',
      );
      const expected = migrations.map((m) => ({ component: m.component, version: m.version, n: 1 }));
      expected.sort((a, b) => a.component.localeCompare(b.component) || a.version - b.version);
      expect(rows).toEqual(expected);
      // Every API process answers: the balancer sends one request to each.
      const statuses = await Promise.all(Array.from({ length: 3 }, () => fetch(`${cluster.balancer.url}/v0/openapi.json`).then((r) => r.status)));
      expect(statuses).toEqual([200, 200, 200]);
    } finally {
      await db.end();
    }
  });

  /** How `serve --role api` and `--role worker` end on `env`: the error they exit with, or that they started. */
  async function outcomes(env: NodeJS.ProcessEnv): Promise<string[]> {
    const ends: string[] = [];
    for (const role of ['api', 'worker'] as const) {
      ends.push(
        await startRole(role, env, 30_000).then(
          async (started) => {
            await started.stop('SIGKILL');
            return `serve --role ${role} started`;
          },
          (error: Error) => error.message,
        ),
      );
    }
    return ends;
  }

  it('refuses to start an API process or a worker on PostgreSQL without Redis, and says why', async () => {
    const databaseUrl = freshScaleDatabaseUrl();
    cleanup.push(() => dropSchema(databaseUrl));
    const env = clusterEnv(databaseUrl);
    delete env.SUPPORT_CHAT_REDIS_URL;
    for (const outcome of await outcomes(env)) {
      // The operator's to fix: status 2 and one line naming the variable, no stack trace.
      expect(outcome).toMatch(/exited with 2:[\s\S]*needs SUPPORT_CHAT_REDIS_URL/);
      expect(outcome).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses to start an API process or a worker when Redis does not answer, and says so', async () => {
    const databaseUrl = freshScaleDatabaseUrl();
    cleanup.push(() => dropSchema(databaseUrl));
    for (const outcome of await outcomes(clusterEnv(databaseUrl, { SUPPORT_CHAT_REDIS_URL: 'redis://127.0.0.1:1' }))) {
      expect(outcome).toMatch(/exited with 2:[\s\S]*Redis at redis:\/\/127\.0\.0\.1:1 did not answer within 5000 ms \(SUPPORT_CHAT_REDIS_URL\)/);
    }
  });
});
