/**
 * @module `support-chat-kit/server`: the Conversational Support API v0, on SQLite (one machine) or
 * PostgreSQL and Redis (API processes and answer workers on many machines).
 *
 * @example
 * const { url, close } = await startServer({ dataDir: './data', port: 8787 });
 * // Scaled out: SUPPORT_CHAT_DATABASE_URL=postgres://… SUPPORT_CHAT_REDIS_URL=redis://…
 * await startServer({ role: 'api', port: 8787 });
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createAnswerEngine } from './answers/index.js';
import type { AnswerEngine } from './answers/types.js';
import { createIntegrationResolver, effectiveSettings, IntegrationSettingsStore } from './escalation/index.js';
import { FollowUpForwarder } from './escalation/follow-ups.js';
import type { IntegrationResolver } from './helpdesks/types.js';
import { createApp } from './http/app.js';
import { jsonLogger, type Logger } from './log.js';
import { DEFAULT_RATE_LIMITS, MemoryRateLimiter, type RateLimiter, type RateLimits } from './http/rate-limit.js';
import { RedisRateLimiter } from './http/redis-rate-limit.js';
import { Router } from './http/router.js';
import { chatRoutes } from './http/routes/chat.js';
import { eventRoutes } from './http/routes/events.js';
import { MemoryTurnLog, RedisTurnLog, TurnStreams } from './streams/index.js';
import { escalateRoutes } from './http/routes/escalate.js';
import { helpdeskWebhookRoutesFor } from './http/routes/helpdesk-webhooks.js';
import { helpdesks } from './helpdesks/index.js';
import { meRoutes } from './http/routes/me.js';
import { openApiRoutes } from './http/routes/openapi.js';
import { ticketRoutes } from './http/routes/tickets.js';
import { feedbackRoutes } from './http/routes/feedback.js';
import { insightsRoutes } from './http/routes/insights.js';
import { searchRoutes } from './http/routes/search.js';
import { mcpBackend, mcpRoutes, parseOrigins, type McpBackend } from './mcp/index.js';
import { dashboardRoutes } from './dashboard/index.js';
import { FeedbackStore } from './insights/feedback.js';
import { RetentionSweep, type SweepReport } from './retention/index.js';
import type { Services } from './http/services.js';
import { ConversationLifecycle, DEFAULT_JOB_LEASE_MS, DEFAULT_MAX_ATTEMPTS } from './conversations/lifecycle.js';
import { JobQueue } from './conversations/jobs/queue.js';
import { Worker } from './conversations/jobs/worker.js';
import { BackgroundEmbedding } from './knowledge/store/background-embedding.js';
import { ConversationStore } from './store/conversations.js';
import { IdempotencyStore } from './store/idempotency.js';
import { migrate } from './store/migrate.js';
import { isPostgresUrl, openSql, redactUrl, type Sql } from './store/sql.js';
import { TokenService } from './store/tokens.js';
import { SqlTicketStore } from './tickets/store.js';
import { migrations } from './schema.js';
import { LocalBus, RedisBus, type Bus } from './bus/index.js';
import type { TicketStore } from './tickets/types.js';
import type { ConnectionInfo } from '../protocol/node-http.js';
import { CONVERSATION_MAX_TURNS } from '../protocol/limits.js';
import { fromNode, writeNode, type ApiRequest, type ApiResponse } from './http/exchange.js';
import { clientErrorListener } from './http/client-error.js';
import { ipv6PrefixLength, trustedHops } from '../protocol/client-address.js';

export { TokenService, TOKEN_PREFIX, type TokenRecord } from './store/tokens.js';
export { openApiDocument } from './http/routes/openapi.js';
export { verifyWebhookSignature } from './helpdesks/webhook/index.js';
export { jsonLogger, silentLogger, type Logger } from './log.js';
export type { AnswerEngine } from './answers/types.js';
export type { RateLimits } from './http/rate-limit.js';

/** What a process does: serve the API, answer questions (and forward follow-ups, sweep retention), or both. */
export type ServerRole = 'api' | 'worker' | 'all';
export const SERVER_ROLES: readonly ServerRole[] = ['api', 'worker', 'all'];

