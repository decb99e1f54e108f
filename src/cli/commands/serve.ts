/**
 * @module `support-chat-kit serve`: the v0 API over HTTP (and/or the background work) until
 * SIGINT/SIGTERM, then a graceful shutdown; with `--site DIR`, a static build of the docs site and
 * the proxy on one origin beside it.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isWorkerConcurrency, SERVER_ROLES, ServerConfigError, startServer, type ConnectionLimits, type ServerRole } from '../../server/index.js';
import { CliError, parse, PROGRAM } from '../args.js';
import { openDatabase } from '../database.js';
import { RATE_LIMIT_OPTIONS, rateLimitsFrom } from './serve-limits.js';
import type { KnowledgeBase } from '../../server/knowledge/index.js';
import { SiteSync } from '../../server/knowledge/index.js';
import type { Sql } from '../../server/store/sql.js';
import { createSupportProxy, nodeListener } from '../../proxy/index.js';
import { PROXY_PATH, siteBase, startSiteServer } from '../site-server.js';

/** `--kb-sync-every`: a duration such as `90s`, `30m`, `6h` or `1d`, from a minute to 30 days; else a CliError. */
export function parseDuration(value: string, flag: string): number {
  const units: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const match = /^(\d{1,6})(s|m|h|d)$/.exec(value.trim());
  const ms = match ? Number(match[1]) * units[match[2]!]! : NaN;
  if (!(ms >= 60_000 && ms <= 30 * 86_400_000)) throw new CliError(`--${flag} must be a duration from 1m to 30d such as 30m, 6h or 1d, got "${value}"`);
  return ms;
}

function startSiteSync(sql: Sql, knowledge: KnowledgeBase, everyMs: number): SiteSync {
  const sync = new SiteSync({ sql, everyMs, ingestSource: (orgId, source) => knowledge.sync(orgId, { only: source, kinds: ['url'] }), log: (line) => console.error(line) });
  sync.start();
  return sync;
}

/** `--role`: `api` (HTTP only), `worker` (answers, follow-ups, retention only) or `all` (the default); else a CliError listing them. */
export function parseRole(value: string | undefined): ServerRole {
  if (value === undefined) return 'all';
  const role = SERVER_ROLES.find((r) => r === value);
  if (!role) throw new CliError(`--role must be one of ${SERVER_ROLES.join(', ')}, got "${value}"`);
  return role;
}

/** The environment variable of each connection limit. */
export const CONNECTION_ENV: Record<keyof ConnectionLimits, string> = {
  headersTimeoutMs: 'SUPPORT_CHAT_HEADERS_TIMEOUT_MS',
  requestTimeoutMs: 'SUPPORT_CHAT_REQUEST_TIMEOUT_MS',
  keepAliveTimeoutMs: 'SUPPORT_CHAT_KEEP_ALIVE_TIMEOUT_MS',
  idleTimeoutMs: 'SUPPORT_CHAT_IDLE_TIMEOUT_MS',
  maxConnections: 'SUPPORT_CHAT_MAX_CONNECTIONS',
};

/** The connection limits set in `env` (the others keep their defaults); a CliError naming a variable that is not a positive whole number. */
export function connectionLimits(env: NodeJS.ProcessEnv): Partial<ConnectionLimits> {
  const limits: Partial<ConnectionLimits> = {};
  for (const [field, name] of Object.entries(CONNECTION_ENV) as [keyof ConnectionLimits, string][]) {
    const text = env[name];
    if (!text) continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new CliError(`${name} must be a positive whole number, got "${text}"`);
    limits[field] = value;
  }
  // A long poll waits up to 20 s without a byte on the wire.
  if (limits.idleTimeoutMs !== undefined && limits.idleTimeoutMs <= 20_000) {
    throw new CliError(`SUPPORT_CHAT_IDLE_TIMEOUT_MS must be above 20000 (the longest long poll), got "${env.SUPPORT_CHAT_IDLE_TIMEOUT_MS}"`);
  }
  return limits;
}

