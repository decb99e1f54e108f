/**
 * Crash recovery of `support-chat-kit serve` exactly as a user runs it: the CLI with its defaults, a
 * knowledge base ingested with `kb ingest`, and an LLM configured through the environment (a
 * local chat-completions server that can hang, so the process is killed mid-answer).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, startServe } from '../helpers/cli.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { DEFAULT_JOB_LEASE_MS } from '../../src/server/conversations/lifecycle.js';

const kb = resolve(import.meta.dirname, '../fixtures/kb/docs');

let dataDir: string;
let llm: FakeLlm;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'support-chat-crash-'));
  llm = await fakeLlm();
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function cliEnv(): NodeJS.ProcessEnv {
  return { ...process.env, SUPPORT_CHAT_LLM_BASE_URL: llm.baseUrl, SUPPORT_CHAT_LLM_API_KEY: 'test-key', SUPPORT_CHAT_LLM_MODEL: 'test-model' };
}

/** `support-chat-kit serve --port 0` as shipped, with the LLM configured. */
async function serve(): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServe(dataDir, cliEnv());
  children.push(started.child);
  return started;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function setup(): string {
  const { token } = JSON.parse(runCli(['token', 'create', '--org', 'acme', '--name', 'crash', '--scopes', 'chat:read,chat:write', '--json'], dataDir, cliEnv())) as { token: string };
  runCli(['kb', 'ingest', kb, '--org', 'acme'], dataDir, cliEnv());
  return token;
}

async function ask(url: string, token: string, message: string): Promise<string> {
  const res = await fetch(`${url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { conversation_id: string }).conversation_id;
}

/** Long-polls until the conversation leaves `processing`; returns it and how long that took. */
async function settle(url: string, token: string, id: string): Promise<{ status: string; messages: { role: string; content: string }[]; ms: number }> {
  const started = Date.now();
  for (;;) {
    const res = await fetch(`${url}/v0/chat/${id}`, { headers: { authorization: `Bearer ${token}`, prefer: 'wait=5' } });
    const body = (await res.json()) as { status: string; messages: { role: string; content: string }[] };
    if (body.status !== 'processing' || Date.now() - started > 20_000) return { ...body, ms: Date.now() - started };
  }
}

function jobRow(): { state: string; attempts: number; lease_until: number | null; lease_owner: string | null } {
  const db = new Database(join(dataDir, 'support-chat.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT state, attempts, lease_until, lease_owner FROM jobs ORDER BY id DESC LIMIT 1').get() as ReturnType<typeof jobRow>;
  } finally {
    db.close();
  }
}

describe('support-chat-kit serve, killed mid-answer', () => {
  it('leases the job for the default lease, and the restarted server completes the answer at once', async () => {
    const token = setup();
    llm.script.push('hang');
    const first = await serve();
    const id = await ask(first.url, token, 'What is the rate limit per token?');
    await until(() => llm.requests.length === 1, 'the answer is being worked on');
    const leased = jobRow();
    expect(leased.state).toBe('running');
    expect(leased.lease_until).not.toBeNull();
    expect(leased.lease_until! - Date.now()).toBeGreaterThan(DEFAULT_JOB_LEASE_MS - 5_000);
    await kill(first.child);

    llm.script.push('Each token may send 120 requests per minute.');
    const second = await serve();
    const settled = await settle(second.url, token, id);
    expect(settled.status).toBe('completed');
    expect(settled.messages.at(-1)!.content).toContain('120 requests per minute');
    // The dead process's lease was given up at once, not waited out.
    expect(settled.ms).toBeLessThan(DEFAULT_JOB_LEASE_MS / 2);
    expect(jobRow()).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('fails the conversation after the default three attempts when every attempt dies, and a new message retries', async () => {
    const token = setup();
    let id = '';
    for (let attempt = 1; attempt <= 3; attempt++) {
      llm.script.push('hang');
      const { url, child } = await serve();
      if (attempt === 1) id = await ask(url, token, 'What is the rate limit per token?');
      await until(() => llm.requests.length === attempt, `attempt ${attempt} is being worked on`);
      expect(jobRow().attempts).toBe(attempt);
      await kill(child);
    }
    const last = await serve();
    const settled = await settle(last.url, token, id);
    expect(settled.status).toBe('failed');
    expect(settled.messages.map((m) => m.role)).toEqual(['user']);
    expect(llm.requests).toHaveLength(3);

    llm.script.push('Each token may send 120 requests per minute.');
    const again = await fetch(`${last.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Once more?', conversation_id: id }) });
    expect(again.status).toBe(202);
    expect((await settle(last.url, token, id)).status).toBe('completed');
    // Four `serve` processes start one after another: each loads the engine.
  }, 90_000);
});
