/**
 * @module The three outcomes on the product as shipped: `support-chat kb ingest` and `support-chat
 * serve` with its defaults (the local engine, sentence embeddings on, SQLite in a data directory),
 * over a five-page help center written for this test and over `npm start`'s own knowledge base.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startServe } from '../../helpers/cli.js';
import { DEMO_DOCS } from '../../helpers/demo-docs.js';

const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-outcomes-'));
let server: ChildProcess;
let url: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  runCli(['kb', 'ingest', 'test/fixtures/help-center-five', '--org', 'notely'], dataDir);
  runCli(['kb', 'ingest', 'README.md', 'src', '--org', 'demo', '--base-url', 'http://localhost:8080/source/'], dataDir);
  runCli(['kb', 'ingest', ...DEMO_DOCS, '--org', 'demo', '--base-url', 'http://localhost:8080/source/docs/'], dataDir);
  for (const org of ['notely', 'demo']) tokens[org] = JSON.parse(runCli(['token', 'create', '--org', org, '--name', 'site', '--scopes', 'chat:read,chat:write', '--json'], dataDir)).token;
  ({ url, child: server } = await startServe(dataDir));
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

type Reply = { content: string; sources: { title: string; url: string }[]; is_uncertain: boolean };

async function ask(org: string, message: string): Promise<Reply> {
  const headers = { authorization: `Bearer ${tokens[org]}`, 'content-type': 'application/json' };
  const sent = await (await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message }) })).json();
  for (;;) {
    const conversation = await (await fetch(`${url}/v0/chat/${sent.conversation_id}`, { headers: { ...headers, prefer: 'wait=20' } })).json();
    if (conversation.status !== 'processing') return conversation.messages.at(-1) as Reply;
  }
}

describe('a five-page help center, through support-chat serve', () => {
  it.each([
    ['do you guys take paypal?', 'https://help.notely.test/billing#payment-methods', /PayPal on annual plans/],
    ['what happens to all my stuff if i close my account', 'https://help.notely.test/account#what-happens-to-your-data', /kept for 30 days/],
    ['does it work on my android phone?', 'https://help.notely.test/sync#supported-devices', /Android/],
  ])('answers "%s" from the page that says it', async (question, source, phrase) => {
    const reply = await ask('notely', question);
    expect(reply.is_uncertain).toBe(false);
    expect(reply.sources[0]!.url).toBe(source);
    expect(reply.content).toMatch(phrase);
    expect(reply.content).not.toMatch(/^— /m);
  }, 60_000);

  it('shows the page that nearly answers as related when the words fit loosely, quoting its sentence as a passage that may help', async () => {
    const reply = await ask('notely', 'can my coworkers join my account?');
    expect(reply.is_uncertain).toBe(true);
    expect(reply.content).toMatch(/^I couldn't find a direct answer to that; these pages look related:/);
    expect(reply.content).toContain('> Open Settings, choose Members and press Invite. Each person you invite gets an email with a link to join your workspace');
    expect(reply.sources[0]!.url).toBe('https://help.notely.test/team#invite-teammates');
    expect(reply.sources.length).toBeLessThanOrEqual(5);
  }, 60_000);

  it.each(["what's the weather in Paris tomorrow?", 'write me a poem about the sea'])('cites nothing for "%s"', async (question) => {
    const reply = await ask('notely', question);
    expect(reply).toEqual({ role: 'assistant', content: expect.stringMatching(/talk to a human/), sources: [], is_uncertain: true });
  }, 60_000);
});

describe("npm start's own knowledge base, through support-chat serve", () => {
  it.each([
    ['How do I embed the widget on my site?', 'http://localhost:8080/source/README#embed-the-widget'],
    ['What are the rate limits?', 'http://localhost:8080/source/docs/server#rate-limits'],
    ['Which languages does it support?', 'http://localhost:8080/source/docs/widget#languages-and-your-own-wording'],
  ])('answers "%s"', async (question, source) => {
    const reply = await ask('demo', question);
    expect(reply.is_uncertain).toBe(false);
    expect(reply.sources[0]!.url).toBe(source);
  }, 60_000);

  it('keeps the demo\'s address as a link, and titles every source as a person names it', async () => {
    const reply = await ask('demo', 'How do I run the demo?');
    expect(reply.is_uncertain).toBe(false);
    expect(reply.content).toContain('serves the demo at <http://localhost:3000/>');
    for (const { title, url } of reply.sources) {
      expect(title).not.toMatch(/\(continued\)/);
      // A page's file name only for code, and then with what the piece is.
      if (!url.includes('/source/src/')) expect(title).not.toMatch(/\.(?:md|ts|js)\b/);
    }
  }, 60_000);

  it('cites nothing for "How much does it cost?" (the docs say "cost" only in passing, and mean something else)', async () => {
    const reply = await ask('demo', 'How much does it cost?');
    expect(reply.is_uncertain).toBe(true);
    expect(reply.sources).toEqual([]);
  }, 60_000);
});
