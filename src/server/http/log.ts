/** @module Structured JSON logs, one line per event. Callers never pass tokens, message text or emails. */

export type LogFields = Record<string, unknown> & { msg: string };

export interface Logger {
  info(fields: LogFields): void;
  warn(fields: LogFields): void;
  error(fields: LogFields): void;
}

/** Writes JSON lines to a stream (stdout by default). */
export function jsonLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const emit = (level: string, fields: LogFields) => write(`${JSON.stringify({ time: new Date().toISOString(), level, ...fields })}\n`);
  return {
    info: (fields) => emit('info', fields),
    warn: (fields) => emit('warn', fields),
    error: (fields) => emit('error', fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
