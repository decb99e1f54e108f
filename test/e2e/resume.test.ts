/**
 * @module End to end: reload in the middle of an answer and see it resume. The server's LLM provider
 * points at a local chat-completions stand-in that takes its time, or (`holding`) holds every
 * completion until the test releases it, so the answer is provably still being written at the reload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { createServer, type Server } from 'node:http';
import { startStack, type Stack } from './helpers/stack.js';
import { launch, watchedPage } from './helpers/browser.js';

const ANSWER_DELAY_MS = 4_000;
let stack: Stack;
let browser: Browser;
let llm: Server;
let completions = 0;
/** While true, completions wait in `held` until the test releases them. */
let holding = false;
const held: (() => void)[] = [];

/** A chat-completions endpoint answering in the documented response shape, after a delay. */
function startSlowLlm(): Promise<string> {
  llm = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      const request = JSON.parse(body) as { model: string; messages: { role: string; content: string }[] };
      completions += 1;
      const respond = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${completions}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: request.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: 'Add the script tag to your page and point `data-endpoint` at your proxy [1].' },
                finish_reason: 'stop',
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
          }),
        );
      };
      if (holding) held.push(respond);
      else setTimeout(respond, ANSWER_DELAY_MS);
    });
  });
  return new Promise((resolve) =>
    llm.listen(0, '127.0.0.1', () => {
      const address = llm.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`);
    }),
  );
}

beforeAll(async () => {
  const baseUrl = await startSlowLlm();
  stack = await startStack({
    SUPPORT_CHAT_LLM_BASE_URL: baseUrl,
    SUPPORT_CHAT_LLM_API_KEY: 'test-key',
    SUPPORT_CHAT_LLM_MODEL: 'slow-model',
  });
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise<void>((resolve) => llm?.close(() => resolve()));
});

describe('an answer still processing', () => {
  it('resumes after a reload and completes', async () => {
    holding = true;
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await page.goto(`${stack.url}/marketing.html`);
    await page.locator('[part~="launcher"]').click();
    const input = page.locator('[part~="input"]');
    await input.fill('How do I embed the widget with a script tag?');
    await input.press('Enter');
    await page.getByText(/working on it/i).waitFor();
    // Once the message is accepted, the page goes away in the middle of the answer.
    await page.waitForFunction(() => Object.keys(localStorage).some((k) => k.startsWith('support-chat:') && localStorage.getItem(k)!.includes('"processing"') && localStorage.getItem(k)!.includes('conv_')));
    // The model has the question and holds its answer: whatever the reload takes, it lands mid-answer.
    await expect.poll(() => held.length, { timeout: 15_000 }).toBe(1);

    await page.reload();
    await page.locator('[part~="launcher"]').waitFor();
    if (!(await page.locator('[part~="panel"]').isVisible())) await page.locator('[part~="launcher"]').click();
    await expect.poll(() => page.locator('[part~="message"][data-role="user"]').count()).toBe(1);
    await page.getByText(/working on it/i).waitFor();
    expect(await page.locator('[part~="message"][data-role="assistant"]').count()).toBe(0);
    // Only now is the answer written: the reloaded page must follow it to see it.
    holding = false;
    for (const release of held.splice(0)) release();
    const answer = page.locator('[part~="message"][data-role="assistant"]').last();
    await answer.waitFor({ timeout: 30_000 });
    expect(await answer.textContent()).toContain('data-endpoint');
    expect(completions).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('notices going offline, says so, and finishes the answer when the connection is back', async () => {
    const context = await browser.newContext();
    const { page } = await watchedPage(context);
    await page.goto(`${stack.url}/marketing.html`);
    await page.locator('[part~="launcher"]').click();
    const input = page.locator('[part~="input"]');
    await input.fill('How do I embed the widget with a script tag?');
    await input.press('Enter');
    await page.getByText(/working on it/i).waitFor();
    await context.setOffline(true);
    await page.getByText(/you're offline/i).waitFor();
    expect(await page.locator('[part~="message"][data-role="assistant"]').count()).toBe(0);
    await context.setOffline(false);
    await page.locator('[part~="message"][data-role="assistant"]').last().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByText(/you're offline/i).count()).toBe(0);
    await context.close();
  });
});
