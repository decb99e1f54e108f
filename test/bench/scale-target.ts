/**
 * @module A server process the scale benchmark drives over IPC: `api` (HTTP), `worker` (answers)
 * or `all` (both, the single-process deployment), on the database of BENCH_DATABASE_URL (a
 * PostgreSQL URL, or empty for SQLite in BENCH_DATA_DIR) and Redis at BENCH_REDIS_URL when set.
 *
 * It counts what it costs: database statements and transactions (a counting decorator over the
 * Sql interface, given to the server as its database), Redis commands (node-redis's `node-redis:command` tracing channel), and its CPU
 * time. The answer engine is a stand-in whose answer takes `delayMs` (set over IPC).
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { createServer, startServer, type ServerRole } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { openSql, type Params, type Sql } from '../../src/server/store/sql.js';

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

/**
 * A counting decorator over the Sql interface: every statement run through it, or through the
 * handle of a transaction it opened, is counted, and every transaction once.
 */
class CountingSql implements Sql {
  readonly #inner: Sql;
  readonly #inTransaction: boolean;

  constructor(inner: Sql, inTransaction = false) {
    this.#inner = inner;
    this.#inTransaction = inTransaction;
  }

  get dialect() {
    return this.#inner.dialect;
  }

  get changes() {
    return this.#inner.changes;
  }

  all<T>(text: string, params?: Params): Promise<T[]> {
    counters.statements++;
    return this.#inner.all<T>(text, params);
  }

  get<T>(text: string, params?: Params): Promise<T | undefined> {
    counters.statements++;
    return this.#inner.get<T>(text, params);
  }

  run(text: string, params?: Params): Promise<number> {
    counters.statements++;
    return this.#inner.run(text, params);
  }

  exec(text: string): Promise<void> {
    counters.statements++;
    return this.#inner.exec(text);
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    // A transaction's own `transaction` joins the open one: counted once.
    if (!this.#inTransaction) counters.transactions++;
    return this.#inner.transaction((tx) => work(new CountingSql(tx, true)));
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

const role = (process.argv[2] ?? 'all') as ServerRole;
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const env = { SUPPORT_CHAT_REDIS_URL: process.env.BENCH_REDIS_URL ?? '' };
let delayMs = 0;
const UNLIMITED = { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } };
const options = {
  role,
  sql: new CountingSql(await openSql(databaseUrl ? { url: databaseUrl } : { dataDir: process.env.BENCH_DATA_DIR! })),
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
