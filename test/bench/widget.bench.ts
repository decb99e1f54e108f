/** @module Widget size against deep-chat, time to an interactive launcher, and rendering 200 messages, in headless Chromium. */
import { build } from 'vite';
import { chromium } from 'playwright';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromiumArgs, chromiumPath } from '../../scripts/chromium.mjs';
import { quantile, type BenchTable } from './table.js';

const root = resolve(import.meta.dirname, '../..');
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

async function buildWidget(outDir: string): Promise<void> {
  for (const mode of ['production', 'iife']) {
    await build({ root, configFile: join(root, 'vite.config.ts'), mode, logLevel: 'silent', build: { outDir, emptyOutDir: false } });
  }
}

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
  ];
}
