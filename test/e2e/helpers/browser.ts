/** @module Debian's Chromium through Playwright, with CSP and Trusted Types violations and page errors recorded. */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromiumArgs, chromiumPath } from '../../../scripts/chromium.mjs';

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs, headless: true });
}

export interface WatchedPage {
  page: Page;
  /** Console errors and warnings and page errors: CSP and Trusted Types violations among them. */
  problems: string[];
  /** Every request the page made, by URL. */
  requests: string[];
  /** The messages of dialogs (alert, confirm, prompt) the page opened; each is dismissed. */
  dialogs: string[];
}

/** A page that records problems, requests and dialogs, with `securitypolicyviolation` events forwarded to the console. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('request', (request) => requests.push(request.url()));
  // Every CSP or Trusted Types violation becomes a console error, whether or not the browser logs one.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`securitypolicyviolation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return { page, problems, requests, dialogs };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (all its rules: WCAG 2.x A/AA and best practices) in the page and returns its violations.
 * Injected through the DevTools protocol, so the page's CSP does not have to be relaxed.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const injected = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!injected) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; help: string; nodes: { target: unknown }[] }[] }> } }).axe;
    // Every rule axe has, best practices (landmarks, headings) included: no violation of any impact.
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
  });
  return violations;
}