export interface ServerOptions {
  /** Directory of the SQLite database; `:memory:` for a throw-away one. Unused with a PostgreSQL `databaseUrl`. @default '.support-chat' */
  dataDir?: string;
  /** A PostgreSQL URL (`postgres://…`, optional `?schema=name`) puts every table there. @default env SUPPORT_CHAT_DATABASE_URL, else SQLite in `dataDir` */
  databaseUrl?: string;
  /** An open database to use instead (migrated here, closed by `close()`; the caller's to close if creating fails); the CLI opens it first to report a bad URL early. */
  sql?: Sql;
  /** `api` serves HTTP and holds no state of its own; `worker` answers questions; `all` both. @default 'all' */
  role?: ServerRole;
  /** Answers, summaries and titles. @default the local engine over the organization's knowledge base (LLM when configured) */
  engine?: AnswerEngine | ((sql: Sql) => AnswerEngine);
  /** Which helpdesk client handles an escalation. @default env-configured webhook, Plain, Pylon, Linear */
  integrations?: IntegrationResolver;
  /** Rate limits; any field left out keeps its default. @default DEFAULT_RATE_LIMITS */
  rateLimits?: Partial<Omit<RateLimits, 'endpoints'>> & { endpoints?: Partial<RateLimits['endpoints']> };
  /** @default a RedisRateLimiter when SUPPORT_CHAT_REDIS_URL is set (several processes share limits), else a MemoryRateLimiter */
  rateLimiter?: RateLimiter;
  /** Environment: database and Redis URLs, integrations, the engine. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default JSON lines on stdout */
  logger?: Logger;
  /** The clock of timestamps (and, on SQLite, of leases: on PostgreSQL leases use the database's clock). @default Date.now */
  now?: () => number;
  /** Lease of an answer job. @default 30000 */
  jobLeaseMs?: number;
  /** Attempts before a conversation is `failed`. @default 3 */
  maxAttempts?: number;
  /** Answers one worker works on at once (they mostly wait on the LLM). @default 4 */
  workerConcurrency?: number;
  /** Start the answer worker (and the follow-up forwarder, retention sweep and background embedding) at once, when the role answers. @default true */
  startWorker?: boolean;
  /** How often the background embedding looks for sections to embed that no 'kb' message announced. @default 60000 */
  embeddingPollMs?: number;
  /**
   * Behind trusted reverse proxies: `true` (one) or how many. Requests without a valid token are
   * then counted per the `X-Forwarded-For` entry the outermost trusted proxy appended (counted
   * from the right; entries left of it can be forged), not per the proxy's own address. Only set
   * it when every request comes through those proxies. @default env SUPPORT_CHAT_TRUST_PROXY, else false
   */
  trustProxy?: boolean | number;
  /**
   * Requests without a valid token from an IPv6 client are counted by its network of this many
   * bits (one subscriber commonly holds a whole /56). @default env SUPPORT_CHAT_IPV6_PREFIX, else 56
   */
  ipv6Prefix?: number;
  /** How long a helpdesk webhook's body may take to arrive (408 after). @default 10000 */
  webhookBodyTimeoutMs?: number;
  /** Days conversations are kept after their last activity, for organizations without their own period. @default 90 */
  retentionDays?: number;
  /** Streamed answers (`GET /v0/chat/{id}/events`); any field left out keeps its default. */
  streams?: StreamOptions;
  /**
   * Browser origins that may call `/v0/mcp` besides loopback ones (a request without `Origin`, from
   * an agent or an editor, always may). @default env SUPPORT_CHAT_MCP_ORIGINS (comma-separated), else none
   */
  mcpOrigins?: readonly string[];
}

export interface StreamOptions {
  /** A comment is sent after this long without an event. @default 15000 */
  keepaliveMs?: number;
  /** A waiting stream re-reads its turn's events and conversation this often (in case a hint was lost). @default 5000 */
  recheckMs?: number;
  /** Streams one organization may hold open in one API process; more are answered 429. @default 2000 */
  maxPerOrganization?: number;
  /** How long a turn's events are kept after its last one, for clients resuming. @default 600000 (10 minutes) */
  retentionMs?: number;
}

