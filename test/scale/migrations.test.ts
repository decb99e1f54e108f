/**
 * Starting a scaled-out deployment on an empty database: several processes migrate it at once,
 * and a process that cannot share state with the others refuses to start. Runs when PostgreSQL
 * and Redis answer, and says so when it is skipped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migrations } from '../../src/server/schema.js';
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
    const cluster: Cluster = await startCluster({ databaseUrl, apis: 3, workers: 2 });
    cleanup.push(() => cluster.close());
    expect([cluster.apis.length, cluster.workers.length]).toEqual([3, 2]);
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    const db = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    await db.connect();
    try {
      const { rows } = await db.query<{ component: string; version: number; n: number }>(
        'SELECT component, version::int AS version, COUNT(*)::int AS n FROM schema_migrations GROUP BY component, version ORDER BY component, version',
      );
      const expected = migrations.map((m) => ({ component: m.component, version: m.version, n: 1 }));
      expected.sort((a, b) => a.component.localeCompare(b.component) || a.version - b.version);
      expect(rows).toEqual(expected);
    } finally {
      await db.end();
    }
    // Every process answers: the API processes through the balancer, which spreads requests over all three.
    const statuses = await Promise.all(Array.from({ length: 3 }, () => fetch(`${cluster.balancer.url}/v0/openapi.json`).then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('refuses to start an API process or a worker on PostgreSQL without Redis, and says why', async () => {
    const databaseUrl = freshScaleDatabaseUrl();
    cleanup.push(() => dropSchema(databaseUrl));
    const env = clusterEnv(databaseUrl);
    delete env.SUPPORT_CHAT_REDIS_URL;
    for (const role of ['api', 'worker'] as const) {
      const started = startRole(role, env, 30_000);
      await expect(started).rejects.toThrow(/exited with 1[\s\S]*SUPPORT_CHAT_REDIS_URL/);
    }
  });
});
