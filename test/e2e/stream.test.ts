/**
 * @module End to end through the real server: `startServer` (SQLite, real HTTP) with a local
 * stand-in provider that writes its reply slowly (an answer engine telling the server each piece as
 * it is written, pausing where told), the real proxy, and the built widget in Chromium under the
 * strict CSP with Trusted Types: deltas on screen before the turn completes, resume without
 * duplicates, keepalives through the proxy during a stall, a visitor who leaves mid-answer, and
 * another visitor refused.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CSP } from '../../scripts/demo-server.mjs';
import { createSupportProxy, nodeListener } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/http/log.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { sleep } from '../../src/protocol/retry.js';
import { buildWidget } from '../helpers/build-widget.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { openEvents } from '../helpers/sse-reader.js';
import { launch } from './helpers/browser.js';
import { answers, ask, expectPrefixes, instrument, open as openPage, recorded, squash, violations } from './helpers/stream-page.js';

const PAGE = '<!doctype html><html lang="en"><title>Shop</title><body><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support" mode="inline"></support-chat></body></html>';
const PIECES = ['Open Settings', ' and choose Security.', ' Then press Reset', ' and follow the email.', '\n\nThe link works', ' for one hour.', ' Ask again after that', ' from the same page.'];
const FULL = PIECES.join('');
/** Keepalive interval of the server under test, ms (15 s in production). */
const KEEPALIVE_MS = 300;

/** How the stand-in provider writes: the time between pieces, and a stall before one of them. */
const provider = { gapMs: 150, stallBefore: -1, stallMs: 0 };

/** The stand-in provider: tells the server each piece of its reply as it is written, slowly. */
function slowProvider(): AnswerEngine {
  const base = createTestEngine();
  return {
    ...base,
    async answer(request) {
      request.stream?.status('writing');
      for (const [i, piece] of PIECES.entries()) {
        await sleep(provider.gapMs + (i === provider.stallBefore ? provider.stallMs : 0), request.signal);
        request.stream?.delta(piece);
      }
      return { content: FULL, sources: [{ title: 'Security', url: 'https://docs.example.com/security' }] };
    },
  };
}

let browser: Browser;
let api: Awaited<ReturnType<typeof startServer>>;
let token: string;
let site: Server;
let siteUrl: string;
let out: string;
let dropFirst = false;
let eventsRequests: string[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-stream-'));
  await buildWidget(out, ['iife']);
  api = await startServer({ dataDir: ':memory:', port: 0, engine: slowProvider(), logger: silentLogger, env: {}, streams: { keepaliveMs: KEEPALIVE_MS } });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  const proxy = nodeListener(
    createSupportProxy({
      apiBaseUrl: api.url,
      token,
      secret: 'a-visitor-signing-secret-of-32-chars!!',
      visitorLimits: { perAddress: 10_000, polls: 10_000, newVisitorsPerAddress: 1_000 },
    }),
  );
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const headers = { 'content-security-policy': DEMO_CSP };
    if (url.pathname === '/') return res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (url.pathname.endsWith('/events')) {
      eventsRequests.push(`${url.pathname}${url.search}`);
      if (dropFirst && eventsRequests.length === 1) setTimeout(() => res.destroy(), 700);
    }
    if (url.pathname.startsWith('/api/support/')) return proxy(req, res);
    const file = { '/dist/support-chat.iife.js': 'support-chat.iife.js', '/dist/markdown.js': 'markdown.js' }[url.pathname];
    if (file) return res.writeHead(200, { ...headers, 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(join(out, file)));
    res.writeHead(404, headers).end();
  });
  siteUrl = await new Promise<string>((resolve) => site.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(site.address() as { port: number }).port}`)));
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  site?.closeAllConnections();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  await api?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

let context: BrowserContext;
beforeEach(async () => {
  Object.assign(provider, { gapMs: 150, stallBefore: -1, stallMs: 0 });
  dropFirst = false;
  eventsRequests = [];
  context = await browser.newContext();
});
afterEach(async () => context.close());

const open = () => openPage(context, siteUrl);
const conversationId = () => eventsRequests[0]!.split('/')[4]!;
const serverStatus = async (id: string) => ((await (await fetch(`${api.url}/v0/chat/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string }).status;

describe('a streamed answer through the real server and proxy', () => {
  it('shows deltas while the turn is still processing, touches no earlier message, and ends with the exact answer', async () => {
    const { page, problems } = await open();
    await instrument(page);
    await ask(page, 'How do I reset my password?');
    await expect.poll(async () => (await recorded(page)).shown.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(await serverStatus(conversationId())).toBe('processing');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    const { shown, said, oldChanges } = await recorded(page);
    expectPrefixes(shown, FULL);
    expect(shown.length).toBeGreaterThanOrEqual(PIECES.length - 3);
    expect(squash((await answers(page))[0]!)).toBe(squash(FULL));
    expect(oldChanges).toBe(0);
    expect(said).toHaveLength(1);
    expect(violations(problems)).toEqual([]);
  });

  it('resumes after a dropped connection without a piece twice', async () => {
    dropFirst = true;
    const { page, problems } = await open();
    await instrument(page);
    await ask(page, 'How do I reset my password?');
    await expect.poll(() => answers(page), { timeout: 20_000 }).toHaveLength(1);
    expect(eventsRequests.length).toBeGreaterThanOrEqual(2);
    expect(eventsRequests[1]).toMatch(/\/events\?last_event_id=\d+-\d+$/);
    expectPrefixes((await recorded(page)).shown, FULL);
    expect(squash((await answers(page))[0]!)).toBe(squash(FULL));
    expect(violations(problems)).toEqual([]);
  });

  it('relays keepalives through the proxy while the provider stalls, and the widget keeps its one connection', async () => {
    Object.assign(provider, { stallBefore: 3, stallMs: 2_500 });
    const { page } = await open();
    await instrument(page);
    await ask(page, 'How do I reset my password?');
    await expect.poll(async () => (await recorded(page)).shown.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    // A second reader of the same conversation through the proxy, with the visitor's cookie: the comments it gets while nothing is written.
    const cookie = (await context.cookies(`${siteUrl}/api/support/chat`)).map((c) => `${c.name}=${c.value}`).join('; ');
    const reader = await openEvents(`${siteUrl}/api/support/chat/${conversationId()}/events`, { cookie });
    expect(reader.status).toBe(200);
    await reader.until((e) => e.event === 'completed', 20_000);
    const stalled = reader.comments.filter((c) => c.text.includes('keepalive'));
    expect(stalled.length).toBeGreaterThanOrEqual(3);
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    expect(eventsRequests.filter((r) => !r.includes('last_event_id'))).toHaveLength(2);
    expect(eventsRequests).toHaveLength(2);
    expect(squash((await answers(page))[0]!)).toBe(squash(FULL));
  });

  it('completes the answer of a visitor who left mid-answer, shown whole on return', async () => {
    provider.gapMs = 250;
    const first = await open();
    await instrument(first.page);
    await ask(first.page, 'How do I reset my password?');
    await expect.poll(async () => (await recorded(first.page)).shown.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await first.page.close();
    await expect.poll(() => serverStatus(conversationId()), { timeout: 15_000 }).toBe('completed');
    const again = await open();
    await expect.poll(() => answers(again.page), { timeout: 15_000 }).toHaveLength(1);
    expect(squash((await answers(again.page))[0]!)).toBe(squash(FULL));
  });

  it("refuses another visitor's stream with 404", async () => {
    const { page } = await open();
    await ask(page, 'How do I reset my password?');
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
