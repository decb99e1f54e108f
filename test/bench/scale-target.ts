/**
 * @module A server process the scale benchmark drives over IPC: `api` (HTTP), `worker` (answers)
 * or `all` (both, the single-process deployment), on the database of BENCH_DATABASE_URL (a
 * PostgreSQL URL, or empty for SQLite in BENCH_DATA_DIR) and Redis at BENCH_REDIS_URL when set.
 *
 * It counts what it costs: database statements and transactions (a counting decorator over the
 * Sql interface), Redis commands (node-redis's `node-redis:command` tracing channel), and its CPU
 * time. The answer engine is a stand-in whose answer takes `delayMs` (set over IPC).
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { createServer, startServer, type ServerRole } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';
import type { Sql } from '../../src/server/store/sql.js';

export interface Counters {
  statements: number;
  transactions: number;
  redis: number;
  /** CPU time in µs (user + system). */
  cpu: number;
}

export type Command =
  | { type: 'stats' }
  | { type: 'token' }
  | { type: 'delay'; ms: number }
  | { type: 'worker'; run: boolean };

const counters: Counters = { statements: 0, transactions: 0, redis: 0, cpu: 0 };

tracingChannel('node-redis:command').subscribe({
  start: () => void counters.redis++,
  end: () => undefined,
  asyncStart: () => undefined,
  asyncEnd: () => undefined,
  error: () => undefined,
});

const decorated = new WeakSet<object>();

/**
 * Counts the statements run through `sql` and its transactions' handles, by decorating the
 * methods of their classes (the server opens its own database; this sees every statement it runs).
 * A method that calls another of the four (PostgreSQL's `get` runs `all`) counts once.
 */
async function countStatements(sql: Sql): Promise<void> {
  let inside = false;
  const decorate = (prototype: Record<string, unknown>, countTransactions: boolean) => {
    if (decorated.has(prototype)) return;
    decorated.add(prototype);
    for (const name of ['all', 'get', 'run', 'exec']) {
      const original = prototype[name] as (...args: unknown[]) => unknown;
      prototype[name] = function (this: unknown, ...args: unknown[]) {
        if (inside) return original.apply(this, args);
        counters.statements++;
        inside = true;
        try {
          return original.apply(this, args);
        } finally {
          inside = false;
        }
      };
    }
    // A transaction's own `transaction` joins the open one: counted once, on the database's handle.
    if (!countTransactions) return;
    const transaction = prototype.transaction as (...args: unknown[]) => unknown;
    prototype.transaction = function (this: unknown, ...args: unknown[]) {
      counters.transactions++;
      return transaction.apply(this, args);
    };
  };
  let txPrototype: Record<string, unknown> | undefined;
  await sql.transaction(async (tx) => {
    txPrototype = Object.getPrototypeOf(tx) as Record<string, unknown>;
  });
  decorate(Object.getPrototypeOf(sql) as Record<string, unknown>, true);
  if (txPrototype) decorate(txPrototype, false);
}

const role = (process.argv[2] ?? 'all') as ServerRole;
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const env = { SUPPORT_CHAT_REDIS_URL: process.env.BENCH_REDIS_URL ?? '' };
let delayMs = 0;
const UNLIMITED = { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } };
const options = {
  role,
  databaseUrl,
  dataDir: process.env.BENCH_DATA_DIR,
  env,
  logger: silentLogger,
  rateLimits: UNLIMITED,
  startWorker: false,
  engine: {
    answer: async () => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      return { content: 'An answer.', sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }] };
    },
    summarize: async () => 'Summary',
    title: async () => 'Title',
    forgetTicket: async () => undefined,
  },
};

const started = role === 'worker' ? { url: undefined, server: await createServer(options) } : await startServer({ ...options, port: 0 });
const { server } = started;
await server.ready();
await countStatements(server.sql);

process.on('message', ({ id, command }: { id: number; command: Command }) => {
  void (async () => {
    switch (command.type) {
      case 'stats': {
        const cpu = process.cpuUsage();
        return { ...counters, cpu: cpu.user + cpu.system };
      }
      case 'token':
        return (await server.tokens.create({ orgId: 'bench', name: 'bench', scopes: ['chat:read', 'chat:write'] })).token;
      case 'delay':
        delayMs = command.ms;
        return null;
      case 'worker':
        if (command.run) server.worker.start();
        else await server.worker.stop();
        return null;
    }
  })().then((reply) => process.send!({ id, reply }));
});
process.send!({ ready: started.url ?? null });
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
