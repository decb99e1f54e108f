/**
 * @module A page with `<support-chat>` for the streaming tests, and instruments in it: what the
 * streaming message showed, what the live region said, the element's renders, and any change to
 * the messages shown before.
 */
import { expect } from 'vitest';
import type { BrowserContext, Page } from 'playwright';
import { watchedPage } from './browser.js';

/** The page problems that must not happen: CSP or Trusted Types violations, page errors. */
export function violations(problems: string[]): string[] {
  return problems.filter((p) => /securitypolicyviolation|Trusted Type|pageerror/i.test(p));
}

/** Opens the page, with instruments in it: what the streaming message showed, what the live region said, the element's renders, and changes to the messages already there. */
export async function open(context: BrowserContext, siteUrl: string): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await watchedPage(context);
  await page.goto(`${siteUrl}/`);
  await page.locator('support-chat').evaluate(async (el: HTMLElement & { updateComplete: Promise<unknown> }) => el.updateComplete);
  return { page, problems };
}

/**
 * Starts recording in the page. While an answer streams (from its first text until its message
 * is replaced by the finished one), every message shown before it is watched for any change, and the
 * element's renders are counted.
 */
export async function instrument(page: Page): Promise<void> {
  await page.locator('support-chat').evaluate((el: HTMLElement & { updated(...a: unknown[]): void }) => {
    const root = el.shadowRoot!;
    const w = window as unknown as Record<string, unknown>;
    const shown: string[] = [];
    const said: string[] = [];
    let renders = 0;
    const oldChanges: string[] = [];
    w.__stream = { shown, said, renders: () => renders, oldChanges: () => oldChanges };
    let streaming = false;
    const original = el.updated.bind(el);
    el.updated = (...args: unknown[]) => {
      if (streaming) renders++;
      original(...args);
    };
    const old = new MutationObserver((records) => {
      for (const r of records) oldChanges.push(`${r.type} ${r.attributeName ?? ''} on ${r.target.nodeName} ${(r.target.textContent ?? '').slice(0, 80)}`);
    });
    new MutationObserver(() => {
      const message = root.querySelector('[data-streaming]');
      if (message && !streaming) {
        streaming = true;
        for (const article of root.querySelectorAll('article.message:not([data-streaming])')) old.observe(article, { subtree: true, childList: true, characterData: true, attributes: true });
      } else if (!message && streaming) {
        // The finished answer replaced the streaming message: what that render changed is not per delta.
        for (const r of old.takeRecords()) oldChanges.push(`${r.type} ${r.attributeName ?? ''} on ${r.target.nodeName} ${(r.target.textContent ?? '').slice(0, 80)}`);
        old.disconnect();
        streaming = false;
      }
      const text = message?.querySelector('.content')?.textContent ?? '';
      if (text && text !== shown.at(-1)) shown.push(text);
    }).observe(root, { subtree: true, childList: true, characterData: true });
    const live = root.querySelector('[role="status"][aria-live="polite"]')!;
    new MutationObserver(() => said.push(live.textContent!.trim())).observe(live, { subtree: true, childList: true, characterData: true });
  });
}

export async function ask(page: Page, question: string): Promise<void> {
  await page.locator('support-chat').evaluate((el: HTMLElement & { ask(q: string): Promise<void> }, q) => el.ask(q), question);
}

export const squash = (text: string) => text.replace(/\s+/g, '');

export async function answers(page: Page): Promise<string[]> {
  return page.locator('[part~="message"][data-role="assistant"]:not([data-streaming]) .content').allTextContents();
}

/** What the page recorded; `oldChanges` describes each change to a message shown before `instrument`. */
export async function recorded(page: Page): Promise<{ shown: string[]; said: string[]; renders: number; oldChanges: string[] }> {
  return page.evaluate(() => {
    const s = (window as unknown as { __stream: { shown: string[]; said: string[]; renders(): number; oldChanges(): string[] } }).__stream;
    return { shown: s.shown, said: s.said.filter(Boolean), renders: s.renders(), oldChanges: s.oldChanges() };
  });
}

/** Every text the streaming message showed is the start of the answer: nothing twice, nothing out of order. */
export function expectPrefixes(shown: string[], full: string): void {
  for (const text of shown) expect(squash(full).startsWith(squash(text)), `shown: ${text}`).toBe(true);
}

