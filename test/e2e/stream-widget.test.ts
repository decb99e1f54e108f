/**
 * @module End to end in Chromium: the built classic script under the demo's strict CSP with Trusted
 * Types, the real proxy (`createSupportProxy` behind Node's http server), and the v0 stand-in
 * (test/helpers/fake-upstream.ts) streaming an answer slowly per the contract. The reply shows as it
 * is written without touching earlier messages, is announced once, resumes after a dropped
 * connection or a tab back in view without duplicating text, survives the visitor leaving, and
 * gives way to polling when the stream is held back or missing.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWidget } from '../helpers/build-widget.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { launch } from './helpers/browser.js';
import { siteProxy, startWidgetSite, type WidgetSite } from './helpers/site.js';
import { answers, ask, expectPrefixes as prefixesOf, instrument, open as openPage, recorded, squash, violations } from './helpers/stream-page.js';

const PAGE = '<!doctype html><html lang="en"><title>Shop</title><body><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support" mode="inline"></support-chat></body></html>';
/** Plain prose (no Markdown marks), so the text on screen is the deltas joined, whitespace aside. */
const DELTAS = [
  'Open the account page',
  ' and choose Security.',
  ' Then pick Reset password',
  ' and follow the email.',
  '\n\nThe link in that email',
  ' works for one hour.',
  ' After that, ask again',
  ' from the same page.',
  '\n\nIf no email comes,',
  ' look in the spam folder',
  ' or ask us here.',
];
const FULL = DELTAS.join('');

