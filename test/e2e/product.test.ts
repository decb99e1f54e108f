/**
 * @module End to end: the real server, proxy and built widget, started as `npm start` starts them,
 * driven in Debian's Chromium. Every page is served under the strict CSP with Trusted Types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startStack, repoRoot, type Stack } from './helpers/stack.js';
import { axeViolations, launch, watchedPage } from './helpers/browser.js';

const shots = join(repoRoot, 'test-results', 'screenshots');
mkdirSync(shots, { recursive: true });

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack();
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  const code = await stack?.stop();
  expect(code).toBe(0);
});

async function openLauncher(page: Page) {
  const launcher = page.locator('[part~="launcher"]');
  await launcher.waitFor();
  await launcher.click();
  await page.locator('[part~="panel"]').waitFor({ state: 'visible' });
}

async function ask(page: Page, question: string) {
  const input = page.locator('[part~="input"]');
  await input.fill(question);
  await input.press('Enter');
}

const lastAnswer = (page: Page) => page.locator('[part~="message"][data-role="assistant"]').last();

describe('the product, end to end', () => {
  it('answers a question with working source links, then escalates to the inbox', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/marketing.html`);
    await page.screenshot({ path: join(shots, 'launcher-light.png') });
    await openLauncher(page);
    await page.screenshot({ path: join(shots, 'launcher-open-light.png') });
    // Starter questions from the script tag's data-starters.
    expect(await page.locator('[part~="starter"]').allTextContents()).toEqual(['How do I add the widget to my site?', 'Where does my API token go?', 'Can a visitor talk to a person?', 'Can I host it myself?']);

    await ask(page, 'How do I embed the widget with a script tag?');
    await expect.poll(() => page.locator('[part~="message"][data-role="user"]').count()).toBe(1);
    const answer = lastAnswer(page);
    await answer.waitFor({ timeout: 20_000 });
    const sources = answer.locator('[part~="source"]');
    await expect.poll(() => sources.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'answer-light.png') });

    const hrefs = await sources.evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs) {
      expect(href.startsWith(`${stack.url}/source/`)).toBe(true);
      const response = await fetch(href);
      expect(response.status, href).toBe(200);
    }
    // A source link opens its file where the answer came from: the anchor's line or heading is on screen.
    const anchored = hrefs.find((href) => new URL(href).hash.length > 1);
    expect(anchored, hrefs.join(' ')).toBeDefined();
    const viewer = await context.newPage();
    await viewer.goto(anchored!);
    const id = decodeURIComponent(new URL(anchored!).hash.slice(1)).replace(/-L\d+$/, '');
    const target = viewer.locator(`[id="${id}"]`);
    expect(await target.count(), anchored).toBe(1);
    await expect
      .poll(() => target.evaluate((el) => el.getBoundingClientRect().top > -2 && el.getBoundingClientRect().top < innerHeight && (scrollY > 0 || el.getBoundingClientRect().top < 200)))
      .toBe(true);
    await viewer.close();

    await page.getByRole('button', { name: /talk to a human/i }).click();
    const form = page.locator('[part~="escalation-form"]');
    await form.waitFor();
    await form.getByRole('button', { name: /send|submit|request/i }).click();
    await expect.poll(() => form.locator('[aria-invalid="true"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'escalation-form-light.png') });
    await form.getByLabel(/name/i).fill('Ada Lovelace');
    await form.getByLabel(/email/i).fill('ada@example.com');
    await form.getByLabel(/anything to add/i).fill('My invoice total looks wrong.');
    await form.getByRole('button', { name: /send|submit|request/i }).click();

    const ticket = page.locator('[part~="ticket"]');
    await ticket.waitFor({ timeout: 20_000 });
    // The demo inbox is on the webhook's own host, so the visitor is given no link to it.
    expect(await ticket.locator('a').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'ticket-light.png') });

    const inbox = await context.newPage();
    await inbox.goto(`${stack.url}/inbox.html`);
    const entry = inbox.locator('article.ticket').first();
    await entry.waitFor();
    expect(await entry.textContent()).toContain('How do I embed the widget with a script tag?');
    expect(await entry.textContent()).toContain('ada@example.com');
    expect(await entry.locator('.summary').textContent()).not.toBe('');
    // The note the visitor added reaches the inbox.
    expect(await entry.locator('.note').textContent()).toBe('My invoice total looks wrong.');

    expect(problems).toEqual([]);
    await context.close();
  });

  it('has no accessibility violations in any state, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme });
      const { page, problems } = await watchedPage(context);
      await page.goto(`${stack.url}/marketing.html`);
      await page.locator('[part~="launcher"]').waitFor();
      expect(await axeViolations(page), `${colorScheme} closed`).toEqual([]);
      if (colorScheme === 'dark') await page.screenshot({ path: join(shots, 'launcher-dark.png') });
      await openLauncher(page);
      expect(await axeViolations(page), `${colorScheme} open`).toEqual([]);
      await ask(page, 'What does the proxy do with the API token?');
      await lastAnswer(page).locator('[part~="source"]').first().waitFor({ timeout: 20_000 });
      expect(await axeViolations(page), `${colorScheme} answered`).toEqual([]);
      if (colorScheme === 'dark') await page.screenshot({ path: join(shots, 'answer-dark.png') });
      await page.getByRole('button', { name: /talk to a human/i }).click();
      await page.locator('[part~="escalation-form"]').waitFor();
      expect(await axeViolations(page), `${colorScheme} escalation form`).toEqual([]);
      if (colorScheme === 'dark') {
        await page.screenshot({ path: join(shots, 'escalation-form-dark.png') });
        const form = page.locator('[part~="escalation-form"]');
        await form.getByLabel(/name/i).fill('Grace Hopper');
        await form.getByLabel(/email/i).fill('grace@example.com');
        await form.getByRole('button', { name: /send/i }).click();
        await page.locator('[part~="ticket"]').waitFor({ timeout: 20_000 });
        expect(await axeViolations(page), 'dark ticket').toEqual([]);
        await page.screenshot({ path: join(shots, 'ticket-dark.png') });
      }
      for (const path of ['/docs.html', '/app.html', '/inbox.html', '/']) {
        await page.goto(`${stack.url}${path}`);
        await page.waitForLoadState('networkidle');
        expect(await axeViolations(page), `${colorScheme} ${path}`).toEqual([]);
      }
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('works in a docs help panel and through the in-app JavaScript API', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/docs.html`);
    await page.locator('.help [part~="input"]').waitFor();
    await ask(page, 'How do I run the server?');
    await lastAnswer(page).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(shots, 'docs-inline-light.png') });

    await page.goto(`${stack.url}/app.html`);
    await page.getByRole('button', { name: 'Help' }).click();
    await page.getByRole('menuitem', { name: /where does my api token live/i }).click();
    await page.locator('[part~="panel"]').waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('[part~="message"][data-role="user"]').count()).toBe(1);
    await lastAnswer(page).waitFor({ timeout: 20_000 });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('reports a CSP or Trusted Types violation when one happens (so the checks above can fail)', async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/marketing.html`);
    await page.locator('[part~="launcher"]').waitFor();
    expect(problems).toEqual([]);
    const blocked = await page.evaluate(() => {
      try {
        const target = document.createElement('div');
        // A string assigned to an HTML sink is refused under require-trusted-types-for 'script'.
        (target as unknown as Record<string, string>)['inner' + 'HTML'] = '<b>x</b>';
        return false;
      } catch {
        return true;
      }
    });
    expect(blocked).toBe(true);
    await expect.poll(() => problems.some((p) => /securitypolicyviolation|Trusted Type/i.test(p))).toBe(true);
    await context.close();
  });

  it('works on a phone-sized screen', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/marketing.html`);
    await page.locator('[part~="launcher"]').tap();
    const panel = page.locator('[part~="panel"]');
    await panel.waitFor({ state: 'visible' });
    const box = await panel.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(389);
    expect(await panel.getAttribute('aria-modal')).toBe('true');
    expect(await axeViolations(page), 'phone open').toEqual([]);
    const fontSize = await page.locator('[part~="input"]').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(fontSize).toBeGreaterThanOrEqual(16);
    await ask(page, 'How do I ingest docs into the knowledge base?');
    await lastAnswer(page).locator('[part~="source"]').first().waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(shots, 'answer-phone.png') });
    expect(await axeViolations(page), 'phone answered').toEqual([]);
    await page.getByRole('button', { name: /talk to a human/i }).tap();
    const form = page.locator('[part~="escalation-form"]');
    await form.getByLabel(/name/i).fill('Ada Lovelace');
    await form.getByLabel(/email/i).fill('ada@example.com');
    await page.screenshot({ path: join(shots, 'escalation-form-phone.png') });
    await form.getByRole('button', { name: /send/i }).tap();
    await page.locator('[part~="ticket"]').waitFor({ timeout: 20_000 });
    await page.screenshot({ path: join(shots, 'ticket-phone.png') });

    // The docs page with its inline help panel: nothing wider than the screen, before or after an answer with code.
    await page.goto(`${stack.url}/docs.html`);
    await page.locator('.help [part~="input"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await ask(page, 'Which environment variable sets the LLM base URL?');
    await lastAnswer(page).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(shots, 'docs-inline-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });
});
