/**
 * @module Replies as a person reads them: ten questions a developer trying the demo would ask,
 * through the built widget in Chromium, against the real server and proxy answering from the
 * demo's own knowledge base (README, docs/, src/). Each reply is printed, to be read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { startStack, type Stack } from './helpers/stack.js';
import { launch, watchedPage } from './helpers/browser.js';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  stack = await startStack();
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  expect(await stack?.stop()).toBe(0);
});

/** The questions, and whether each asks how to do something (code may then answer) or is a prose question. */
const QUESTIONS: [string, 'how-to' | 'prose'][] = [
  ['How do I add the widget to my site?', 'how-to'],
  ['Where does my API token go?', 'prose'],
  ['Can a visitor talk to a person?', 'prose'],
  ['Can I host it myself?', 'prose'],
  ['Which languages does the widget speak?', 'prose'],
  ['How do I make it use OpenAI to write the answers?', 'how-to'],
  ['What happens to a conversation once it is handed to the team?', 'prose'],
  ['Is the widget accessible to screen reader users?', 'prose'],
  ['Where is the data stored?', 'prose'],
  ['Can one visitor ever see another visitor’s conversation?', 'prose'],
];

/** The most prose a reply may hold (its text outside code blocks). */
const MAX_PROSE = 1_200;

/** What one reply shows: its prose, whether it holds code, and each table cell's width against its longest word. */
async function readReply(page: Page) {
  const reply = page.locator('[part~="message"][data-role="assistant"]').last();
  return reply.evaluate((el) => {
    const content = el.querySelector<HTMLElement>('.content')!;
    const prose = [...content.childNodes]
      .filter((node) => !(node instanceof HTMLElement && node.classList.contains('code')))
      .map((node) => node.textContent ?? '')
      .join('\n')
      .trim();
    const measure = document.createElement('canvas').getContext('2d')!;
    const cells = [...content.querySelectorAll<HTMLElement>('th, td')].map((cell) => {
      const style = getComputedStyle(cell);
      // Each word in the font it is drawn in: a code span's monospace is not the cell's.
      const widths: number[] = [];
      const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = texts.nextNode(); node; node = texts.nextNode()) {
        measure.font = getComputedStyle(node.parentElement!).font;
        for (const word of (node.textContent ?? '').split(/\s+/).filter(Boolean)) widths.push(measure.measureText(word).width);
      }
      const longest = Math.max(0, ...widths);
      return { text: cell.textContent ?? '', width: cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), longest };
    });
    return { prose, text: content.innerText, code: content.querySelectorAll('pre').length, cells, uncertain: el.dataset.uncertain === 'true' };
  });
}

describe('replies a person reads', () => {
  it('ten questions on the demo: one offer of a human, short prose, no code in a prose answer, tables that keep their words', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/marketing.html`);
    await page.locator('[part~="launcher"]').click();
    await page.locator('[part~="panel"]').waitFor({ state: 'visible' });
    const lengths: number[] = [];
    for (const [i, [question, kind]] of QUESTIONS.entries()) {
      const input = page.locator('[part~="input"]');
      await input.fill(question);
      await input.press('Enter');
      // An answer is complete when its actions show.
      await expect.poll(() => page.locator('[part~="copy-answer"]').count(), { timeout: 60_000 }).toBe(i + 1);
      const reply = await readReply(page);
      console.log(`\n### ${question}${reply.uncertain ? ' (not sure)' : ''}\n\n${reply.text}\n`);
      lengths.push(reply.prose.length);
      // One offer to talk to a human, in one place, whatever the reply.
      expect(await page.locator('[part~="talk-to-human"]').count(), question).toBe(1);
      expect(reply.prose.length, question).toBeLessThanOrEqual(MAX_PROSE);
      if (kind === 'prose') expect(reply.code, question).toBe(0);
      for (const cell of reply.cells) expect(cell.width, `${question}: "${cell.text}"`).toBeGreaterThanOrEqual(Math.floor(cell.longest));
    }
    lengths.sort((a, b) => a - b);
    console.log(`prose characters: median ${lengths[Math.floor(lengths.length / 2)]}, longest ${lengths.at(-1)}`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("opens a Markdown source at its section, rendered as a page with the heading's id", async () => {
    const response = await fetch(`${stack.url}/source/README`, { headers: { accept: 'text/html' } });
    const html = await response.text();
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('<h2 id="embed-the-widget">');
    expect(html).not.toContain('<span class="line"');
  });
});
