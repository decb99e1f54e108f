/**
 * @module Feedback, insights, deletion, the retention sweep and the dashboard on a server started
 * as a user starts it: `support-chat-kit serve` with its defaults (the local answer engine over an
 * ingested knowledge base, the worker and the sweep running, SQLite in a data directory).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { runCli, startServe } from '../../helpers/cli.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../../src/server/store/sql.js';

const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-insights-'));
let server: ChildProcess;
let url: string;
let chat: string;
let reader: string;

const run = (args: string[]) => runCli(args, dataDir);

beforeAll(async () => {
  run(['kb', 'ingest', 'test/fixtures/kb/docs', '--org', 'acme']);
  chat = JSON.parse(run(['token', 'create', '--org', 'acme', '--name', 'site', '--scopes', 'chat:read,chat:write', '--json'])).token;
  reader = JSON.parse(run(['token', 'create', '--org', 'acme', '--name', 'docs-team', '--scopes', 'insights:read', '--json'])).token;
  // A conversation last active 120 days ago: past the default retention of 90 days.
  // The data directory already holds the server's schema: `token create` made it.
  const { db } = openSqlite(dataDir);
  const old = new Date(Date.now() - 120 * 86_400_000).toISOString();
  db.prepare("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES ('conv_old', 'acme', 'completed', ?, ?)").run(old, old);
  db.prepare("INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES ('conv_old', 1, 'user', 'an old question', '[]', ?)").run(old);
  db.close();
  ({ url, child: server } = await startServe(dataDir));
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...(method === 'GET' && path.startsWith('/v0/chat/') ? { prefer: 'wait=20' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

async function askAndWait(message: string): Promise<string> {
  const sent = await call('POST', '/v0/chat', chat, { message });
  const id = sent.body.conversation_id as string;
  await expect.poll(async () => (await call('GET', `/v0/chat/${id}`, chat)).body.status, { timeout: 30_000 }).toBe('completed');
  return id;
}

const TOTALS = ['conversations', 'questions', 'answered', 'unanswered', 'thumbs_up', 'thumbs_down'] as const;
interface Report {
  totals: Record<(typeof TOTALS)[number], number>;
  thumbs_down: { conversation_id: string }[];
}

/** How much each total grew from one report to the next. */
const added = (before: Report, after: Report) => Object.fromEntries(TOTALS.map((key) => [key, after.totals[key] - before.totals[key]]));

describe('insights on a server with its defaults', () => {
  it('deletes conversations past 90 days at startup', async () => {
    await expect.poll(async () => (await call('GET', '/v0/chat/conv_old', chat)).status, { timeout: 20_000 }).toBe(404);
  });

  it('takes feedback, reports it with the unanswered questions, and deletes a conversation on request', async () => {
    // Counted from what the report holds now: the other tests' conversations, in whatever order they ran, are not this one's.
    const before = (await call('GET', '/v0/insights', reader)).body as Report;
    const answered = await askAndWait('How do I reset my password?');
    const unanswered = await askAndWait('Does it support quantum teleportation of folders?');
    expect((await call('POST', `/v0/chat/${answered}/feedback`, chat, { rating: 'up' })).body).toEqual({ success: true });
    expect((await call('POST', `/v0/chat/${unanswered}/feedback`, chat, { rating: 'down', comment: 'Nothing about teleportation' })).status).toBe(200);
    expect((await call('POST', `/v0/chat/${unanswered}/feedback`, chat, { rating: 'sideways' })).body.error.message).toBe('"rating" must be "up" or "down"');

    const report = await call('GET', '/v0/insights', reader);
    expect(report.status).toBe(200);
    expect(added(before, report.body)).toEqual({ conversations: 2, questions: 2, answered: 1, unanswered: 1, thumbs_up: 1, thumbs_down: 1 });
    expect(report.body.unanswered_groups).toContainEqual(expect.objectContaining({ examples: expect.arrayContaining([expect.objectContaining({ question: 'Does it support quantum teleportation of folders?' })]) }));
    expect(report.body.thumbs_down).toContainEqual(expect.objectContaining({ conversation_id: unanswered, comment: 'Nothing about teleportation', sources: [] }));
    expect(report.body.top_sources.map((s: { url: string }) => s.url)).toContainEqual(expect.stringMatching(/^https:\/\/docs\.example\.com\/start#password-reset/));
    expect((await call('GET', '/v0/insights', chat)).status).toBe(403);

    expect((await call('DELETE', `/v0/chat/${unanswered}`, chat)).status).toBe(204);
    expect((await call('GET', `/v0/chat/${unanswered}`, chat)).status).toBe(404);
    const after = (await call('GET', '/v0/insights', reader)).body as Report;
    expect(added(before, after)).toMatchObject({ questions: 1, unanswered: 0, thumbs_down: 0 });
    expect(after.thumbs_down).not.toContainEqual(expect.objectContaining({ conversation_id: unanswered }));
  });

  it('serves the dashboard under a strict Content Security Policy', async () => {
    const page = await fetch(`${url}/dashboard/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="./dashboard.js"></script>');
    const redirect = await fetch(`${url}/dashboard`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/dashboard/']);
  });
});