export interface SupportServer {
  /** The v0 API as a fetch handler. */
  fetch(request: Request, info?: ConnectionInfo): Promise<Response>;
  /** The same pipeline on plain objects; Node's http server uses it directly. */
  handle(request: ApiRequest): ApiResponse | Promise<ApiResponse>;
  /** Resolves when the server can count requests (its shared rate limiter is connected); rejects when it cannot. */
  ready(): Promise<void>;
  role: ServerRole;
  sql: Sql;
  tokens: TokenService;
  tickets: TicketStore;
  engine: AnswerEngine;
  /** Sends user turns, settles them, and counts the long polls waiting. */
  lifecycle: ConversationLifecycle;
  /** How this process tells the others (and itself) what changed. */
  bus: Bus;
  /** The turns' streamed events, and the streams open in this process. */
  streams: TurnStreams;
  worker: { start(): void; stop(): Promise<void>; runOnce(): Promise<boolean> };
  /** Embeds what `kb ingest` left to the server (code pieces), in the background; started with the worker; null when the engine has no knowledge base. */
  embedding: BackgroundEmbedding | null;
  /** Forwards visitor messages sent after escalation to the ticket (started with the worker). */
  followUps: { start(): void; stop(): Promise<void>; runOnce(): Promise<number> };
  /** Deletes expired conversations; started with the worker. */
  retention: { start(): void; stop(): Promise<void>; runOnce(): Promise<SweepReport> };
  /** Answers waiting long polls at once with the current state (the first step of shutting down). */
  drain(): void;
  /** What the MCP tools read (`/v0/mcp`, and `support-chat-kit mcp` over stdio). */
  mcp: McpBackend;
  /** Ends long polls, stops the worker and closes the database. */
  close(): Promise<void>;
}

/** Answers one worker works on at once. */
export const DEFAULT_WORKER_CONCURRENCY = 4;

/** Whether `value` can be a worker's concurrency: a whole number from 1 to 256. */
export function isWorkerConcurrency(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 256;
}

/** An escalation claim (and an `Idempotency-Key` reservation) older than this belonged to a process that died. */
const ESCALATION_CLAIM_STALE_MS = 120_000;

/** Thrown when the options or environment cannot make a working server; the CLI prints its message. */
export class ServerConfigError extends Error {
  override name = 'ServerConfigError';
}

/**
 * Opens the database (running its migrations), and builds the API pipeline and the worker.
 * Rejects with a ServerConfigError when the configuration cannot work (several processes on
 * PostgreSQL without Redis), or the database's own error when it cannot be reached.
 */
