/**
 * @module A scaled-out deployment on one machine, made of real `support-chat-kit serve` processes:
 * API processes (`--role api`) behind a round-robin balancer, answer workers (`--role worker`),
 * one fresh PostgreSQL schema and Redis. The LLM and the helpdesk are local stand-ins configured
 * through the environment, as an operator configures them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import { startBalancer, type Balancer } from './balancer.js';
import { freshPostgresUrl } from './database.js';
import { testPostgresUrl } from './postgres-url.js';
import { redisAvailable, TEST_REDIS_URL } from './redis.js';

const root = resolve(import.meta.dirname, '../..');
const cli = resolve(root, 'src/cli/index.ts');

/** The PostgreSQL server the scale tests use: SUPPORT_CHAT_TEST_DATABASE_URL, else the local one. */
export const SCALE_DATABASE_URL = testPostgresUrl;

/** Why the scale tests cannot run here (PostgreSQL or Redis does not answer), or null when they can. */
export async function missingServices(postgresUrl = SCALE_DATABASE_URL, redisUrl = TEST_REDIS_URL): Promise<string | null> {
  const missing: string[] = [];
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch {
    missing.push(`no PostgreSQL at ${postgresUrl}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  if (!(await redisAvailable(redisUrl))) missing.push(`no Redis at ${redisUrl}`);
  return missing.length ? missing.join(', ') : null;
}

/**
 * A URL of a new, empty schema on the scale tests' PostgreSQL server. Named `scale_…`, apart from
 * the `test_…` schemas the node-postgres project drops when it starts and ends.
 */
export function freshScaleDatabaseUrl(): string {
  return freshPostgresUrl(SCALE_DATABASE_URL, 'scale');
}

export type Role = 'api' | 'worker' | 'all';

export interface ServeProcess {
  role: Role;
  child: ChildProcess;
  /** The API's URL (API processes only). */
  url: string | undefined;
  /** What it printed, the last 64 KB of each stream. */
  output(): string;
  /** Resolves with its exit code once it has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every process started, killed when the test process exits so a failed test leaves none behind. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * What a process prints once it serves: an API process its URL (`… listening on http://…`); a
 * worker, which does not listen, its first line (`support-chat …`), printed once it is ready.
 */
const READY: Record<Role, RegExp> = {
  api: /listening on (http:\/\/\S+)/,
  all: /listening on (http:\/\/\S+)/,
  worker: /^support-chat\b.*$/m,
};

/** Starts `support-chat-kit serve --role ROLE` and resolves once it says it is ready. */
export async function startRole(role: Role, env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ServeProcess> {
  const args = ['--import', 'tsx', cli, 'serve', '--role', role, '--port', '0'];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  let err = '';
  // Both streams are read to the end, or a chatty process would block on a full pipe.
  child.stdout!.on('data', (chunk: Buffer) => (out = (out + chunk.toString()).slice(-65_536)));
  child.stderr!.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-65_536)));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code, signal) => resolveExit(code ?? (signal ? -1 : null))));
  const output = () => `${out}${err ? `\n[stderr]\n${err}` : ''}`;
  const url = await new Promise<string | undefined>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve --role ${role} not ready within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const look = () => {
      const match = READY[role].exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', look);
      resolveUrl(match[1]);
    };
    child.stdout!.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve --role ${role} exited with ${code}:\n${output()}`));
    });
  });
  return {
    role,
    child,
    url,
    output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a `support-chat` command (not `serve`) to completion with `env`; returns its stdout. */
export function runCommand(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', cwd: root, env });
  if (result.status !== 0) throw new Error(`support-chat ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

export interface ClusterOptions {
  /** API processes. @default 3 */
  apis?: number;
  /** Worker processes. @default 2 */
  workers?: number;
  /** The database. @default a fresh schema */
  databaseUrl?: string;
  /** More environment for every process (the LLM, integrations, the job lease). */
  env?: NodeJS.ProcessEnv;
  /** Start every process at the same moment, not one after another. @default false */
  together?: boolean;
}

export interface Cluster {
  databaseUrl: string;
  /** The environment every process runs with. */
  env: NodeJS.ProcessEnv;
  apis: ServeProcess[];
  workers: ServeProcess[];
  /** The balancer in front of the API processes. */
  balancer: Balancer;
  /** Starts one more worker. */
  addWorker(): Promise<ServeProcess>;
  /** Stops every process (SIGTERM), then the balancer. */
  close(): Promise<void>;
}

/** The environment of a process of a deployment on `databaseUrl`. */
export function clusterEnv(databaseUrl: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SUPPORT_CHAT_') && !name.startsWith('VITEST')));
  return { ...base, SUPPORT_CHAT_DATABASE_URL: databaseUrl, SUPPORT_CHAT_REDIS_URL: TEST_REDIS_URL, ...env };
}

/** Starts the API processes and the workers, then the balancer in front of the API processes. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const databaseUrl = options.databaseUrl ?? freshScaleDatabaseUrl();
  const env = clusterEnv(databaseUrl, options.env);
  const roles: Role[] = [...Array.from({ length: options.apis ?? 3 }, () => 'api' as const), ...Array.from({ length: options.workers ?? 2 }, () => 'worker' as const)];
  let started: PromiseSettledResult<ServeProcess>[];
  if (options.together) {
    started = await Promise.allSettled(roles.map((role) => startRole(role, env)));
  } else {
    // One after another: a loaded machine starts five processes at once slowly enough to miss
    // the 5 s a process gives Redis to answer.
    started = [];
    for (const role of roles) {
      const result = await startRole(role, env).then(
        (value) => ({ status: 'fulfilled', value }) as const,
        (reason: unknown) => ({ status: 'rejected', reason }) as const,
      );
      started.push(result);
      if (result.status === 'rejected') break;
    }
  }
  const processes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    throw (failed as PromiseRejectedResult).reason;
  }
  const apis = processes.filter((p) => p.role === 'api');
  const workers = processes.filter((p) => p.role === 'worker');
  const balancer = await startBalancer(apis.map((p) => p.url!));
  return {
    databaseUrl,
    env,
    apis,
    workers,
    balancer,
    async addWorker() {
      const worker = await startRole('worker', env);
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all([...apis, ...workers].map((p) => p.stop()));
      await balancer.close();
    },
  };
}

/** Drops the schema of a scale test's database URL. */
export async function dropSchema(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  if (!schema) return;
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
