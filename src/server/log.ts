/** @module Structured JSON logs, one line per event, for every part of the server. Callers never pass tokens, message text or emails. */

export type LogFields = Record<string, unknown> & { msg: string };

export interface Logger {
  info(fields: LogFields): void;
  warn(fields: LogFields): void;
  error(fields: LogFields): void;
}

/**
 * Writes JSON lines (`{"time":…,"level":…,…fields}`) to `write`; by default to stdout, a turn's
 * lines at a time (see `batchedWriter`). Every request logs a line, so the line is built as a
 * string around `JSON.stringify(fields)` rather than by copying the fields into a new object, and
 * the timestamp is formatted once per millisecond.
 */
export function jsonLogger(write: (line: string) => void = stdoutWriter()): Logger {
  let lastMs = Number.NaN;
  let lastTime = '';
  const emit = (prefix: string, fields: LogFields) => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = new Date(ms).toISOString();
    }
    // `fields` always has `msg`, so its JSON is `{"…` and the rest follows the prefix's comma.
    write(`{"time":"${lastTime}",${prefix}${JSON.stringify(fields).slice(1)}\n`);
  };
  return {
    info: (fields) => emit('"level":"info",', fields),
    warn: (fields) => emit('"level":"warn",', fields),
    error: (fields) => emit('"level":"error",', fields),
  };
}

/**
 * Collects lines and hands them to `sink` together once the current turn of the event loop ends
 * (or 64 KiB have piled up), so a burst of requests costs one write instead of one per request.
 * `flush()` writes at once; stdout's writer also flushes when the process exits.
 */
export function batchedWriter(sink: (chunk: string) => void): ((line: string) => void) & { flush(): void } {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending;
    pending = '';
    sink(chunk);
  };
  const write = (line: string) => {
    pending += line;
    if (pending.length >= 65_536) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return Object.assign(write, { flush });
}

/** One batched stdout writer per process, flushed on exit, however many servers share it. */
let stdout: ReturnType<typeof batchedWriter> | undefined;
function stdoutWriter(): (line: string) => void {
  if (!stdout) {
    const writer = batchedWriter((chunk) => process.stdout.write(chunk));
    process.once('exit', () => writer.flush());
    stdout = writer;
  }
  return stdout;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
