import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { ALL_SCOPES } from '../helpers/server.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-test-'));
  dirs.push(dir);
  return dir;
}

function tokenFor(dataDir: string): string {
  const server = createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
  const { token } = server.tokens.create({ orgId: 'acme', name: 'crash', scopes: ALL_SCOPES });
  void server.close();
  return token;
}

async function spawnServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../helpers/serve-process.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}

async function pollUntilSettled(url: string, token: string, id: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${url}/v0/chat/${id}`, { headers: { authorization: `Bearer ${token}`, prefer: 'wait=2' } });
    const body = (await res.json()) as { status: string };
    if (body.status !== 'processing' || Date.now() > deadline) return body.status;
  }
}

describe('durability', () => {
  it('keeps tokens, conversations and answers across a restart', async () => {
    const dataDir = tempDir();
    const first = createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    const { token } = first.tokens.create({ orgId: 'acme', name: 'keep', scopes: ALL_SCOPES });
    const sent = await first.fetch(new Request('http://x/v0/chat', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"message":"persist me"}' }));
    const { conversation_id } = (await sent.json()) as { conversation_id: string };
    await first.worker.runOnce();
    await first.close();
    const second = createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    const res = await second.fetch(new Request(`http://x/v0/chat/${conversation_id}`, { headers: { authorization: `Bearer ${token}` } }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; messages: unknown[] };
    expect(body.status).toBe('completed');
    expect(body.messages).toHaveLength(2);
    expect(second.db.pragma('journal_mode', { simple: true })).toBe('wal');
    await second.close();
  });

  it.each([
    ['completed', '3'],
    ['failed', '1'],
  ])('never leaves a conversation processing after SIGKILL mid-answer (ends %s with %s attempts)', async (expected, attempts) => {
    const dataDir = tempDir();
    const token = tokenFor(dataDir);
    const a = await spawnServer({ DATA_DIR: dataDir, SLOW: '1', MAX_ATTEMPTS: attempts });
    const sent = await fetch(`${a.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"message":"crash during this"}' });
    const { conversation_id } = (await sent.json()) as { conversation_id: string };
    // Wait until the job is leased, i.e. the answer is in progress.
    await new Promise((r) => setTimeout(r, 400));
    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    const b = await spawnServer({ DATA_DIR: dataDir, SLOW: '0', MAX_ATTEMPTS: attempts });
    expect(await pollUntilSettled(b.url, token, conversation_id)).toBe(expected);
  });

  it('lets exactly 120 of 1,000 concurrent requests on one token through', async () => {
    const { url, server, close } = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    const { token } = server.tokens.create({ orgId: 'acme', name: 'burst', scopes: ALL_SCOPES });
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
    const { token } = server.tokens.create({ orgId: 'acme', name: 'bye', scopes: ALL_SCOPES });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const sent = (await (await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: '{"message":"wait"}' })).json()) as { conversation_id: string };
    const longPoll = fetch(`${url}/v0/chat/${sent.conversation_id}`, { headers: { ...headers, prefer: 'wait=20' } });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const closing = close();
    const res = await longPoll;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('processing');
    await closing;
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
