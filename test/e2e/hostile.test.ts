/**
 * @module End to end: hostile Markdown reaching the widget verbatim. A v0-shaped upstream answers with
 * script tags, `javascript:` links in every disguise, event attributes and image beacons, unchanged
 * (the real server would strip them first, so it stands aside here); the real proxy passes them on; the
 * built widget renders them in a page with no CSP and no Trusted Types, so its own defences are all
 * that stand between the payload and the page. The answer must run nothing and load nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSupportProxy } from '../../src/proxy/index.js';
import { toNodeListener } from '../../src/protocol/node-http.js';
import { buildWidget } from '../helpers/build-widget.js';
import { launch, watchedPage } from './helpers/browser.js';

const TOKEN = 'sc_live_hostile_upstream_token_value';
let browser: Browser;
let upstream: Server;
let site: Server;
let beacon: Server;
let beaconHits: string[] = [];
let beaconOrigin: string;
let siteUrl: string;
let out: string;

/** The answer, as an attacker who controls a document (or the model) would have it written. */
function hostileAnswer(origin: string): string {
  return `Refunds for the Acme plan are issued within 5 days. <script>window.__pwned = 'script'</script>
You can request refunds from the billing page <img src="${origin}/img-tag.png" onerror="window.__pwned='onerror'">.

Read the [refund policy](javascript:window.__pwned='link'), the [upper-case policy](JAVASCRIPT:window.__pwned='upper'),
the [encoded policy](javascript&#58;window.__pwned='entity'), the [escaped policy](javascript\\:window.__pwned='escape'),
the [vb policy](vbscript:msgbox), the [data policy](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==),
<javascript:window.__pwned='autolink'> or the [terms](${origin}/terms) before asking.

![refund chart](${origin}/beacon.png) and ![inline](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)

<a href="${origin}/anchor" onclick="window.__pwned='onclick'">refund form</a>

<iframe src="${origin}/iframe"></iframe>

\`\`\`html
<iframe src="${origin}/iframe-in-code"></iframe>
\`\`\`

| Plan | Refunds |
| --- | --- |
| Acme <b onmouseover="window.__pwned='cell'">Pro</b> | [30 days](javascript:window.__pwned='cell-link') |

> <svg onload="window.__pwned='svg'"></svg> and [quoted](  javascript:window.__pwned='spaces'  )`;
}

/** A v0 API that accepts every message and answers each with the hostile Markdown, unchanged. */
function hostileUpstream(origin: string): Server {
  return createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { error: { code: 'unauthorized', message: 'Invalid or expired API token' } });
      if (req.method === 'POST' && req.url === '/v0/chat') return send(202, { conversation_id: 'conv_hostile', status: 'processing' });
      if (req.method === 'GET' && req.url?.startsWith('/v0/chat/conv_hostile')) {
        return send(200, {
          id: 'conv_hostile',
          status: 'completed',
          messages: [
            { role: 'user', content: 'How do refunds work for the Acme plan?', sources: [] },
            {
              role: 'assistant',
              content: hostileAnswer(origin),
              sources: [
                { title: 'Billing <b onmouseover="window.__pwned=\'title\'">and refunds</b>', url: `javascript:window.__pwned='source'` },
                { title: 'Terms', url: `${origin}/source` },
              ],
            },
          ],
          created_at: '2026-01-01T00:00:00Z',
          updated_at: '2026-01-01T00:00:00Z',
        });
      }
      send(404, { error: { code: 'not_found', message: 'Resource not found' } });
    });
  });
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
};

