/** @module `support-chat serve`: the v0 API over HTTP until SIGINT/SIGTERM, then a graceful shutdown. */
import { startServer } from '../../server/index.js';
import { CliError, parse } from '../args.js';
import { openDatabase } from '../database.js';

/** What a process serves: the HTTP API, the background work (answers, follow-ups, retention), or both. */
export const ROLES = ['api', 'worker', 'all'] as const;
export type Role = (typeof ROLES)[number];

/** `--role`, else `all`; anything else is a CliError listing the roles. */
export function parseRole(value: string | undefined): Role {
  if (value === undefined) return 'all';
  if (!(ROLES as readonly string[]).includes(value)) throw new CliError(`--role must be one of ${ROLES.join(', ')}, got "${value}"`);
  return value as Role;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { port: { type: 'string' }, host: { type: 'string' }, 'retention-days': { type: 'string' }, role: { type: 'string' } }, false);
  const role = parseRole(values.role);
  const retentionDays = values['retention-days'] === undefined ? undefined : Number(values['retention-days']);
  if (retentionDays !== undefined && !(Number.isInteger(retentionDays) && retentionDays >= 1 && retentionDays <= 36_500)) {
    throw new CliError(`--retention-days must be a whole number of days from 1 to 36500, got "${values['retention-days']}"`);
  }
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got "${values.port}"`);
  const leaseText = process.env.SUPPORT_CHAT_JOB_LEASE_MS;
  const leaseMs = leaseText ? Number(leaseText) : undefined;
  if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100)) {
    throw new CliError(`SUPPORT_CHAT_JOB_LEASE_MS must be a whole number of milliseconds ≥ 100, got "${leaseText}"`);
  }
  const redisUrl = process.env.SUPPORT_CHAT_REDIS_URL;
  if (redisUrl !== undefined && redisUrl !== '' && !/^rediss?:\/\/\S+$/.test(redisUrl)) {
    throw new CliError(`SUPPORT_CHAT_REDIS_URL must be a redis:// or rediss:// URL, got "${redisUrl}"`);
  }
  const sql = await openDatabase(values);
  let started: Awaited<ReturnType<typeof startServer>>;
  try {
    started = await startServer({ sql, role, port, host: values.host ?? '127.0.0.1', jobLeaseMs: leaseMs, retentionDays });
  } catch (error) {
    // The server closes the database it was given when it fails to start; closing again is harmless.
    await sql.close().catch(() => undefined);
    // A port in use or an unreachable Redis is the operator's to fix: say so without a stack trace.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`port ${port} is already in use; choose another with --port`);
    if (error instanceof Error && /^Redis at /.test(error.message)) throw new CliError(`${error.message} (SUPPORT_CHAT_REDIS_URL)`);
    throw error;
  }
  const { url, close } = started;
  // A worker does not listen: it says it is ready instead.
  console.log(url ? `support-chat API listening on ${url}` : 'support-chat worker ready: answering questions, forwarding follow-ups, sweeping retention');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.error(`support-chat: ${signal} received, finishing in-flight requests`);
      close().then(resolve, resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}
