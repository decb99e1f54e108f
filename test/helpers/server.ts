/**
 * @module Building a server per test and calling it with Requests; every request and its response
 * are checked against the OpenAPI document the server serves (ajv, see openapi.ts).
 */
import { createServer, type ServerOptions, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createIntegrationResolver } from '../../src/server/escalation/index.js';
import type { Scope } from '../../src/protocol/index.js';
import { expectDocumented, servedValidator, type OpenApiValidator } from './openapi.js';
import { createTestEngine, type TestEngine } from './test-engine.js';
import { freshDatabaseUrl } from './database.js';
import { afterAll } from 'vitest';

export const ALL_SCOPES: Scope[] = ['chat:read', 'chat:write', 'chat:escalate', 'tickets:read', 'tickets:delete'];

export interface TestServer {
  server: SupportServer;
  engine: TestEngine;
  token(orgId?: string, scopes?: Scope[]): Promise<string>;
  call(
    method: string,
    path: string,
    init?: { token?: string; body?: unknown; headers?: Record<string, string>; address?: string },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are read loosely here and checked against the OpenAPI schema
  ): Promise<{ status: number; body: any; response: Response }>;
  /** Runs queued answer jobs now. */
  answer(): Promise<void>;
}

const open = new Set<SupportServer>();
// Every server a test file made is closed after it (PostgreSQL pools would otherwise keep the run alive).
afterAll(async () => {
  await Promise.all([...open].map((server) => server.close()));
  open.clear();
});

/** A server on a fresh database: SQLite in memory, or a new PostgreSQL schema when the run is on PostgreSQL (see database.ts). */
export async function testServer(options: ServerOptions = {}): Promise<TestServer> {
  const engine = createTestEngine();
  const databaseUrl = freshDatabaseUrl();
  // The local stand-ins for helpdesks and webhook receivers listen on 127.0.0.1.
  const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', ...options.env };
  const server = await createServer({
    dataDir: ':memory:',
    databaseUrl,
    engine,
    logger: silentLogger,
    startWorker: false,
    integrations: createIntegrationResolver({ env }),
    ...options,
    env,
  });
  open.add(server);
  let documented: Promise<OpenApiValidator> | undefined;
  return {
    server,
    engine,
    async token(orgId = 'acme', scopes = ALL_SCOPES) {
      return (await server.tokens.create({ orgId, name: 'test', scopes })).token;
    },
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.token) headers.authorization = `Bearer ${init.token}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const url = `http://api.test${path}`;
      const response = await server.fetch(new Request(url, { method, headers, body }), { remoteAddress: init.address ?? '203.0.113.7' });
      // The document as this server serves it, fetched once (from an address no test counts).
      const validator = await (documented ??= servedValidator(() => server.fetch(new Request('http://api.test/v0/openapi.json'), { remoteAddress: '192.0.2.250' })));
      const parsed = await expectDocumented(validator, { method, url, headers: new Headers(headers), body }, response);
      return { status: response.status, body: parsed, response };
    },
    async answer() {
      await server.worker.runOnce();
    },
  };
}

// The webhook receiver has its own module so that code outside a test file (a global setup) can use it.
export { webhookReceiver, type Receiver } from './webhook-receiver.js';