/** What `--site` needs: the build's folder, its base path, the site's port, and the proxy's token and secret from the environment (.env). */
function siteSettings(dir: string, baseText: string | undefined, portText: string | undefined, role: ServerRole): { root: string; base: string; port: number; token: string; secret: string } {
  if (role === 'worker') throw new CliError('--site needs the API in this process: not with --role worker');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`--site ${dir}: no such folder (build your site first, then name its output folder)`);
  const port = portText === undefined ? 3000 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--site-port must be a port number, got "${portText}"`);
  let base: string;
  try {
    base = siteBase(baseText);
  } catch {
    throw new CliError(`--site-base must be a path such as /proj/, got "${baseText}"`);
  }
  const token = process.env.SUPPORT_CHAT_TOKEN;
  const secret = process.env.SUPPORT_PROXY_SECRET;
  if (!token || !secret) throw new CliError(`--site needs SUPPORT_CHAT_TOKEN and SUPPORT_PROXY_SECRET (${PROGRAM} init writes them to .env)`, { usage: false });
  return { root: resolve(dir), base, port, token, secret };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      port: { type: 'string', env: 'SUPPORT_CHAT_API_PORT', fallback: '8787; 0 picks a free one', description: 'the port to listen on' },
      host: { type: 'string', description: 'the address to listen on (default: 127.0.0.1; 0.0.0.0 for every interface)' },
      role: { type: 'string', value: 'api|worker|all', description: 'HTTP only, background work only, or both (default: all)' },
      'retention-days': { type: 'string', value: 'DAYS', description: 'keep conversations this long after their last message (default: 90)' },
      'kb-sync-every': { type: 'string', value: 'DURATION', description: 'sync the docs sites of every organization this often (30m, 6h, 1d)' },
      site: { type: 'string', value: 'DIR', description: `also serve this static build of your docs site, with the proxy at ${PROXY_PATH} (token and secret from .env)` },
      'site-port': { type: 'string', value: 'PORT', env: 'PORT', fallback: '3000; 0 picks a free one', description: "the site's port, with --site" },
      'site-base': { type: 'string', value: 'PATH', description: "the path the site is published under, with --site: Docusaurus' baseUrl, Astro's or VitePress's base (default: /)" },
      ...RATE_LIMIT_OPTIONS,
    },
    false,
  );
  const kbSyncEveryMs = values['kb-sync-every'] === undefined ? undefined : parseDuration(values['kb-sync-every'], 'kb-sync-every');
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
    throw new CliError(`SUPPORT_CHAT_JOB_LEASE_MS must be a whole number of milliseconds ≥ 100, got "${leaseText}"`, { usage: false });
  }
  const concurrencyText = process.env.SUPPORT_CHAT_WORKER_CONCURRENCY;
  const workerConcurrency = concurrencyText ? Number(concurrencyText) : undefined;
  if (workerConcurrency !== undefined && !isWorkerConcurrency(workerConcurrency)) {
    throw new CliError(`SUPPORT_CHAT_WORKER_CONCURRENCY must be a whole number from 1 to 256, got "${concurrencyText}"`, { usage: false });
  }
  const redisUrl = process.env.SUPPORT_CHAT_REDIS_URL;
  if (redisUrl !== undefined && redisUrl !== '' && !/^rediss?:\/\/\S+$/.test(redisUrl)) {
    throw new CliError(`SUPPORT_CHAT_REDIS_URL must be a redis:// or rediss:// URL, got "${redisUrl}"`, { usage: false });
  }
  if (values.site === undefined && values['site-base'] !== undefined) throw new CliError('--site-base goes with --site DIR');
  const site = values.site === undefined ? undefined : siteSettings(values.site, values['site-base'], values['site-port'], role);
  const connections = connectionLimits(process.env);
  const rateLimits = rateLimitsFrom(values);
  const sql = await openDatabase(values);
  let started: Awaited<ReturnType<typeof startServer>>;
  try {
    started = await startServer({ sql, role, port, host: values.host ?? '127.0.0.1', jobLeaseMs: leaseMs, workerConcurrency, retentionDays, connections, rateLimits });
  } catch (error) {
    // Ours to close when the server could not be made (already closed, harmlessly, when it was made but could not start).
    await sql.close().catch(() => undefined);
    if (error instanceof ServerConfigError) throw new CliError(error.message, { usage: false });
    // A port in use or an unreachable Redis is the operator's to fix: say so without a stack trace.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`port ${port} is already in use; choose another with --port`, { usage: false });
    if (error instanceof Error && /^Redis at /.test(error.message)) throw new CliError(`${error.message} (SUPPORT_CHAT_REDIS_URL)`, { usage: false });
    throw error;
  }
  const { url, server } = started;
  // Docs sites synced in the background by the processes that do background work.
  const knowledge = server.engine.knowledge;
  const siteSync = kbSyncEveryMs !== undefined && role !== 'api' && knowledge ? startSiteSync(server.sql, knowledge, kbSyncEveryMs) : undefined;
  let close = async () => {
    await siteSync?.stop();
    await started.close();
  };
  console.log(role === 'worker' ? 'support-chat worker running (no HTTP)' : `support-chat API listening on ${url}${role === 'api' ? ' (no background work)' : ''}`);
  if (site) {
    const proxy = nodeListener(createSupportProxy({ apiBaseUrl: url, token: site.token, secret: site.secret, basePath: PROXY_PATH }));
    try {
      const served = await startSiteServer({ root: site.root, base: site.base, proxy, host: values.host ?? '127.0.0.1', port: site.port });
      const stopApi = close;
      close = async () => {
        await new Promise((done) => served.server.close(done));
        await stopApi();
      };
      console.log(`Your site (${site.root}) with the support widget's proxy at ${PROXY_PATH}: ${served.url}${site.base}`);
    } catch (error) {
      await close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(`port ${site.port} is already in use; choose another with --site-port`, { usage: false });
      throw error;
    }
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.error(`${PROGRAM}: ${signal} received, finishing in-flight requests`);
      close().then(resolve, resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}
