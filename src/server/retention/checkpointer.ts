/**
 * @module WAL checkpoints on a thread of their own while the sweep deletes: copying the write-ahead
 * log back into the database file (and syncing it) is the longest step of a write, and here it
 * does not hold up the event loop. Without a usable thread, SQLite checkpoints as usual. SQLite
 * only: PostgreSQL checkpoints by itself, on its own server.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SqliteSql, type Sql } from '../store/sql.js';

/** The thread's code: its own connection, a PASSIVE checkpoint (never blocks readers or writers) on each message. */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
parentPort.on('message', () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  parentPort.postMessage('done');
});
`;

export interface Checkpointer {
  /** Asks for a checkpoint; one at a time, extra requests while one runs are dropped. */
  request(): void;
  /** Stops the thread and lets the connection checkpoint by itself again. */
  close(): Promise<void>;
}

/** A checkpointing thread for a SQLite file database in WAL mode, or null (PostgreSQL, in memory, another journal mode, no thread). */
export function startCheckpointer(sql: Sql): Checkpointer | null {
  if (!(sql instanceof SqliteSql)) return null;
  const db = sql.db;
  if (db.memory || String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
  let worker: Worker;
  try {
    worker = new Worker(THREAD, { eval: true, workerData: { path: db.name, module: createRequire(import.meta.url).resolve('better-sqlite3') } });
  } catch {
    return null;
  }
  const previous = Number(db.pragma('wal_autocheckpoint', { simple: true }));
  db.pragma('wal_autocheckpoint = 0');
  let busy = false;
  let failed = false;
  worker.on('message', () => (busy = false));
  worker.on('error', () => {
    failed = true;
    db.pragma(`wal_autocheckpoint = ${previous}`);
  });
  worker.unref();
  return {
    request() {
      if (busy || failed) return;
      busy = true;
      worker.postMessage('checkpoint');
    },
    async close() {
      if (!failed && db.open) db.pragma(`wal_autocheckpoint = ${previous}`);
      await worker.terminate();
    },
  };
}

/** How often the server's checkpointing thread is asked to copy the write-ahead log back (see `checkpointInBackground`). */
export const BACKGROUND_CHECKPOINT_MS = 250;

/**
 * The server's checkpoints, on a thread of their own for as long as it runs: left to the
 * connection, SQLite checkpoints inside the commit that fills the log past 1,000 pages, copying and
 * syncing them on the event loop (under a stream of sends, one commit in twenty-five took 5 to
 * 110 ms). A PASSIVE checkpoint every `everyMs` keeps the log as short; null where
 * `startCheckpointer` is (the connection checkpoints as before).
 */
export function checkpointInBackground(sql: Sql, everyMs = BACKGROUND_CHECKPOINT_MS): { close(): Promise<void> } | null {
  const checkpointer = startCheckpointer(sql);
  if (!checkpointer) return null;
  const timer = setInterval(() => checkpointer.request(), everyMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await checkpointer.close();
    },
  };
}
