/**
 * What one database writer made correct by accident, proven with three servers on one database
 * (one SQLite file, or one PostgreSQL schema when the run is on PostgreSQL): racing follow-ups,
 * idempotency keys and escalations from several processes each take effect exactly once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { ALL_SCOPES, webhookReceiver, type Receiver } from '../helpers/server.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { freshDatabaseUrl } from '../helpers/database.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const SECRET = 'webhook-secret-for-tests';

/** Three servers sharing one database, as three API processes would. */
async function threeServers(env: NodeJS.ProcessEnv = {}): Promise<SupportServer[]> {
  const databaseUrl = freshDatabaseUrl();
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-race-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const servers: SupportServer[] = [];
  for (let i = 0; i < 3; i++) {
    const server = await createServer({ dataDir, databaseUrl, engine: createTestEngine(), logger: silentLogger, startWorker: false, env: { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', ...env }, rateLimits: { perToken: 10_000, perOrganization: 10_000, endpoints: { send: 10_000, escalate: 10_000 } } });
    cleanups.push(() => server.close());
    servers.push(server);
  }
  return servers;
}

function post(server: SupportServer, path: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return server.fetch(
    new Request(`http://api.test${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    { remoteAddress: '203.0.113.7' },
  );
}

async function answered(servers: SupportServer[], token: string): Promise<string> {
  const sent = await post(servers[0]!, '/v0/chat', token, { message: 'How do I embed the widget?' });
  const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
  await servers[1]!.worker.runOnce();
  return id;
}

describe('three servers on one database', () => {
  it('queues one answer for 30 follow-ups racing on one conversation', async () => {
    const servers = await threeServers();
    const { token } = await servers[0]!.tokens.create({ orgId: 'acme', name: 'race', scopes: ALL_SCOPES });
    const id = await answered(servers, token);
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => post(servers[i % 3]!, '/v0/chat', token, { message: `follow-up ${i}`, conversation_id: id }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(29);
    expect(await servers[0]!.sql.get("SELECT COUNT(*) AS n FROM jobs WHERE state = 'queued'")).toEqual({ n: 1 });
    expect(await servers[0]!.sql.get("SELECT COUNT(*) AS n FROM messages WHERE role = 'user'")).toEqual({ n: 2 });
  });

  it('runs a request once for 30 copies racing with one Idempotency-Key', async () => {
    const servers = await threeServers();
    const { token } = await servers[0]!.tokens.create({ orgId: 'acme', name: 'race', scopes: ALL_SCOPES });
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => post(servers[i % 3]!, '/v0/chat', token, { message: 'once' }, { 'idempotency-key': 'same-key' })));
    const statuses = responses.map((r) => r.status);
    // Each copy either ran (once), replayed the stored outcome, or was told the key is still in progress.
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    expect(responses.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(await servers[0]!.sql.get('SELECT COUNT(*) AS n FROM conversations')).toEqual({ n: 1 });
  });

  it('makes exactly one ticket of 50 escalations of one conversation', async () => {
    const receiver: Receiver = await webhookReceiver();
    cleanups.push(() => receiver.close());
    receiver.delayMs = 50;
    const servers = await threeServers({ SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET });
    const { token } = await servers[0]!.tokens.create({ orgId: 'acme', name: 'race', scopes: ALL_SCOPES });
    const id = await answered(servers, token);
    const customer = { integration: 'webhook', name: 'Ada Lovelace', email: 'ada@example.com' };
    const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => post(servers[i % 3]!, `/v0/chat/${id}/escalate`, token, customer).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(receiver.deliveries).toHaveLength(1);
  });
});
