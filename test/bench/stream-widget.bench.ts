/**
 * @module Streamed answers, time to first visible text: the real server (`startServer`, SQLite)
 * answering from a knowledge base with the stand-in LLM (test/helpers/fake-llm.ts) streaming in
 * OpenAI's shape with a known first-token time, the real proxy behind Node's http server, and the
 * built widget in headless Chromium. Per question: Send → the first streamed text painted, minus the
 * provider's own first-token time; and the relay alone (the provider's first chunk sent → painted:
 * the server's LLM client, its event log and stream, the proxy, the widget).
 */
import { chromium } from 'playwright';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.mjs';
import { createSupportProxy, nodeListener } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { buildWidget } from '../helpers/build-widget.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { quantile, type BenchTable } from './table.js';

const ROUNDS = Number(process.env.STREAM_BENCH_ROUNDS ?? 100);
/** The provider's own time to its first token, ms (a fast hosted model's): subtracted whole, though its timer fires a little later. */
const FIRST_TOKEN_MS = 200;
const KB = join(import.meta.dirname, '../fixtures/kb/docs');
const REPLY = 'Each token may send 120 requests per minute. The limit applies per organization too.';
const PAGE = '<!doctype html><html lang="en"><title>Bench</title><body><script src="/dist/support-chat.iife.js"></script><support-chat endpoint="/api/support" mode="inline" no-persist></support-chat></body></html>';

export async function run(): Promise<BenchTable[]> {
  const llm = await fakeLlm();
  Object.assign(llm, { delayMs: FIRST_TOKEN_MS, chunkChars: 8, chunkDelayMs: 20 });
  const out = mkdtempSync(join(tmpdir(), 'support-chat-bench-stream-'));
  await buildWidget(out, ['iife']);
  const config = { baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 10_000, retries: 0 };
  const api = await startServer({ dataDir: ':memory:', port: 0, engine: (sql) => createAnswerEngine({ sql, llm: config, embedder: null }), logger: silentLogger, env: {} });
  await (api.server.engine as AnswerEngine & KnowledgeBase).ingest('bench', [KB]);
  // A pool of tokens: a question is two requests upstream (send, stream), more than one token's 120 a minute allows at this pace.
  const tokens: string[] = [];
  for (let i = 0; i < 5; i++) tokens.push((await api.server.tokens.create({ orgId: 'bench', name: `proxy ${i}`, scopes: ['chat:read', 'chat:write'] })).token);
  const proxy = nodeListener(
    createSupportProxy({ apiBaseUrl: api.url, token: tokens, secret: 'a-visitor-signing-secret-of-32-chars!!', visitorLimits: { messages: 10_000, polls: 10_000, perAddress: 10_000 } }),
  );
  const site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (path.startsWith('/api/support/')) return proxy(req, res);
    const file = { '/dist/support-chat.iife.js': 'support-chat.iife.js', '/dist/markdown.js': 'markdown.js', '/dist/search.js': 'search.js' }[path];
    if (file) return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(join(out, file)));
    res.writeHead(404).end();
  });
  const siteUrl = await new Promise<string>((resolve) => site.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(site.address() as { port: number }).port}`)));
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs });
  const overhead: number[] = [];
  const relay: number[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(siteUrl);
    await page.locator('support-chat [part~="input"]').waitFor();
    for (let i = 0; i < ROUNDS + 3; i++) {
      llm.script = [REPLY];
      const { sent, visible } = await page.evaluate(async (question) => {
        const el = document.querySelector('support-chat') as HTMLElement & { reset(): void; updateComplete: Promise<unknown> };
        el.reset();
        await el.updateComplete;
        const root = el.shadowRoot!;
        const input = root.querySelector('textarea')!;
        input.value = question;
        // (No named functions in here: tsx would wrap them in a helper the page does not have.)
        const sent = performance.timeOrigin + performance.now();
        input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
        for (;;) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
          if (root.querySelector('[data-streaming] .content')?.textContent?.trim()) break;
          if (performance.timeOrigin + performance.now() - sent > 10_000) throw new Error(`no streamed text: ${root.querySelector('.messages')?.textContent?.slice(0, 500)}`);
        }
        // The frame after the text went in: it has been painted.
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const visible = performance.timeOrigin + performance.now();
        // The answer completes before the next question.
        while (root.querySelector('[data-streaming]') || root.querySelector('[aria-busy="true"]')) {
          await new Promise((resolve) => requestAnimationFrame(resolve));
          if (performance.timeOrigin + performance.now() - sent > 20_000) throw new Error('the answer did not complete');
        }
        return { sent, visible };
      }, 'What is the rate limit per token?');
      // The first rounds warm the page, the server and the JIT up.
      if (i < 3) continue;
      overhead.push(visible - sent - FIRST_TOKEN_MS);
      relay.push(visible - (performance.timeOrigin + llm.firstChunkAt.at(-1)!));
    }
  } finally {
    await browser.close();
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
    await api.close();
    await llm.close();
    rmSync(out, { recursive: true, force: true });
  }
  const row = (name: string, samples: number[]) => [name, quantile(samples, 0.5), quantile(samples, 0.99), Math.max(...samples)];
  return [
    {
      title: `Streamed answer: time to first visible text through the proxy and the widget (headless Chromium, real server and proxy, stand-in LLM with a ${FIRST_TOKEN_MS} ms first token, answering from a knowledge base, ${ROUNDS} questions)`,
      columns: ['measure', 'p50 ms', 'p99 ms', 'max ms'],
      rows: [row("Send → first text painted, minus the provider's first-token time", overhead), row("Provider's first chunk sent → painted (the relay alone)", relay)],
      notes: ['Goal: p50 ≤ 50 ms, p99 ≤ 250 ms for the first row.'],
    },
  ];
}
