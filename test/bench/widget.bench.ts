/**
 * @module Widget size against deep-chat, time to an interactive launcher, rendering 200 messages,
 * and the visitor's wait from Send to the answer's first line on screen against the demo server
 * (`npm start`), all in headless Chromium.
 */
import { chromium } from 'playwright';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.mjs';
import { startStack } from '../e2e/helpers/stack.js';
import { quantile, type BenchTable } from './table.js';
import { buildWidget } from '../helpers/build-widget.js';

const QUESTIONS = [
  'How do I embed the widget with a script tag?',
  'What does the proxy do with the API token?',
  'How do I run the server?',
  'How do I ingest docs into the knowledge base?',
  'Which environment variable sets the LLM base URL?',
  'Can the widget run inline in a docs page?',
  'How are conversations kept between reloads?',
  'How does escalation to a ticket work?',
];

/**
 * Send → the answer's first line painted, against the whole product as `npm start` runs it: the
 * clock starts when Enter is pressed in the field and stops at the first animation frame after the
 * answer's first block is in the DOM. Each question starts a new conversation.
 */
async function sendToFirstLine(rounds: number): Promise<number[]> {
  const stack = await startStack();
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs });
  const times: number[] = [];
  try {
    let page = await browser.newPage();
    for (let i = 0; i < rounds; i++) {
      // A new visitor every eight questions: the proxy allows each visitor 20 messages a minute.
      if (i % 8 === 0) {
        await page.context().close();
        page = await browser.newPage();
        await page.goto(`${stack.url}/docs.html`);
        await page.locator('.help [part~="input"]').waitFor();
      }
      const question = QUESTIONS[i % QUESTIONS.length]!;
      times.push(
        await page.evaluate(async (q) => {
          const el = document.querySelector('.help support-chat') as HTMLElement & { reset(): void; updateComplete: Promise<unknown> };
          el.reset();
          await el.updateComplete;
          const root = el.shadowRoot!;
          const input = root.querySelector('textarea')!;
          input.value = q;
          const start = performance.now();
          input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
          const deadline = start + 60_000;
          for (;;) {
            await new Promise(requestAnimationFrame);
            if (root.querySelector('[part~="message"][data-role="assistant"] .content > *')) return performance.now() - start;
            if (performance.now() > deadline) throw new Error(`no answer within 60 s: ${root.querySelector('[part~="messages"]')?.textContent?.replace(/\s+/g, ' ')} ${root.querySelector('[part~="error"]')?.textContent ?? ''}`);
          }
        }, question),
      );
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
  return times;
}

const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;


export async function run(): Promise<BenchTable[]> {
  const out = mkdtempSync(join(tmpdir(), 'support-chat-bench-'));
  await buildWidget(out);
  const iife = readFileSync(join(out, 'support-chat.iife.js'));
  const esm = readFileSync(join(out, 'support-chat.js'));
  const deepChatPath = join(dirname(createRequire(import.meta.url).resolve('deep-chat/package.json')), 'dist/deepChat.bundle.js');
  const deepChat = readFileSync(deepChatPath);
  const sizes: BenchTable = {
    title: 'Bundle size (including Lit and the Markdown renderer)',
    columns: ['bundle', 'minified KB', 'gzipped KB'],
    rows: [
      ['support-chat.iife.js', kb(iife.length), kb(gzipSync(iife, { level: 9 }).length)],
      ['support-chat.js (ES module)', kb(esm.length), kb(gzipSync(esm, { level: 9 }).length)],
      ['deep-chat (deepChat.bundle.js)', kb(deepChat.length), kb(gzipSync(deepChat, { level: 9 }).length)],
    ],
    notes: ['Goal: ≤ 25 KB gzipped for the IIFE.'],
  };

  // A page server for the built script, with a proxy stub that answers instantly.
  const server = createServer((req, res) => {
    if (req.url === '/support-chat.iife.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(iife);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html lang="en"><body><script src="/support-chat.iife.js" data-endpoint="/api/support"></script></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: chromiumArgs });
  const loads: number[] = [];
  const renders: number[] = [];
  try {
    for (let i = 0; i < 7; i++) {
      const page = await browser.newPage();
      await page.goto(url);
      const ms = await page.evaluate(async () => {
        const el = document.querySelector('support-chat') as HTMLElement & { updateComplete: Promise<unknown> };
        await el.updateComplete;
        const launcher = el.shadowRoot!.querySelector('[part~="launcher"]');
        const script = performance.getEntriesByType('resource').find((e) => e.name.endsWith('support-chat.iife.js'))!;
        if (!launcher) throw new Error('no launcher');
        return performance.now() - script.startTime;
      });
      loads.push(ms);
      const render = await page.evaluate(async () => {
        const messages = Array.from({ length: 200 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: i % 2 ? `Answer ${i} with **bold**, \`code\`, a [link](https://example.com/${i}) and a list:\n\n- one\n- two\n\n\`\`\`js\nconsole.log(${i})\n\`\`\`` : `Question ${i}?`,
          sources: i % 2 ? [{ title: `Source ${i}`, url: `https://docs.example.com/${i}` }] : [],
        }));
        localStorage.setItem('support-chat:bench:/api/support', JSON.stringify({ conversationId: 'conv_bench', status: 'completed', messages, escalation: null }));
        const el = document.createElement('support-chat') as HTMLElement & { updateComplete: Promise<unknown> };
        el.setAttribute('endpoint', '/api/support');
        el.setAttribute('storage-key', 'bench');
        el.setAttribute('mode', 'inline');
        const start = performance.now();
        document.body.append(el);
        await el.updateComplete;
        const count = el.shadowRoot!.querySelectorAll('[part~="message"]').length;
        el.getBoundingClientRect();
        if (count < 200) throw new Error(`rendered ${count}`);
        return performance.now() - start;
      });
      renders.push(render);
      await page.close();
    }
  } finally {
    await browser.close();
    server.close();
    rmSync(out, { recursive: true, force: true });
  }
  const rounds = 24;
  const firstLine = await sendToFirstLine(rounds);
  return [
    sizes,
    {
      title: 'Timing in headless Chromium (7 runs)',
      columns: ['measure', 'p50 ms', 'max ms'],
      rows: [
        ['script load → launcher interactive', quantile(loads, 0.5), Math.max(...loads)],
        ['render a 200-message conversation', quantile(renders, 0.5), Math.max(...renders)],
      ],
    },
    {
      title: `Send → the answer's first line on screen, against the demo server (npm start, docs page, ${rounds} questions)`,
      columns: ['measure', 'p50 ms', 'p95 ms', 'max ms'],
      rows: [['Send → first line painted', quantile(firstLine, 0.5), quantile(firstLine, 0.95), Math.max(...firstLine)]],
      notes: ['Includes the proxy, the v0 server, retrieval and answer composition (no LLM configured: the local answer), and the widget’s polling (the first poll goes out at once as a long poll).'],
    },
  ];
}
