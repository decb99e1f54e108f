/**
 * @module End to end through the real server: `startServer` (SQLite, real HTTP) answering from a
 * knowledge base with the local OpenAI-compatible stand-in (test/helpers/fake-llm.ts) streaming its
 * reply slowly, the real proxy, and the built widget in Chromium under the strict CSP with Trusted
 * Types: deltas on screen before the turn completes, resume without duplicates, keepalives through
 * the proxy while the provider stalls, a visitor who leaves mid-answer, and another visitor refused.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { buildWidget } from '../helpers/build-widget.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { openEvents } from '../helpers/sse-reader.js';
import { launch } from './helpers/browser.js';
import { siteProxy, startWidgetSite, type WidgetSite } from './helpers/site.js';
import { answers, ask, expectPrefixes, instrument, open as openPage, recorded, squash, violations } from './helpers/stream-page.js';

const KB = resolve(import.meta.dirname, '../fixtures/kb/docs');
const QUESTION = 'What is the rate limit per token?';
const PAGE = '<!doctype html><html lang="en"><title>Shop</title><body><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support" mode="inline"></support-chat></body></html>';
/** The model's reply: two paragraphs of prose, written a few characters at a time. */
const REPLY = 'Each token may send 120 requests per minute. The limit applies per organization too, across all its tokens.\n\nWhen you go over it, wait for the time that Retry-After gives and send again.';
/** Keepalive interval of the server under test, ms (15 s in production). */
const KEEPALIVE_MS = 300;

