/**
 * @module End to end: known visitors (issue 31) in Chromium, through the real proxy and the real
 * server over HTTP. A site signs visitors in with its own session cookie (the proxy's `identify`
 * reads it) or hands the widget visitor JWTs signed with jose (`identityToken`); each browser
 * context is a device of its own (no shared storage or cookies).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { SignJWT } from 'jose';
import { createSupportProxy } from '../../src/proxy/index.js';
import { toNodeListener } from '../../src/protocol/node-http.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { webhookReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { buildWidget } from '../helpers/build-widget.js';
import { launch, watchedPage, type WatchedPage } from './helpers/browser.js';

const JWT_SECRET = 'the-e2e-apps-visitor-token-secret-32+';
const USERS: Record<string, { id: string; name: string; email: string }> = {
  alice: { id: 'user-alice', name: 'Alice Liddell', email: 'alice@example.com' },
  bob: { id: 'user-bob', name: 'Bob', email: 'bob@example.com' },
  carol: { id: 'user-carol', name: 'Carol', email: 'carol@example.com' },
};

let browser: Browser;
let api: Awaited<ReturnType<typeof startServer>>;
let receiver: Receiver;
let site: Server;
let siteUrl: string;
let out: string;
/** How the site's `/token` answers: every token valid, the first one of each page expired, or every one expired. */
let tokens: 'valid' | 'first-expired' | 'expired' = 'valid';
let tokenCalls = 0;

const session = (cookie: string | undefined) => /(?:^|;\s*)app_session=(\w+)/.exec(cookie ?? '')?.[1];

function page(script = ''): string {
  return `<!doctype html><html lang="en"><head><title>Acme app</title></head><body><main><h1>Acme</h1>
<support-chat endpoint="/api/support" mode="inline"></support-chat></main>
${script ? `<script type="module">${script}</script>` : ''}<script type="module" src="/support-chat.js"></script></body></html>`;
}

/** Console problems other than the browser's note of a refused request (401, 404), which these tests cause on purpose. */
const unexpected = (problems: string[]) => problems.filter((p) => !p.includes('Failed to load resource'));

