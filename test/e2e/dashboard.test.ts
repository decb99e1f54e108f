/**
 * @module The insights dashboard end to end: the stack as `npm start` runs it, questions asked
 * through the API, the demo's link to the dashboard (signed in with the development token), the
 * report drawn under the strict CSP in Debian's Chromium, accessible, and its screenshot for the docs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, repoRoot, type Stack } from './helpers/stack.js';
import { axeViolations, launch, watchedPage } from './helpers/browser.js';

let stack: Stack;
let browser: Browser;
let apiUrl: string;

beforeAll(async () => {
  stack = await startStack();
  browser = await launch();
  apiUrl = /API server\s+(http:\/\/\S+)/.exec(stack.output())![1]!;
  const { token } = JSON.parse(readFileSync(join(stack.dataDir, 'dev.json'), 'utf8')) as { token: string };
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const questions = [
    'How do I embed the widget with a script tag?',
    'How do I run the proxy with Express?',
    'Can I teleport a zeppelin?',
    'teleport zeppelins',
    'Is there a COBOL SDK for mainframes?',
  ];
  for (const message of questions) {
    const sent = (await (await fetch(`${apiUrl}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message }) })).json()) as { conversation_id: string };
    // The long poll answers as soon as the answer is stored.
    let status = 'processing';
    for (let i = 0; i < 5 && status === 'processing'; i++) {
      status = ((await (await fetch(`${apiUrl}/v0/chat/${sent.conversation_id}`, { headers: { ...headers, prefer: 'wait=20' } })).json()) as { status: string }).status;
    }
    expect(status).toBe('completed');
    if (message.startsWith('Can I teleport')) {
      const rated = await fetch(`${apiUrl}/v0/chat/${sent.conversation_id}/feedback`, { method: 'POST', headers, body: JSON.stringify({ rating: 'down', comment: 'I really need a zeppelin' }) });
      expect(rated.status).toBe(200);
    }
  }
});

afterAll(async () => {
  await browser?.close();
  expect(await stack?.stop()).toBe(0);
});

describe('the insights dashboard', () => {
  it('opens from the demo signed in, draws the report with charts under the strict CSP, and is accessible', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 1400 } });
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/`);
    await page.getByRole('link', { name: 'Insights dashboard' }).click();
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    // The token came in the fragment, stayed in this tab's storage only, and left the address bar.
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([1, 0, '']);

    const response = await page.request.get(page.url());
    expect(response.headers()['content-security-policy']).toContain("require-trusted-types-for 'script'");

    await expect.poll(() => page.locator('#totals dd').first().textContent()).not.toBe('0');
    const chart = page.getByRole('img', { name: /Questions per day/ });
    await expect.poll(() => chart.locator('rect').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByRole('img', { name: /largest groups of unanswered questions/ }).count()).toBe(1);
    const gaps = page.locator('#gaps > li');
    await expect.poll(() => gaps.first().textContent()).toMatch(/^2 questions about teleport, zeppelin/);
    expect(await page.locator('#thumbs-down li').first().textContent()).toContain('I really need a zeppelin');
    await expect.poll(() => page.locator('#top-sources a').count()).toBeGreaterThan(0);

    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(repoRoot, 'docs', 'screenshots', 'insights-dashboard.png'), fullPage: true });

    // Reloading keeps the tab signed in; forgetting the token asks for one again.
    await page.reload();
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    await page.getByRole('button', { name: 'Forget token' }).click();
    await page.getByRole('heading', { name: 'Sign in with a token' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await context.close();
  });

  it('asks a new tab for a token and says when one lacks the insights:read scope', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(`${apiUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in with a token' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const { token } = JSON.parse(readFileSync(join(stack.dataDir, 'dev.json'), 'utf8')) as { token: string };
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Show insights' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That token does not have the insights:read scope.');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.getByLabel('API token').fill('sc_live_not-a-real-token');
    await page.getByRole('button', { name: 'Show insights' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That token is not valid (or expired).');
    expect(problems.filter((p) => !p.includes('401') && !p.includes('403'))).toEqual([]);
    await context.close();
  });
});