beforeAll(async () => {
  beacon = createServer((req, res) => {
    beaconHits.push(req.url ?? '');
    res.end('gotcha');
  });
  beaconOrigin = await listen(beacon);
  upstream = hostileUpstream(beaconOrigin);
  const apiBaseUrl = await listen(upstream);
  out = mkdtempSync(join(tmpdir(), 'support-chat-hostile-'));
  await buildWidget(out, ['iife']);
  // The widget loads its Markdown parser (the defences under test live there) and its search from beside its script.
  const files: Record<string, Buffer> = Object.fromEntries(['support-chat.iife.js', 'markdown.js', 'search.js'].map((name) => [`/${name}`, readFileSync(join(out, name))]));
  const proxy = toNodeListener(createSupportProxy({ apiBaseUrl, token: TOKEN, secret: 'h'.repeat(32), basePath: '/api/support' }));
  // The page has no CSP and no Trusted Types: only the widget's own defences are tested.
  site = createServer((req, res) => {
    if (req.url?.startsWith('/api/support')) return proxy(req, res);
    const file = req.url ? files[req.url] : undefined;
    if (file) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(file);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Shop</title><body><script src="/support-chat.iife.js" data-endpoint="/api/support"></script></body></html>');
  });
  siteUrl = await listen(site);
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  for (const server of [site, upstream, beacon]) await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('hostile Markdown that reaches the widget verbatim', () => {
  it('runs nothing and loads nothing', async () => {
    const context = await browser.newContext();
    const { page, problems, requests, dialogs } = await watchedPage(context);
    beaconHits = [];
    // Requests the page issues, as the browser reports them (before they reach the beacon server).
    const pageRequests = () => requests.filter((url) => url.startsWith(beaconOrigin) || /^(data|javascript|vbscript):/i.test(url));
    await page.goto(siteUrl);
    await page.locator('[part~="launcher"]').click();
    const input = page.locator('[part~="input"]');
    await input.fill('How do refunds work for the Acme plan?');
    await input.press('Enter');
    const answer = page.locator('[part~="message"][data-role="assistant"]').last();
    await answer.locator('[part~="source"]').first().waitFor({ timeout: 20_000 });

    // The payload arrived whole: the widget shows the tags as text.
    const text = (await answer.textContent()) ?? '';
    expect(text).toContain(`<script>window.__pwned = 'script'</script>`);
    expect(text).toContain(`onerror="window.__pwned='onerror'"`);
    expect(text).toContain('<iframe src=');

    // Hover everything in the answer that could carry a handler, and click what is not a link (a
    // followed link is the visitor's choice, and opens a tab).
    for (const el of await answer.locator('b, a, img, code, svg, td, p').all()) await el.hover().catch(() => undefined);
    for (const el of await answer.locator('b, code, svg, td').all()) {
      // The widget's own thumbs (inline SVG) would rate the answer: not part of the hostile payload.
      if (await el.evaluate((node) => node.closest('[part~="feedback"]') !== null)) continue;
      await el.click({ timeout: 1_000 }).catch(() => undefined);
    }
    // Instead of a sleep: a round trip through the page after two frames. Handlers run synchronously
    // on the events, and the browser reports any request they issue before it answers this evaluation.
    await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

    const rendered = await answer.evaluate((node) => ({
      // The widget's own thumbs icons (inline SVG in the feedback part) are not from the answer.
      elements: [...node.querySelectorAll('script, iframe, img, object, embed, svg, frame, link, style')].filter((el) => !el.closest('[part~="feedback"]')).length,
      handlers: [...node.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      links: [...node.querySelectorAll('a')].map((a) => ({ href: a.getAttribute('href') ?? '', rel: a.getAttribute('rel') ?? '', text: a.textContent ?? '' })),
    }));
    expect(rendered.elements).toBe(0);
    expect(rendered.handlers).toBe(0);
    for (const link of rendered.links) {
      expect(link.href, link.text).toMatch(/^(https?:|mailto:)/);
      expect(link.rel, link.text).toContain('noopener');
    }
    // The safe links are there (the defences did not simply drop everything).
    expect(rendered.links.map((l) => l.href)).toEqual(expect.arrayContaining([`${beaconOrigin}/terms`, `${beaconOrigin}/beacon.png`, `${beaconOrigin}/source`]));
    expect(text).toContain('Image: refund chart');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(pageRequests()).toEqual([]);
    expect(beaconHits).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
