/**
 * @module End to end: the built classic script loads its Markdown parser on demand from
 * dist/markdown.js next to it, in a page under the demo's strict CSP with Trusted Types enforced, and
 * renders an answer's list and link; without the module the answer stays plain text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWidget } from '../helpers/build-widget.js';
import { launch, watchedPage } from './helpers/browser.js';
import { startWidgetSite, type WidgetSite } from './helpers/site.js';

let browser: Browser;
let site: WidgetSite | undefined;
let siteUrl: string;
let out: string;
/** Whether the site serves dist/markdown.js (the second test takes it away). */
let serveMarkdown = true;

const ANSWER = 'To get a refund:\n\n- Open **Billing**\n- Choose the order\n\nSee [the refunds page](https://docs.example.com/refunds).';
const PAGE = '<!doctype html><html lang="en"><title>Shop</title><body><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support"></support-chat></body></html>';

/** A stand-in for the proxy's two chat routes, in the shapes of the API v0 (a conversation answered at once). */
function api(path: string, method: string): unknown {
  const now = new Date().toISOString();
  if (method === 'POST' && path === '/api/support/chat') return { conversation_id: 'c1', status: 'processing' };
  if (method === 'GET' && path === '/api/support/chat/c1') {
    return {
      id: 'c1',
      status: 'completed',
      messages: [
        { role: 'user', content: 'How do I get a refund?', sources: [] },
        { role: 'assistant', content: ANSWER, sources: [], is_uncertain: false },
      ],
      created_at: now,
      updated_at: now,
    };
  }
  return undefined;
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'support-chat-markdown-'));
  await buildWidget(out);
  site = await startWidgetSite({
    out,
    page: PAGE,
    serves: (file) => file !== 'markdown.js' || serveMarkdown,
    handle: (req, res, url) => {
      const body = api(url.pathname, req.method ?? 'GET');
      if (!body) return false;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return true;
    },
  });
  siteUrl = site.url;
  browser = await launch();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

async function ask() {
  const context = await browser.newContext();
  const { page, problems, requests } = await watchedPage(context);
  await page.goto(`${siteUrl}/`);
  await page.locator('[part~="launcher"]').click();
  const input = page.locator('[part~="input"]');
  await input.fill('How do I get a refund?');
  await input.press('Enter');
  const answer = page.locator('[part~="message"][data-role="assistant"]').last();
  await answer.waitFor({ timeout: 15_000 });
  return { context, page, problems, requests, answer };
}

describe('Markdown answers from the built classic script', () => {
  it('renders a list and a link once dist/markdown.js has loaded, without a CSP or Trusted Types violation', async () => {
    serveMarkdown = true;
    const { context, problems, requests, answer } = await ask();
    await expect.poll(() => answer.locator('li').allTextContents()).toEqual(['Open Billing', 'Choose the order']);
    expect(await answer.locator('li strong').textContent()).toBe('Billing');
    const link = answer.getByRole('link', { name: 'the refunds page' });
    expect(await link.getAttribute('href')).toBe('https://docs.example.com/refunds');
    expect(requests.filter((url) => url.endsWith('/markdown.js'))).toEqual([`${siteUrl}/dist/markdown.js`]);
    expect(problems.filter((p) => /securitypolicyviolation|Trusted Type|pageerror/i.test(p))).toEqual([]);
    await context.close();
  });

  it('shows the answer as plain text when the module is not served', async () => {
    serveMarkdown = false;
    const { context, answer } = await ask();
    await expect.poll(() => answer.locator('.content').textContent()).toContain('- Open **Billing**');
    expect(await answer.locator('li').count()).toBe(0);
    expect(await answer.getByRole('link', { name: 'the refunds page' }).count()).toBe(0);
    await context.close();
  });
});