export async function createServer(options: ServerOptions = {}): Promise<SupportServer> {
  const now = options.now ?? Date.now;
  const env = options.env ?? process.env;
  const logger = options.logger ?? jsonLogger();
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
  const trustProxy = resolveTrustProxy(options.trustProxy, env.SUPPORT_CHAT_TRUST_PROXY);
  const mcpOrigins = resolveMcpOrigins(options.mcpOrigins, env.SUPPORT_CHAT_MCP_ORIGINS);
  const ipv6Prefix = resolveIpv6Prefix(options.ipv6Prefix, env.SUPPORT_CHAT_IPV6_PREFIX);
  const postgres = databaseUrl !== undefined || options.sql?.dialect === 'postgres';
  if (postgres && !redisUrl && role !== 'all') {
    throw new ServerConfigError(
      `--role ${role} on PostgreSQL needs SUPPORT_CHAT_REDIS_URL: API processes and workers share rate limits, long-poll wakeups and cache invalidation through Redis. Set it, or run a single process with --role all.`,
    );
  }
  // A database given by the caller stays the caller's to close when this fails.
  const sql = options.sql ?? (await openSql(databaseUrl ? { url: databaseUrl } : { dataDir: options.dataDir ?? '.support-chat' }, { now }));
  try {
    await migrate(sql, migrations);
  } catch (error) {
    if (!options.sql) await sql.close();
    throw error;
  }
  const reportRedis = (what: string) => (error: unknown) =>
    logger.warn({ msg: `${what} unavailable`, error: error instanceof Error ? error.message : String(error) });
  const bus: Bus = redisUrl ? new RedisBus({ url: redisUrl, onError: reportRedis('Redis bus') }) : new LocalBus();
  const engine = typeof options.engine === 'function' ? options.engine(sql) : (options.engine ?? createAnswerEngine({ sql, env }));
  const limits: RateLimits = {
    ...DEFAULT_RATE_LIMITS,
    ...definedOnly(options.rateLimits),
    endpoints: { ...DEFAULT_RATE_LIMITS.endpoints, ...definedOnly(options.rateLimits?.endpoints) },
  };
  const conversations = new ConversationStore(sql, now);
  // The lifecycle's policy is resolved here, once: an option left undefined keeps its default.
  const lifecycle = new ConversationLifecycle(
    conversations,
    new JobQueue(sql, now),
    { leaseMs: options.jobLeaseMs ?? DEFAULT_JOB_LEASE_MS, maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, maxTurns: CONVERSATION_MAX_TURNS },
    bus,
  );
  const closing = new AbortController();
  // A turn's events live where every process can read them: Redis when several share it, else this process's memory.
  const streamOptions = options.streams ?? {};
  const turnLog = redisUrl
    ? new RedisTurnLog({ url: redisUrl, retentionMs: streamOptions.retentionMs, onError: reportRedis('streamed answers (Redis)') })
    : new MemoryTurnLog({ retentionMs: streamOptions.retentionMs });
  const streams = new TurnStreams({
    log: turnLog,
    bus,
    logger,
    maxStreamsPerOrg: streamOptions.maxPerOrganization,
    keepaliveMs: streamOptions.keepaliveMs,
    recheckMs: streamOptions.recheckMs,
  });
  // A conversation deleted on request takes its streamed events with it, now.
  lifecycle.onDeleted((id) => streams.forget(id));
  const worker = new Worker({ lifecycle, conversations, engine, logger, streams, concurrency: options.workerConcurrency ?? DEFAULT_WORKER_CONCURRENCY });
  // Where answers are made, the vectors `kb ingest` left to the server (code pieces) are made in the background.
  const knowledge = engine.knowledge;
  const embedding = knowledge ? new BackgroundEmbedding({ knowledge, bus, logger, pollMs: options.embeddingPollMs }) : null;
  const tickets = new SqlTicketStore(sql, {
    forget: (orgId, source, externalId) => engine.forgetTicket(orgId, source, externalId),
    index: knowledge ? (orgId, ticket) => knowledge.indexTicket(orgId, ticket) : undefined,
  });
  const integrationSettings = new IntegrationSettingsStore(sql);
  const tokens = new TokenService(sql, now);
  // A token revoked by any process is dropped from every process's cache at once (within TOKEN_CACHE_MS without the bus).
  bus.subscribe('tokens', () => tokens.forget());
  const integrations = options.integrations ?? createIntegrationResolver({ env, sql, now });
  const followUps = new FollowUpForwarder({ sql, integrations, logger, now });
  // A message sent after escalation is queued for the ticket in the transaction that stores it.
  lifecycle.onSent(async (tx, orgId, id, continued) => {
    if (continued) await followUps.queue(orgId, id, tx);
  });
  // Once it is committed, in whichever process stored it.
  lifecycle.onQueued(() => followUps.wake());
  const services: Services = {
    tokens,
    conversations,
    lifecycle,
    idempotency: new IdempotencyStore(sql, ESCALATION_CLAIM_STALE_MS),
    tickets,
    engine,
    integrations,
    integrationSettings: async (orgId, name) => effectiveSettings(await integrationSettings.stored(orgId, name), env, name),
    logger,
    streams,
    closing: closing.signal,
    escalationClaimStaleMs: ESCALATION_CLAIM_STALE_MS,
    now,
  };
  const mcp = mcpBackend({ sql, knowledge: knowledge ?? null, lifecycle, conversations, logger });
  const retention = new RetentionSweep({ sql, conversations, logger, now, defaultDays: options.retentionDays });
  const router = new Router([
    ...chatRoutes,
    ...eventRoutes,
    ...escalateRoutes,
    ...ticketRoutes,
    ...meRoutes,
    ...openApiRoutes(),
    ...helpdeskWebhookRoutesFor(helpdesks, { bodyTimeoutMs: options.webhookBodyTimeoutMs }),
    ...feedbackRoutes({ feedback: new FeedbackStore(sql, now) }),
    ...insightsRoutes({ sql }),
    // Search and the MCP tools read the knowledge base in this process (every role): the index is built from the database, as the worker's is.
    ...searchRoutes({ knowledge: knowledge ?? null }),
    ...mcpRoutes({ backend: mcp, allowedOrigins: mcpOrigins }),
    ...dashboardRoutes(),
  ]);
  // Several processes behind one address share their limits through Redis; one process counts in memory.
  const limiter: RateLimiter =
    options.rateLimiter ?? (redisUrl ? new RedisRateLimiter({ url: redisUrl, now, onError: reportRedis('rate limiter (letting requests through)') }) : new MemoryRateLimiter(now));
  const app = createApp({ router, services, limiter, limits, changes: sql.changes ?? undefined, trustProxy, ipv6Prefix });
  if ((options.startWorker ?? true) && role !== 'api') {
    worker.start();
    embedding?.start();
    followUps.start();
    retention.start();
  }
  let closed = false;
  return {
    fetch: app.fetch,
    handle: app.handle,
    role,
    sql,
    tokens,
    tickets,
    engine,
    lifecycle,
    bus,
    streams,
    worker,
    embedding,
    followUps,
    retention,
    ready: async () => {
      await Promise.all([limiter.ready?.(), bus.ready(), turnLog.ready()]);
    },
    mcp,
    drain: () => closing.abort(),
    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      await worker.stop();
      await embedding?.stop();
      await followUps.stop();
      await retention.stop();
      await limiter.close?.();
      await streams.close();
      await bus.close();
      await sql.close();
    },
  };
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
function checkConnectionLimits(limits: ConnectionLimits): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new ServerConfigError(`connections.${name} must be a positive whole number, got ${String(value)}`);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ServerConfigError(`connections.headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed connections.requestTimeoutMs (${limits.requestTimeoutMs})`);
  }
}

