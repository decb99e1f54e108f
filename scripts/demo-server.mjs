// The demo site: static pages, the built widget, the proxy at /api/support, the project's
// source files (so answers' source links resolve), and a small helpdesk inbox that receives
// the `webhook` integration's signed escalations.
import { createServer } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { toHast } from 'mdast-util-to-hast';
import { toHtml } from 'hast-util-to-html';

/** Served with every demo page: the strict policy the widget must work under. */
export const DEMO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types lit-html',
].join('; ');

const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A heading's id as the knowledge base makes it (lowercase, letters, digits, `-` and `_`). */
const slug = (heading) =>
  heading
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** A source file as a page: one element per line with id `L<n>`, Markdown headings with their ids too. */
function sourcePage(path, text, markdown) {
  const used = new Map();
  let fence = false;
  const lines = text.split('\n').map((line, i) => {
    if (/^\s{0,3}(```|~~~)/.test(line)) fence = !fence;
    const heading = markdown && !fence ? /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line) : null;
    let anchor = '';
    if (heading) {
      const explicit = /\{#([\w\-.:]+)\}\s*$/.exec(heading[1]);
      const base = explicit ? explicit[1] : slug(heading[1]);
      const count = used.get(base) ?? 0;
      used.set(base, count + 1);
      anchor = `<a id="${escapeHtml(count && !explicit ? `${base}-${count}` : base)}"></a>`;
    }
    return `<span class="line" id="L${i + 1}">${anchor}${escapeHtml(line)}</span>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(path)}</title><link rel="stylesheet" href="/demo/demo.css"><script src="/demo/source.js" defer></script></head><body class="source"><main><h1>${escapeHtml(path)}</h1><pre tabindex="0"><code>${lines.join('\n')}</code></pre></main></body></html>`;
}

/** A heading's anchor as the knowledge base makes it (src/server/knowledge/ingest/slug.ts): lowercase; letters, digits, `_`, `-`; whitespace as `-`. */
const anchor = (text) => {
  let out = '';
  for (const char of text.trim().toLowerCase()) {
    if (char === '_' || char === '-' || /[\p{L}\p{N}]/u.test(char)) out += char;
    else if (/\s/.test(char)) out += '-';
  }
  return out;
};

/**
 * A Markdown file as the page a reader expects: rendered to HTML (CommonMark with GFM; raw HTML
 * in it is dropped, not passed through), each heading with the id the knowledge base cites
 * (`#embed-the-widget`), so a source link opens at its section.
 */
function markdownPage(path, text) {
  const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const used = new Map();
  const stack = [tree];
  while (stack.length) {
    const node = stack.pop();
    if (node.type === 'heading') {
      const base = anchor(toString(node));
      const count = used.get(base) ?? 0;
      used.set(base, count + 1);
      node.data = { ...node.data, hProperties: { id: count ? `${base}-${count}` : base } };
    } else if (node.children) stack.push(...[...node.children].reverse());
  }
  const body = toHtml(toHast(tree));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(path)}</title><link rel="stylesheet" href="/demo/demo.css"></head><body class="source doc"><main><p class="path">${escapeHtml(path)}</p>${body}</main></body></html>`;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Resolves `path` under `root`, or null when it would escape it. */
function inside(root, path) {
  const full = resolve(root, normalize(`.${sep}${path}`));
  return full === root || full.startsWith(root + sep) ? full : null;
}

async function fileAt(path) {
  try {
    const info = await stat(path);
    return info.isFile() ? path : null;
  } catch {
    return null;
  }
}

/**
 * Starts the demo site.
 * @param {{ port: number, host?: string, repoRoot: string, dataDir: string, proxy: (request: Request) => Promise<Response>,
 *           webhookSecret: string, sourceRoots: string[], log?: (line: string) => void, dashboardUrl?: string }} options
 */
export async function startDemoServer({ port, host = '127.0.0.1', repoRoot, dataDir, proxy, webhookSecret, sourceRoots, toNodeListener, dashboardUrl }) {
  const inboxFile = join(dataDir, 'inbox.json');
  let inbox = [];
  try {
    inbox = JSON.parse(await readFile(inboxFile, 'utf8'));
  } catch {
    inbox = [];
  }

  async function serveFile(path, extraHeaders = {}) {
    const found = await fileAt(path);
    if (!found) return notFound();
    const body = await readFile(found);
    return new Response(body, {
      headers: {
        'content-type': TYPES[extname(found)] ?? 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-cache',
        ...extraHeaders,
      },
    });
  }

  function notFound() {
    return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }

  async function receiveWebhook(request) {
    const body = await request.text();
    const timestamp = request.headers.get('x-support-chat-timestamp') ?? '';
    const signature = (request.headers.get('x-support-chat-signature') ?? '').replace(/^v1=/, '');
    const expected = createHmac('sha256', webhookSecret).update(`${timestamp}.${body}`).digest('hex');
    const valid =
      signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
    if (!valid) return Response.json({ error: 'bad signature' }, { status: 401 });
    if (request.headers.get('x-support-chat-event') === 'ticket.message') {
      // A visitor's message after escalation: added to its ticket's transcript, once.
      const event = JSON.parse(body);
      const ticket = inbox.find((t) => t.id === event.ticket_id);
      if (!ticket) return Response.json({ error: 'unknown ticket' }, { status: 404 });
      ticket.received ??= [];
      if (!ticket.received.includes(event.id)) {
        ticket.received.push(event.id);
        ticket.transcript.push(event.message);
        await writeFile(inboxFile, JSON.stringify(inbox, null, 2));
      }
      return Response.json({ id: event.id });
    }
    const ticket = JSON.parse(body);
    if (!inbox.some((t) => t.id === ticket.id)) {
      inbox.unshift(ticket);
      await writeFile(inboxFile, JSON.stringify(inbox, null, 2));
    }
    // No ticket link: the server never shows the visitor a link on the webhook's own host (it could
    // be the hook's secret address), and this inbox is the helpdesk's page, not the visitor's.
    return Response.json({ id: ticket.id });
  }

  /** Source links in answers point here: the project's Markdown rendered (its raw HTML dropped), other files as numbered lines. */
  async function serveSource(path, request) {
    const decoded = decodeURIComponent(path);
    for (const root of [repoRoot, ...sourceRoots]) {
      const base = inside(root, decoded);
      if (!base) continue;
      for (const candidate of [base, `${base}.md`, `${base}.mdx`, join(base, 'README.md')]) {
        if (!sourceRoots.some((r) => candidate === r || candidate.startsWith(r + sep))) continue;
        if (await fileAt(candidate)) {
          // Browsers get a page whose lines and headings have ids, so a source link's anchor
          // (`#L12-L30`, `#a-heading`) opens the file where the answer came from.
          if (!(request.headers.get('accept') ?? '').includes('text/html')) return serveFile(candidate, { 'content-type': 'text/plain; charset=utf-8' });
          const text = await readFile(candidate, 'utf8');
          const page = candidate.endsWith('.md') ? markdownPage(decoded, text) : sourcePage(decoded, text, candidate.endsWith('.mdx'));
          return new Response(page, {
            headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DEMO_CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' },
          });
        }
      }
    }
    return notFound();
  }

  async function handle(request) {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path.startsWith('/api/support/') || path === '/api/support') return proxy(request);
    if (path === '/inbox/webhook' && request.method === 'POST') return receiveWebhook(request);
    if (path === '/favicon.ico') return new Response(null, { status: 204 });
    // The API server's insights dashboard, with the development insights token in the fragment (never sent to a server).
    if (path === '/dashboard' && dashboardUrl) return new Response(null, { status: 302, headers: { location: dashboardUrl, 'cache-control': 'no-store' } });
    if (path === '/inbox/tickets') return Response.json({ tickets: inbox }, { headers: { 'cache-control': 'no-store' } });
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('Method not allowed', { status: 405 });
    if (path.startsWith('/source/')) return serveSource(path.slice('/source/'.length), request);
    if (path.startsWith('/dist/')) {
      const file = inside(join(repoRoot, 'dist'), path.slice('/dist/'.length));
      return file ? serveFile(file) : notFound();
    }
    if (path.startsWith('/demo/')) {
      const file = inside(join(repoRoot, 'demo'), path.slice('/demo/'.length));
      return file ? serveFile(file) : notFound();
    }
    const page = path === '/' ? 'index.html' : path.slice(1);
    if (!/^[a-z-]+\.html$/.test(page)) return notFound();
    return serveFile(join(repoRoot, 'demo', page), { 'content-security-policy': DEMO_CSP });
  }

  const server = createServer(toNodeListener((request) => handle(request)));
  await new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolveListen);
  });
  const address = server.address();
  const publicUrl = `http://${host === '0.0.0.0' ? 'localhost' : host}:${address.port}`;
  return {
    url: publicUrl,
    close: () =>
      new Promise((resolveClose) => {
        server.close(() => resolveClose());
        server.closeIdleConnections?.();
      }),
  };
}