beforeAll(async () => {
  receiver = await webhookReceiver();
  const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec_e2e_identity' };
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, env });
  const token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  out = mkdtempSync(join(tmpdir(), 'support-chat-identity-'));
  await buildWidget(out, ['production']);
  const proxy = toNodeListener(
    createSupportProxy({
      apiBaseUrl: api.url,
      token,
      secret: 'the-e2e-proxy-visitor-cookie-secret!!',
      basePath: '/api/support',
      // The app's session: its own cookie, read by its own code.
      identify: (request) => USERS[session(request.headers.get('cookie') ?? undefined) ?? ''] ?? null,
      identity: { secret: JWT_SECRET },
    }),
  );
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    if (url.pathname.startsWith('/api/support/')) return proxy(req, res);
    const html = (body: string, headers: Record<string, string> = {}) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
    if (url.pathname === '/login') {
      // To a page without the widget: the tests then load the one they want.
      return res.writeHead(302, { location: '/signed-in', 'set-cookie': `app_session=${url.searchParams.get('user')}; Path=/; HttpOnly; SameSite=Lax` }).end();
    }
    if (url.pathname === '/logout') return res.writeHead(302, { location: '/', 'set-cookie': 'app_session=; Path=/; Max-Age=0' }).end();
    if (url.pathname === '/') return html(page());
    if (url.pathname === '/signed-in') return html('<!doctype html><html lang="en"><title>Signed in</title><p>Signed in.</p></html>');
    // An app apart from the proxy: its page gets visitor JWTs from the app's own endpoint.
    if (url.pathname === '/jwt.html') {
      // Set before the element is defined (this script comes first): its first request carries a token.
      return html(page(`const chat = document.querySelector('support-chat'); chat.identityToken = async () => (await fetch('/token')).text();`));
    }
    if (url.pathname === '/token') {
      const user = USERS[session(req.headers.cookie) ?? ''];
      if (!user) return res.writeHead(204).end();
      tokenCalls += 1;
      const expired = tokens === 'expired' || (tokens === 'first-expired' && tokenCalls === 1);
      const now = Math.floor(Date.now() / 1000);
      void new SignJWT({ email: user.email, name: user.name })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setJti(`token-${tokenCalls}`)
        .setExpirationTime(expired ? now - 120 : now + 600)
        .sign(new TextEncoder().encode(JWT_SECRET))
        .then((jwt) => res.writeHead(200, { 'content-type': 'text/plain' }).end(jwt));
      return;
    }
    const file = normalize(join(out, url.pathname));
    if (file.startsWith(out) && existsSync(file) && extname(file) === '.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const address = site.address();
  siteUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  if (site) await new Promise<void>((resolve) => site.close(() => resolve()));
  await api?.close();
  await receiver?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

const answers = (p: Page) => p.locator('[part~="message"][data-role="assistant"]');
const questions = (p: Page) => p.locator('[part~="message"][data-role="user"]');

/** A device: its own browser context; `user` signs in with the app's session first. */
async function device(user?: string, path = '/'): Promise<WatchedPage & { context: BrowserContext }> {
  const context = await browser.newContext();
  const watched = await watchedPage(context);
  if (user) await watched.page.goto(`${siteUrl}/login?user=${user}`);
  await open(watched.page, path);
  return { ...watched, context };
}

/** Loads `path` and waits until the proxy has said who the visitor is (and, for a known one, listed their conversations). */
async function open(p: Page, path = '/'): Promise<void> {
  const said = p.waitForResponse((r) => r.url().endsWith('/api/support/visitor') && r.status() !== 401);
  const listed = p.waitForResponse((r) => r.url().endsWith('/api/support/chat') && r.request().method() === 'GET').catch(() => undefined);
  await p.goto(`${siteUrl}${path}`);
  const visitor = (await (await said).json()) as { known: boolean };
  if (visitor.known) await listed;
  await p.locator('support-chat').evaluate((el) => (el as unknown as { updateComplete: Promise<boolean> }).updateComplete);
}

async function ask(p: Page, question: string, count = 1): Promise<void> {
  const input = p.locator('[part~="input"]');
  await input.fill(question);
  await input.press('Enter');
  await answers(p).nth(count - 1).waitFor({ timeout: 20_000 });
}

const stored = (p: Page) => p.evaluate(() => JSON.stringify({ ...localStorage }));

describe('a signed-in visitor on two devices (the site session, identify)', () => {
  it('asks on one device and continues on the other; another visitor and an anonymous one see nothing of it', async () => {
    const laptop = await device('alice');
    await ask(laptop.page, 'How do I export my invoices?');
    const conversationId = await laptop.page.evaluate(() => (JSON.parse(localStorage.getItem('support-chat:default:/api/support')!) as { conversationId: string }).conversationId);

    const phone = await device('alice');
    const listed = phone.page.locator('[part~="recent"] button');
    await listed.first().waitFor();
    expect(await listed.allTextContents()).toEqual(['How do I export my invoices?']);
    await listed.first().click();
    await answers(phone.page).first().waitFor();
    expect(await questions(phone.page).first().textContent()).toContain('How do I export my invoices?');
    await ask(phone.page, 'And as CSV?', 2);

    // Back on the laptop: the conversation has the phone's follow-up.
    await laptop.page.reload();
    await answers(laptop.page).nth(1).waitFor({ timeout: 20_000 });
    expect(await questions(laptop.page).allTextContents()).toEqual([expect.stringContaining('How do I export my invoices?'), expect.stringContaining('And as CSV?')]);

    for (const [who, other] of [['bob', await device('bob')], ['anonymous', await device()]] as const) {
      expect(await other.page.locator('[part~="recent"]').count(), who).toBe(0);
      expect(await questions(other.page).count(), who).toBe(0);
      const read = await other.page.evaluate(async (id) => (await fetch(`/api/support/chat/${id}`)).status, conversationId);
      expect(read, who).toBe(404);
      expect(unexpected(other.problems), who).toEqual([]);
      await other.context.close();
    }
    expect(unexpected([...laptop.problems, ...phone.problems])).toEqual([]);
    await laptop.context.close();
    await phone.context.close();
  });

  it('shows nothing of the last visitor on a shared browser after logout, or when another signs in', async () => {
    const shared = await device('carol');
    await ask(shared.page, 'Carol’s private question about her account');
    expect(await stored(shared.page)).toContain('Carol’s private question');

    const said = shared.page.waitForResponse((r) => r.url().endsWith('/api/support/visitor'));
    await shared.page.goto(`${siteUrl}/logout`);
    expect(await (await said).json()).toEqual({ known: false });
    await shared.page.locator('support-chat').evaluate((el) => (el as unknown as { updateComplete: Promise<boolean> }).updateComplete);
    expect(await questions(shared.page).count()).toBe(0);
    expect(await shared.page.locator('[part~="recent"]').count()).toBe(0);
    expect(await stored(shared.page)).not.toContain('Carol’s private question');

    // Carol again, then Bob, on the same browser.
    await shared.page.goto(`${siteUrl}/login?user=carol`);
    await open(shared.page);
    await ask(shared.page, 'Carol asks again');
    await shared.page.goto(`${siteUrl}/login?user=bob`);
    await open(shared.page);
    expect(await questions(shared.page).count()).toBe(0);
    expect(await shared.page.locator('[part~="recent"]').allTextContents()).not.toContain('Carol asks again');
    expect(await stored(shared.page)).not.toContain('Carol asks again');
    expect(unexpected(shared.problems)).toEqual([]);
    await shared.context.close();
  });

  it('escalates a known visitor without asking for name or email; the ticket says the site verified the email', async () => {
    const { page, problems, context } = await device('alice');
    await ask(page, 'My invoice is wrong');
    await page.locator('[part~="escalation"] button').click();
    const form = page.locator('[part~="escalation-form"]');
    await form.waitFor();
    expect(await form.locator('input').count()).toBe(0);
    expect(await form.textContent()).toContain('by email at alice@example.com');
    const before = receiver.deliveries.length;
    await form.locator('button[type="submit"]').click();
    await page.locator('[part~="ticket"]').waitFor({ timeout: 20_000 });
    const ticket = JSON.parse(receiver.deliveries[before]!.body) as { customer: unknown };
    expect(ticket.customer).toEqual({ name: 'Alice Liddell', email: 'alice@example.com', verified: true });
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});

describe('visitor JWTs from the app (identityToken)', () => {
  it('asks the app for a fresh token when the proxy refuses an expired one, and retries the request once', async () => {
    tokens = 'first-expired';
    tokenCalls = 0;
    const context = await browser.newContext();
    const { page } = await watchedPage(context);
    await page.goto(`${siteUrl}/login?user=bob`);
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/support/visitor')) statuses.push(r.status());
    });
    await open(page, '/jwt.html');
    expect(statuses).toEqual([401, 200]);
    expect(tokenCalls).toBe(2);
    await ask(page, 'Asked with a refreshed token');
    expect(tokenCalls).toBe(2);
    // The conversation is the token's visitor's: Bob's session on another device lists it.
    const other = await device('bob');
    expect(await other.page.locator('[part~="recent"] button').allTextContents()).toContain('Asked with a refreshed token');
    await other.context.close();
    await context.close();
  });

  it('shows the sign-in message when the fresh token is refused too, without asking again in a loop', async () => {
    tokens = 'expired';
    tokenCalls = 0;
    const context = await browser.newContext();
    const { page } = await watchedPage(context);
    await page.goto(`${siteUrl}/login?user=bob`);
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 401) refused.push(new URL(r.url()).pathname);
    });
    await page.goto(`${siteUrl}/jwt.html`);
    await page.locator('[part~="error"]').waitFor();
    expect(await page.locator('[part~="error"]').textContent()).toContain('Sign in to chat with support.');
    expect(refused).toEqual(['/api/support/visitor', '/api/support/visitor']);
    expect(tokenCalls).toBe(2);
    await context.close();
    tokens = 'valid';
  });
});