/** The fields that are set: spread over defaults, a field given as `undefined` keeps its default. */
function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function send(res: Parameters<typeof writeNode>[0], response: ApiResponse): void {
  try {
    writeNode(res, response);
  } catch {
    // A response Node refuses to write (it cannot happen with this server's headers) ends the connection, never the process.
    res.destroy();
  }
}

/**
 * How long a connection may take and how many may be open. Node's defaults let a client that
 * sends nothing hold its socket forever; at the file-descriptor limit every new client is reset.
 */
export interface ConnectionLimits {
  /** The request's headers must arrive within this of its first byte (or of the connection, for a client that sends nothing). @default 10000 */
  headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this. @default 60000 */
  requestTimeoutMs: number;
  /** A kept-alive connection with no request is closed after this. @default 5000 */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic either way (a client that stopped reading) is closed after this; keep it above the longest long poll (20 s). @default 60000 */
  idleTimeoutMs: number;
  /** Connections open at once; further ones are closed at once. Keep it below the process's file-descriptor limit (`ulimit -n`). @default 4096 */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  maxConnections: 4_096,
};

/** How often Node looks for requests past their headers or request timeout. */
const CONNECTIONS_CHECK_MS = 1_000;

export interface StartServerOptions extends ServerOptions {
  /** @default 8787 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Timeouts and the connection cap of the HTTP server; any field left out keeps its default. @default DEFAULT_CONNECTION_LIMITS */
  connections?: Partial<ConnectionLimits>;
}

/**
 * Serves the API over HTTP (roles `api` and `all`); a `worker` answers questions and does not
 * listen (its `url` is empty and `http` null). `close()` stops accepting, finishes in-flight
 * requests, then closes the server.
 */
export async function startServer(options: StartServerOptions = {}): Promise<{ url: string; server: SupportServer; http: Server | null; close(): Promise<void> }> {
  const server = await createServer(options);
  try {
    await server.ready();
  } catch (error) {
    await server.close();
    throw error;
  }
  if (server.role === 'worker') return { url: '', server, http: null, close: () => server.close() };
  const connections: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...definedOnly(options.connections) };
  try {
    checkConnectionLimits(connections);
  } catch (error) {
    await server.close();
    throw error;
  }
  // Node requests go straight to the pipeline, without building WHATWG Request and Response objects.
  const http = createHttpServer({
    headersTimeout: connections.headersTimeoutMs,
    requestTimeout: connections.requestTimeoutMs,
    keepAliveTimeout: connections.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_MS, connections.headersTimeoutMs),
  }, (req, res) => {
    // Answered synchronously when nothing had to wait; the pipeline never rejects.
    const response = server.handle(fromNode(req, res));
    if (response instanceof Promise) response.then((r) => send(res, r), () => res.destroy());
    else send(res, response);
  });
  // Requests Node's parser refuses get the spec's error body and rate limit headers, not a bare 400/431.
  http.on('clientError', clientErrorListener((request) => server.handle(request)));
  // A socket quiet this long is destroyed (Node does so when no request or response listens for `timeout`).
  http.timeout = connections.idleTimeoutMs;
  http.maxConnections = connections.maxConnections;
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 8787, options.host ?? '127.0.0.1', resolve);
    });
  } catch (error) {
    // A port in use: nothing was served, so the worker and the database stop here too.
    await server.close();
    throw error;
  }
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    server,
    http,
    async close() {
      // Stop accepting, answer long polls now, let in-flight requests finish (10 s at most), then stop the worker.
      const closedHttp = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      server.drain();
      // Connections go idle as their last responses finish; close each as soon as it does.
      const sweep = setInterval(() => http.closeIdleConnections(), 50);
      const force = setTimeout(() => http.closeAllConnections(), 10_000);
      await closedHttp;
      clearInterval(sweep);
      clearTimeout(force);
      await server.close();
    },
  };
}