let browser: Browser;
let up: FakeUpstream;
let site: WidgetSite | undefined;
let siteUrl: string;
let out: string;
/** How the site treats the events route: relays it, drops the first connection, buffers it whole, or has none. */
let mode: 'relay' | 'drop-first' | 'buffer' | 'missing' = 'relay';
let eventsRequests: string[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-stream-'));
  await buildWidget(out, ['iife']);
  up = await fakeUpstream();
  const proxy = siteProxy(up.url, up.token);
  site = await startWidgetSite({
    out,
    page: PAGE,
    handle: (req, res, url) => {
      if (url.pathname.endsWith('/events')) {
        eventsRequests.push(`${url.pathname}${url.search}`);
        if (mode === 'missing') {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"Resource not found"}}');
          return true;
        }
        if (mode === 'drop-first' && eventsRequests.length === 1) setTimeout(() => res.destroy(), 900);
        if (mode === 'buffer') {
          // A reverse proxy that buffers: nothing reaches the browser until the upstream has finished.
          const write = res.write.bind(res);
          const chunks: Buffer[] = [];
          res.write = ((chunk: Buffer) => (chunks.push(Buffer.from(chunk)), true)) as typeof res.write;
          const end = res.end.bind(res);
          res.end = (() => (chunks.forEach((c) => write(c)), end())) as typeof res.end;
        }
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
  await up?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

let context: BrowserContext;
beforeEach(async () => {
  mode = 'relay';
  eventsRequests = [];
  up.streamDeltas = DELTAS;
  up.streamIntervalMs = 120;
  context = await browser.newContext();
});
afterEach(async () => context.close());

const open = () => openPage(context, siteUrl);
const expectPrefixes = (shown: string[]) => prefixesOf(shown, FULL);

describe('a streamed answer in the widget, through the real proxy', () => {
  it('shows the reply as it is written, never re-rendering earlier messages, and announces it once', async () => {
    const { page, problems } = await open();
    up.streamIntervalMs = 0;
    up.streamDeltas = ['A first, short answer.'];
    await ask(page, 'First question');
    await expect.poll(() => answers(page), { timeout: 10_000 }).toHaveLength(1);
    up.streamIntervalMs = 150;
    up.streamDeltas = DELTAS;
    await instrument(page);
    await ask(page, 'How do I reset my password?');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(2);
    const { shown, said, renders, oldChanges } = await recorded(page);
    // Deltas before completion, each on screen as it came.
    expect(shown.length).toBeGreaterThanOrEqual(DELTAS.length - 2);
    expectPrefixes(shown);
    expect(squash((await answers(page))[1]!)).toBe(squash(FULL));
    // The earlier messages were not touched once while eleven deltas came; the element rendered a few times, not per delta.
    expect(oldChanges).toEqual([]);
    expect(renders).toBeLessThanOrEqual(6);
    // One announcement, when the answer was complete (never per delta).
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('Open the account page and choose Security.');
    expect(violations(problems)).toEqual([]);
    expect(eventsRequests).toHaveLength(2);
  });

  it('resumes after a dropped connection from the last event, without duplicating text', async () => {
    mode = 'drop-first';
    const { page, problems } = await open();
    await instrument(page);
    await ask(page, 'How do I reset my password?');
    await expect.poll(() => answers(page), { timeout: 20_000 }).toHaveLength(1);
    expect(eventsRequests.length).toBeGreaterThanOrEqual(2);
    expect(eventsRequests[1]).toMatch(/\/events\?last_event_id=\d+$/);
    const { shown } = await recorded(page);
    expectPrefixes(shown);
    expect(squash((await answers(page))[0]!)).toBe(squash(FULL));
    expect(violations(problems)).toEqual([]);
  });

  it('reconnects from the last event when the tab comes back into view, as a phone back from the background does', async () => {
    up.streamIntervalMs = 200;
    const { page } = await open();
    await instrument(page);
    await ask(page, 'How do I reset my password?');
    await expect.poll(async () => (await recorded(page)).shown.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await expect.poll(() => answers(page), { timeout: 20_000 }).toHaveLength(1);
    expect(eventsRequests).toHaveLength(2);
    expect(eventsRequests[1]).toMatch(/\/events\?last_event_id=\d+$/);
    expectPrefixes((await recorded(page)).shown);
    expect(squash((await answers(page))[0]!)).toBe(squash(FULL));
  });

  it('completes the answer for a visitor who left mid-answer, shown whole on return', async () => {
    up.streamIntervalMs = 200;
    const first = await open();
    await instrument(first.page);
    await ask(first.page, 'How do I reset my password?');
    await expect.poll(async () => (await recorded(first.page)).shown.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await first.page.close();
    await expect.poll(() => up.streams.at(-1)!.ended, { timeout: 5_000 }).toBe('closed');
    // Back later (the answer finished meanwhile, with nobody listening).
    await new Promise((resolve) => setTimeout(resolve, DELTAS.length * 200));
    const again = await open();
    await expect.poll(() => answers(again.page), { timeout: 10_000 }).toHaveLength(1);
    expect(squash((await answers(again.page))[0]!)).toBe(squash(FULL));
  });

  it('falls back to polling when the stream is held back on its way (no first byte within seconds), and polls from then on', async () => {
    mode = 'buffer';
    up.streamIntervalMs = 600;
    const { page } = await open();
    await ask(page, 'How do I reset my password?');
    await expect.poll(() => answers(page), { timeout: 30_000 }).toHaveLength(1);
    expect(squash((await answers(page))[0]!)).toBe(squash(FULL));
    const polls = up.calls.filter((c) => c.method === 'GET' && /^\/v0\/chat\/[\w-]+$/.test(c.path)).length;
    expect(polls).toBeGreaterThan(0);
    await ask(page, 'And then?');
    await expect.poll(() => answers(page), { timeout: 30_000 }).toHaveLength(2);
    expect(eventsRequests).toHaveLength(1);
  });

  it('polls when the proxy has no events route', async () => {
    mode = 'missing';
    up.streamIntervalMs = 50;
    const { page } = await open();
    await ask(page, 'How do I reset my password?');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    expect(eventsRequests).toHaveLength(1);
  });

  it("refuses another visitor's request for the stream (404)", async () => {
    const { page } = await open();
    await ask(page, 'How do I reset my password?');
    await expect.poll(() => answers(page), { timeout: 15_000 }).toHaveLength(1);
    const id = eventsRequests[0]!.split('/')[4]!;
    const other = await browser.newContext();
    const stranger = await other.newPage();
    await stranger.goto(`${siteUrl}/`);
    const status = await stranger.evaluate(async (path) => (await fetch(path)).status, `/api/support/chat/${id}/events`);
    expect(status).toBe(404);
    await other.close();
  });
});
