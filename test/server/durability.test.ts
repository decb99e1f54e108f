import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { ALL_SCOPES } from '../helpers/server.js';
import { DEFAULT_JOB_LEASE_MS, DEFAULT_MAX_ATTEMPTS } from '../../src/server/conversations/lifecycle.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-test-'));
  dirs.push(dir);
  return dir;
}

describe('durability', () => {
  it('keeps every default when an option is given as undefined', async () => {
    const server = await createServer({ dataDir: ':memory:', engine: createTestEngine(), logger: silentLogger, startWorker: false, jobLeaseMs: undefined, maxAttempts: undefined, rateLimits: { perToken: undefined, endpoints: { send: undefined } } });
    expect(server.lifecycle.policy).toMatchObject({ leaseMs: DEFAULT_JOB_LEASE_MS, maxAttempts: DEFAULT_MAX_ATTEMPTS });
    const { token } = await server.tokens.create({ orgId: 'acme', name: 'defaults', scopes: ALL_SCOPES });
    const res = await server.fetch(new Request('http://x/v0/me', { headers: { authorization: `Bearer ${token}` } }));
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    await server.close();
  });

  it('keeps tokens, conversations and answers across a restart', async () => {
    const dataDir = tempDir();
    const first = await createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    const { token } = await first.tokens.create({ orgId: 'acme', name: 'keep', scopes: ALL_SCOPES });
    const sent = await first.fetch(new Request('http://x/v0/chat', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"message":"persist me"}' }));
    const { conversation_id } = (await sent.json()) as { conversation_id: string };
    await first.worker.runOnce();
    await first.close();
    const second = await createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    const res = await second.fetch(new Request(`http://x/v0/chat/${conversation_id}`, { headers: { authorization: `Bearer ${token}` } }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; messages: unknown[] };
    expect(body.status).toBe('completed');
    expect(body.messages).toHaveLength(2);
    expect(await second.sql.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    await second.close();
  });

  it('lets exactly 120 of 1,000 concurrent requests on one token through', async () => {
    // The clock stands still, so the burst cannot straddle two one-minute windows on a slow machine.
    const t0 = Date.now();
    const { url, server, close } = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false, now: () => t0 });
    const { token } = await server.tokens.create({ orgId: 'acme', name: 'burst', scopes: ALL_SCOPES });
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, () => fetch(`${url}/v0/me`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses.filter((s) => s === 429)).toHaveLength(880);
    await close();
  });

  it('shuts down gracefully: a waiting long poll is answered at once with the current state', async () => {
    const engine = createTestEngine();
    engine.hold = true;
    const { url, server, close } = await startServer({ dataDir: ':memory:', port: 0, engine, logger: silentLogger });
    const { token } = await server.tokens.create({ orgId: 'acme', name: 'bye', scopes: ALL_SCOPES });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const sent = (await (await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: '{"message":"wait"}' })).json()) as { conversation_id: string };
    const longPoll = fetch(`${url}/v0/chat/${sent.conversation_id}`, { headers: { ...headers, prefer: 'wait=20' } });
    while (server.lifecycle.waiting === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    const closing = close();
    const res = await longPoll;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('processing');
    await closing;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
