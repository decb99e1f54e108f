/**
 * @module The server's options checked and resolved before anything opens: a bad option is a
 * `ServerConfigError` naming it, and no database, connection or timer is left behind by it.
 */
import { ipv6PrefixLength, trustedHops } from '../protocol/client-address.js';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './http/rate-limit.js';
import { parseOrigins } from './mcp/index.js';
import { RetentionInputError, validRetentionDays } from './retention/settings.js';
import { isPostgresUrl, redactUrl } from './store/sql.js';
import type { Sql } from './store/sql.js';

/** What a process of the server does: `api` serves HTTP, `worker` answers questions, `all` both. */
export type ServerRole = 'api' | 'worker' | 'all';

/** The options of `createServer` (its `ServerOptions`) that are checked here. */
export interface ConfigOptions {
  sql?: Sql;
  databaseUrl?: string;
  role?: ServerRole;
  workerConcurrency?: number;
  trustProxy?: boolean | number;
  ipv6Prefix?: number;
  mcpOrigins?: readonly string[];
  rateLimits?: Partial<Omit<RateLimits, 'endpoints'>> & { endpoints?: Partial<RateLimits['endpoints']> };
  retentionDays?: number;
  jobLeaseMs?: number;
  maxAttempts?: number;
  embeddingPollMs?: number;
  webhookBodyTimeoutMs?: number;
  streams?: { keepaliveMs?: number; recheckMs?: number; maxPerOrganization?: number; retentionMs?: number };
}

/** Thrown when the options or environment cannot make a working server; the CLI prints its message. */
export class ServerConfigError extends Error {
  override name = 'ServerConfigError';
}

export const SERVER_ROLES: readonly ServerRole[] = ['api', 'worker', 'all'];

/** Whether `value` can be a worker's concurrency: a whole number from 1 to 256. */
export function isWorkerConcurrency(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 256;
}

/** What `createServer` builds from: every option checked, every default resolved once. */
export interface ServerConfig {
  role: ServerRole;
  /** PostgreSQL's URL; undefined for SQLite (or a database given open). */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  trustProxy: number;
  mcpOrigins: ReadonlySet<string>;
  ipv6Prefix: number;
  limits: RateLimits;
  retentionDays: number | undefined;
}

/**
 * Checks every option (and the environment's settings) and resolves them, before anything is
 * opened. Throws a ServerConfigError naming the first that cannot work.
 *
 * @example
 * const config = resolveServerConfig({ role: 'api' }, process.env);
 */
export function resolveServerConfig(options: ConfigOptions, env: NodeJS.ProcessEnv): ServerConfig {
  const role = options.role ?? 'all';
  if (!SERVER_ROLES.includes(role)) throw new ServerConfigError(`role must be one of ${SERVER_ROLES.join(', ')}, got "${String(role)}"`);
  if (options.workerConcurrency !== undefined && !isWorkerConcurrency(options.workerConcurrency)) {
    throw new ServerConfigError(`workerConcurrency must be a whole number from 1 to 256, got ${String(options.workerConcurrency)}`);
  }
  const databaseUrl = options.sql ? undefined : (options.databaseUrl ?? (env.SUPPORT_CHAT_DATABASE_URL || undefined));
  const redisUrl = env.SUPPORT_CHAT_REDIS_URL || undefined;
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) {
    throw new ServerConfigError(`SUPPORT_CHAT_DATABASE_URL must be a PostgreSQL URL (postgres://user@host:5432/db), got "${redactUrl(databaseUrl)}"; leave it unset for SQLite`);
  }
  const postgres = databaseUrl !== undefined || options.sql?.dialect === 'postgres';
  if (postgres && !redisUrl && role !== 'all') {
    throw new ServerConfigError(
      `--role ${role} on PostgreSQL needs SUPPORT_CHAT_REDIS_URL: API processes and workers share rate limits, long-poll wakeups and cache invalidation through Redis. Set it, or run a single process with --role all.`,
    );
  }
  for (const [name, value] of Object.entries({
    jobLeaseMs: options.jobLeaseMs,
    maxAttempts: options.maxAttempts,
    embeddingPollMs: options.embeddingPollMs,
    webhookBodyTimeoutMs: options.webhookBodyTimeoutMs,
    'streams.keepaliveMs': options.streams?.keepaliveMs,
    'streams.recheckMs': options.streams?.recheckMs,
    'streams.maxPerOrganization': options.streams?.maxPerOrganization,
    'streams.retentionMs': options.streams?.retentionMs,
  })) {
    if (value !== undefined) positiveWhole(name, value);
  }
  if (options.retentionDays !== undefined) {
    try {
      validRetentionDays(options.retentionDays);
    } catch (error) {
      if (error instanceof RetentionInputError) throw new ServerConfigError(`retentionDays: ${error.message}`);
      throw error;
    }
  }
  return {
    role,
    databaseUrl,
    redisUrl,
    trustProxy: resolveTrustProxy(options.trustProxy, env.SUPPORT_CHAT_TRUST_PROXY),
    mcpOrigins: resolveMcpOrigins(options.mcpOrigins, env.SUPPORT_CHAT_MCP_ORIGINS),
    ipv6Prefix: resolveIpv6Prefix(options.ipv6Prefix, env.SUPPORT_CHAT_IPV6_PREFIX),
    limits: resolveRateLimits(options.rateLimits),
    retentionDays: options.retentionDays,
  };
}

