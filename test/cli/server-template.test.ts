/**
 * The `server.mjs` that `init` writes, run as written (its timeouts shortened in the copy, so the
 * test need not wait a minute), with the package's modules resolved to this checkout's sources and
 * the real proxy in front of the v0 stand-in: a client that stops reading an answer stream is cut,
 * not held for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { rawRequest, within } from '../helpers/raw-http.js';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { parseFile } from '../../src/server/knowledge/ingest/parse.js';

const template = readFileSync(resolve(import.meta.dirname, '../../src/cli/templates/server.mjs'), 'utf8');
/** The idle timeout as the template sets it, and the one the test's copy uses. */
const IDLE = 'server.timeout = 60_000;';
const SHORT_IDLE = 'server.timeout = 1_000;';

let dir = '';
const GUIDES = `---
title: Guides
sidebar_position: 2
---
import Tabs from '@theme/Tabs';
export const meta = { hidden: true };

Start here.

## Rate limits

Every token gets 60 requests a minute.

<Tabs>

## Rate limits

The second one, inside a component.

</Tabs>

## Custom anchor {#custom-id}

{/* a comment */}

Text with {1 + 1} an expression.
`;
let up: FakeUpstream;
let child: ChildProcess | undefined;
let base = '';

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const port = (probe.address() as { port: number }).port;
  await new Promise((done) => probe.close(done));
  return port;
}

beforeAll(async () => {
  up = await fakeUpstream();
  dir = mkdtempSync(join(tmpdir(), 'sc-server-mjs-'));
  const src = resolve(import.meta.dirname, '../../src');
  writeFileSync(join(dir, 'widget.js'), '// the widget\n');
  // The package's entry points, as this checkout's sources (tsx loads them).
  const targets = { proxy: `${src}/proxy/index.ts`, server: `${src}/server/index.ts` };
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `const targets = ${JSON.stringify(Object.fromEntries(Object.entries(targets).map(([k, v]) => [k, pathToFileURL(v).href])))};
export async function resolve(specifier, context, next) {
  if (!specifier.startsWith('support-chat-kit/')) return next(specifier, context);
  const name = specifier.slice('support-chat-kit/'.length);
  return next(targets[name] ?? ${JSON.stringify(pathToFileURL(join(dir, 'widget.js')).href)}, context);
}
`,
  );
  // Docs as a site writes them: an MDX folder index with front matter, an import and a component,
  // a repeated heading, an explicit id, and a page beside it.
  mkdirSync(join(dir, 'docs', 'guides'), { recursive: true });
  writeFileSync(join(dir, 'docs', 'guides', 'index.mdx'), GUIDES);
  writeFileSync(join(dir, 'docs', 'billing.md'), '# Billing\n\n## Refunds\n\nA refund is issued within 14 days of your request.\n\n<script>alert(1)</script>\n');
  writeFileSync(join(dir, 'secret.md'), '# Not a doc\n');
  writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
  const port = await freePort();
  writeFileSync(join(dir, '.env'), `PORT=${port}\nSUPPORT_CHAT_API_URL=${up.url}\nSUPPORT_CHAT_TOKEN=${up.token}\nSUPPORT_PROXY_SECRET=a-visitor-signing-secret-of-32-chars!!\n`);
  expect(template).toContain(IDLE);
  writeFileSync(join(dir, 'server.mjs'), template.replace(IDLE, SHORT_IDLE));
  child = spawn(process.execPath, ['--import', import.meta.resolve('tsx/esm'), '--import', './register.mjs', 'server.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await within(
    new Promise<void>((done, fail) => {
      const timer = setInterval(() => {
        if (out.includes(`http://localhost:${port}/`)) done();
        else if (child!.exitCode !== null) fail(new Error(`server.mjs exited:\n${out}`));
        else return;
        clearInterval(timer);
      }, 50);
    }),
    60_000,
    'server.mjs start',
  );
  base = `http://127.0.0.1:${port}`;
}, 90_000);

afterAll(async () => {
  child?.kill();
  await up?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the server.mjs init writes', () => {
  it('cuts a client that stops reading an answer stream, and keeps one that reads', async () => {
    // A long answer in big events: more than the sockets' buffers hold.
    up.streamIntervalMs = 2;
    up.streamDeltas = Array.from({ length: 400 }, () => 'x'.repeat(32 * 1024));
    const started = await fetch(`${base}/api/support/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'How do I reset my password?' }) });
    expect(started.status).toBe(202);
    const cookie = started.headers.get('set-cookie')!.split(';')[0]!;
    const { conversation_id: id } = (await started.json()) as { conversation_id: string };
    const head = `GET /api/support/chat/${id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n\r\n`;

    const stalled = rawRequest(base, head);
    expect(await stalled.status).toBe(200);
    stalled.socket.pause();
    // Three idle timeouts without reading; then the client reads again and finds the connection
    // was closed part way: the answer's end never came.
    await new Promise((done) => setTimeout(done, 3_000));
    stalled.socket.resume();
    await within(stalled.closed, 10_000, 'the stalled client cut');
    expect(stalled.received()).not.toContain('event: completed');

    // A client that reads the same answer the whole way is never idle: it gets all of it.
    const reader = rawRequest(base, head.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    expect(await reader.status).toBe(200);
    await within(reader.closed, 30_000, 'the whole answer');
    expect(reader.received()).toContain('event: completed');
  });
});

describe('the docs pages server.mjs serves', () => {
  it('is the server.mjs the README quotes, character for character', () => {
    const tree = fromMarkdown(readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8'));
    const at = tree.children.findIndex((node) => node.type === 'html' && node.value.trim() === '<!-- quick-start: file server.mjs -->');
    const block = tree.children[at + 1];
    expect(block?.type).toBe('code');
    expect(`${(block as { value: string }).value}\n`).toBe(template);
  });

  it('serves a folder page (index.mdx) as HTML, without front matter or imports, its headings anchored as the answers cite them', async () => {
    const response = await fetch(`${base}/docs/guides/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<title>Guides</title>');
    expect(html).toContain('<h1>Guides</h1>');
    expect(html).toContain('<p>Start here.</p>');
    for (const gone of ['sidebar_position', 'import Tabs', 'export const', '{#custom-id}', 'a comment', '1 + 1', '---']) expect(html).not.toContain(gone);
    // Every anchor ingest gives this page is an id on it.
    const cited = parseFile(GUIDES, 'docs/guides/index.mdx', '')!.sections.flatMap((s) => (s.url.includes('#') ? [s.url.split('#')[1]!] : []));
    expect(cited).toEqual(['rate-limits', 'rate-limits-1', 'custom-id']);
    for (const anchor of cited) expect(html).toContain(`id="${anchor}"`);
    expect(html).toContain('<script src="/support-chat.iife.js" data-endpoint="/api/support" async></script>');
  });

  it('serves a page by the path the answers cite, raw HTML left out, and nothing outside docs/', async () => {
    const page = await fetch(`${base}/docs/billing`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h2 id="refunds">Refunds</h2>');
    expect(html).not.toContain('alert(1)');
    expect((await fetch(`${base}/docs/missing`)).status).toBe(404);
    expect((await fetch(`${base}/docs/%E0%A4%A`)).status).toBe(404);
    const escape = rawRequest(base, 'GET /docs/../secret HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(await escape.status).toBe(404);
    const encoded = await fetch(`${base}/docs/..%2Fsecret`);
    expect(encoded.status).toBe(404);
  });
});
