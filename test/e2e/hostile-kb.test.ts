/**
 * @module End to end: a knowledge base seeded with hostile Markdown (script tags, `javascript:` links,
 * event attributes, image beacons). Answers built from it must run nothing and load nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from './helpers/stack.js';
import { launch, watchedPage } from './helpers/browser.js';

let stack: Stack;
let browser: Browser;
let beacon: Server;
let beaconHits: string[] = [];
let beaconOrigin: string;
let kbDir: string;

beforeAll(async () => {
  beacon = createServer((req, res) => {
    beaconHits.push(req.url ?? '');
    res.end('gotcha');
  });
  await new Promise<void>((resolve) => beacon.listen(0, '127.0.0.1', resolve));
  const address = beacon.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  beaconOrigin = origin;
  kbDir = mkdtempSync(join(tmpdir(), 'support-chat-hostile-'));
  writeFileSync(
    join(kbDir, 'billing.md'),
    `---
title: Billing and refunds
url: https://docs.example.com/billing
---

# Billing and refunds

## How do refunds work

Refunds for the Acme plan are issued within 5 days. <script>window.__pwned = 'script'</script>
You can request refunds from the billing page <img src="${origin}/img-tag.png" onerror="window.__pwned='onerror'">.

Read the [refund policy](javascript:window.__pwned='link') or the [terms](${origin}/terms) before asking for refunds.

![refund chart](${origin}/beacon.png)

<a href="${origin}/anchor" onclick="window.__pwned='onclick'">refund form</a>

\`\`\`html
<iframe src="${origin}/iframe"></iframe>
\`\`\`

| Plan | Refunds |
| --- | --- |
| Acme <b onmouseover="window.__pwned='cell'">Pro</b> | 30 days |
`,
  );
  stack = await startStack({ SUPPORT_CHAT_KB: kbDir });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise<void>((resolve) => beacon?.close(() => resolve()));
  rmSync(kbDir, { recursive: true, force: true });
});

describe('answers from hostile Markdown', () => {
  it('run nothing and load nothing', async () => {
    const context = await browser.newContext();
    const { page, problems, requests, dialogs } = await watchedPage(context);
    beaconHits = [];
    // Requests the page issues, as the browser reports them (before they reach the beacon server).
    const pageRequests = () => requests.filter((url) => url.startsWith(beaconOrigin));
    await page.goto(`${stack.url}/marketing.html`);
    await page.locator('[part~="launcher"]').click();
    const input = page.locator('[part~="input"]');
    await input.fill('How do refunds work for the Acme plan?');
    await input.press('Enter');
    const answer = page.locator('[part~="message"][data-role="assistant"]').last();
    await answer.locator('[part~="source"]').first().waitFor({ timeout: 20_000 });
    const text = (await answer.textContent()) ?? '';
    expect(text).toMatch(/refund/i);

    // Hover and click everything in the answer that could carry a handler.
    for (const el of await answer.locator('b, a, img, code').all()) await el.hover().catch(() => undefined);
    // Instead of a sleep: a round trip through the page after two frames. Handlers run
    // synchronously on the hover's events, and the browser reports any request they issue
    // (page.on('request')) before it answers this evaluation.
    await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

    const rendered = await answer.evaluate((node) => ({
      scripts: node.querySelectorAll('script, iframe, img, object, embed').length,
      handlers: [...node.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      hrefs: [...node.querySelectorAll('a')].map((a) => a.getAttribute('href') ?? ''),
      rels: [...node.querySelectorAll('a')].map((a) => a.getAttribute('rel') ?? ''),
    }));
    expect(rendered.scripts).toBe(0);
    expect(rendered.handlers).toBe(0);
    for (const href of rendered.hrefs) expect(href).toMatch(/^(https?:|mailto:)/);
    for (const rel of rendered.rels) expect(rel).toContain('noopener');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(pageRequests()).toEqual([]);
    expect(beaconHits).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