/** The rate limits: each one given, a positive whole number, over the defaults. */
export function resolveRateLimits(option: ConfigOptions['rateLimits']): RateLimits {
  const { endpoints, ...general } = option ?? {};
  const limits: RateLimits = {
    ...DEFAULT_RATE_LIMITS,
    ...definedOnly(general),
    endpoints: { ...DEFAULT_RATE_LIMITS.endpoints, ...definedOnly(endpoints) },
  };
  for (const [name, value] of Object.entries(limits)) if (typeof value === 'number') positiveWhole(`rateLimits.${name}`, value);
  for (const [name, value] of Object.entries(limits.endpoints)) positiveWhole(`rateLimits.endpoints.${name}`, value);
  return limits;
}

function positiveWhole(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new ServerConfigError(`${name} must be a positive whole number, got ${String(value)}`);
}

/** The browser origins `/v0/mcp` accepts, from the option, else from `SUPPORT_CHAT_MCP_ORIGINS`; a ServerConfigError naming a bad entry. */
function resolveMcpOrigins(option: readonly string[] | undefined, variable: string | undefined): ReadonlySet<string> {
  try {
    return parseOrigins(option ?? variable);
  } catch (error) {
    throw new ServerConfigError(`${option ? 'mcpOrigins' : 'SUPPORT_CHAT_MCP_ORIGINS'}: ${(error as Error).message}`);
  }
}

/** Trusted proxies from the option, else from `SUPPORT_CHAT_TRUST_PROXY` (`true`, `false` or a number); a ServerConfigError for anything else. */
function resolveTrustProxy(option: boolean | number | undefined, variable: string | undefined): number {
  if (option !== undefined) {
    try {
      return trustedHops(option, 'trustProxy');
    } catch (error) {
      throw new ServerConfigError((error as Error).message);
    }
  }
  const text = variable?.trim().toLowerCase() ?? '';
  if (text === '' || text === 'false') return 0;
  if (text === 'true') return 1;
  const hops = Number(text);
  if (!Number.isInteger(hops) || hops < 0) throw new ServerConfigError(`SUPPORT_CHAT_TRUST_PROXY must be true, false or a whole number of proxies, got "${variable}"`);
  return hops;
}

/** The IPv6 prefix length from the option, else from `SUPPORT_CHAT_IPV6_PREFIX`; a ServerConfigError for anything but a whole number from 16 to 128. */
function resolveIpv6Prefix(option: number | undefined, variable: string | undefined): number {
  const text = variable?.trim() ?? '';
  const value = option ?? (text === '' ? undefined : Number(text));
  try {
    return ipv6PrefixLength(value, option === undefined ? 'SUPPORT_CHAT_IPV6_PREFIX' : 'ipv6Prefix');
  } catch (error) {
    throw new ServerConfigError(`${(error as Error).message}, got "${option ?? variable}"`);
  }
}

/** A ServerConfigError unless every limit is a positive whole number and the headers' timeout fits in the request's. */
export function checkConnectionLimits(limits: { headersTimeoutMs: number; requestTimeoutMs: number }): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new ServerConfigError(`connections.${name} must be a positive whole number, got ${String(value)}`);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ServerConfigError(`connections.headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed connections.requestTimeoutMs (${limits.requestTimeoutMs})`);
  }
}

/** The fields that are set: spread over defaults, a field given as `undefined` keeps its default. */
export function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