let browser: Browser;
let llm: FakeLlm;
let api: Awaited<ReturnType<typeof startServer>>;
let token: string;
let site: WidgetSite | undefined;
let siteUrl: string;
let out: string;
let dropFirst = false;
let eventsRequests: string[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-stream-'));
  await buildWidget(out, ['iife']);
  llm = await fakeLlm();
  const config = { baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 10_000, retries: 2 };
  api = await startServer({
    dataDir: ':memory:',
    port: 0,
    engine: (sql) => createAnswerEngine({ sql, llm: config, embedder: null }),
    logger: silentLogger,
    env: {},
    streams: { keepaliveMs: KEEPALIVE_MS },
  });
  await (api.server.engine as AnswerEngine & KnowledgeBase).ingest('acme', [KB]);
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  const proxy = siteProxy(api.url, token);
  site = await startWidgetSite({
    out,
    page: PAGE,
    handle: (req, res, url) => {
      if (url.pathname.endsWith('/events')) {
        eventsRequests.push(`${url.pathname}${url.search}`);
        if (dropFirst && eventsRequests.length === 1) setTimeout(() => res.destroy(), 700);
      }
      if (!url.pathname.startsWith('/api/support/')) return false;
      proxy(req, res);
      return true;
    },
  });
  siteUrl = site.url;
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await api?.close();
  await llm?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

let context: BrowserContext;
beforeEach(async () => {
  // A model writing four characters every 40 ms: about two seconds for the reply.
  Object.assign(llm, { script: [REPLY, REPLY, REPLY], chunkChars: 4, chunkDelayMs: 40, delayMs: 0 });
  dropFirst = false;
  eventsRequests = [];
  context = await browser.newContext();
});
afterEach(async () => context.close());

const open = () => openPage(context, siteUrl);
const conversationId = () => eventsRequests[0]!.split('/')[4]!;
const serverConversation = async (id: string) =>
  (await (await fetch(`${api.url}/v0/chat/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string; messages: { content: string }[] };
const serverStatus = async (id: string) => (await serverConversation(id)).status;
/** The answer as the server stored it. */
const finalAnswer = async () => (await serverConversation(conversationId())).messages.at(-1)!.content;

describe('a streamed answer through the real server and proxy', () => {
  it('shows deltas while the turn is still processing, touches no earlier message, and ends with the exact answer', async () => {
    const { page, problems } = await open();
    Object.assign(llm, { script: ['Every token has its own limit of requests per minute.', REPLY, REPLY], chunkDelayMs: 0 });
    await ask(page, 'How many requests may each token send per minute?');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    llm.chunkDelayMs = 40;
    await instrument(page);
    await ask(page, QUESTION);
    await expect.poll(async () => (await recorded(page)).shown.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(await serverStatus(conversationId())).toBe('processing');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(2);
    const { shown, said, oldChanges } = await recorded(page);
    const full = await finalAnswer();
    expect(full).toContain('120 requests per minute');
    expectPrefixes(shown, full);
    expect(shown.length).toBeGreaterThanOrEqual(5);
    expect(squash((await answers(page))[1]!)).toBe(squash(full));
    expect(oldChanges).toEqual([]);
    // Never per delta (what it says when is test/e2e/stream-widget.test.ts's: here both replies may read alike, and a live region says a repeat once).
    expect(said.length, JSON.stringify(said)).toBeLessThanOrEqual(1);
    expect(violations(problems)).toEqual([]);
  });

  it('resumes after a dropped connection without a piece twice', async () => {
    dropFirst = true;
    const { page, problems } = await open();
    await instrument(page);
    await ask(page, QUESTION);
    await expect.poll(() => answers(page), { timeout: 20_000 }).toHaveLength(1);
    expect(eventsRequests.length).toBeGreaterThanOrEqual(2);
    expect(eventsRequests[1]).toMatch(/\/events\?last_event_id=\d+-\d+$/);
    const full = await finalAnswer();
    expectPrefixes((await recorded(page)).shown, full);
    expect(squash((await answers(page))[0]!)).toBe(squash(full));
    expect(violations(problems)).toEqual([]);
  });

  it('relays keepalives through the proxy while the provider stalls before its first token, and the widget keeps its one connection', async () => {
    llm.delayMs = 3_500;
    const { page } = await open();
    await instrument(page);
    await ask(page, QUESTION);
    await expect.poll(() => eventsRequests.length, { timeout: 10_000 }).toBe(1);
    // A second reader of the same conversation through the proxy, with the visitor's cookie: the comments it gets while nothing is written.
    const cookie = (await context.cookies(`${siteUrl}/api/support/chat`)).map((c) => `${c.name}=${c.value}`).join('; ');
    const reader = await openEvents(`${siteUrl}/api/support/chat/${conversationId()}/events`, { cookie });
    expect(reader.status).toBe(200);
    const firstDelta = await reader.until((e) => e.event === 'delta', 20_000);
    const duringStall = reader.comments.filter((c) => c.text.includes('keepalive') && c.at < firstDelta.at);
    expect(duringStall.length).toBeGreaterThanOrEqual(3);
    await reader.until((e) => e.event === 'completed', 20_000);
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    // The widget waited on its stream through the stall (no fallback to polling, no reconnection): one events request of its own.
    expect(eventsRequests).toHaveLength(2);
    expect(eventsRequests.every((r) => !r.includes('last_event_id'))).toBe(true);
    expect(squash((await answers(page))[0]!)).toBe(squash(await finalAnswer()));
  });

  it('completes the answer of a visitor who left mid-answer, shown whole on return', async () => {
    llm.chunkDelayMs = 80;
    const first = await open();
    await instrument(first.page);
    await ask(first.page, QUESTION);
    await expect.poll(async () => (await recorded(first.page)).shown.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await first.page.close();
    await expect.poll(() => serverStatus(conversationId()), { timeout: 15_000 }).toBe('completed');
    const again = await open();
    await expect.poll(() => answers(again.page), { timeout: 15_000 }).toHaveLength(1);
    expect(squash((await answers(again.page))[0]!)).toBe(squash(await finalAnswer()));
  });

  it("refuses another visitor's stream with 404", async () => {
    const { page } = await open();
    await ask(page, QUESTION);
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    const other = await browser.newContext();
    const stranger = await other.newPage();
    await stranger.goto(`${siteUrl}/`);
    const refused = await stranger.evaluate(async (path) => {
      const response = await fetch(path);
      return { status: response.status, body: await response.text() };
    }, `/api/support/chat/${conversationId()}/events`);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
    await other.close();
  });
});
