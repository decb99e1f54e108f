// server.mjs: your page, the support widget and its proxy on http://localhost:3000/.
// Start the API server first (npx support-chat-kit serve), then: node server.mjs
// Settings come from .env (written by npx support-chat-kit init); nothing secret reaches the browser.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSupportProxy, nodeListener } from 'support-chat-kit/proxy';
import { renderDocPage, verifyWebhookSignature } from 'support-chat-kit/server';

process.loadEnvFile('.env');
const env = process.env;
const port = Number(env.PORT ?? 3000);

// The proxy holds the API token; the browser talks only to it, under /api/support.
const proxy = nodeListener(
  createSupportProxy({
    apiBaseUrl: env.SUPPORT_CHAT_API_URL ?? 'http://127.0.0.1:8787',
    token: env.SUPPORT_CHAT_TOKEN,
    secret: env.SUPPORT_PROXY_SECRET,
    basePath: '/api/support',
    // "Talk to a human" goes to the webhook below until a helpdesk is set up:
    // then 'plain', 'pylon' or 'linear' (npx support-chat-kit integrations set --help).
    escalation: { integration: 'webhook' },
  }),
);

// The widget is one script in the package: node_modules/support-chat-kit/dist/support-chat.iife.js.
const widget = await readFile(fileURLToPath(import.meta.resolve('support-chat-kit/support-chat.iife.js')));
// Spanish, French, Arabic and the Markdown parser: small modules the widget loads next to its script when it needs one.
const modules = Object.fromEntries(
  await Promise.all(['locales/es', 'locales/fr', 'locales/ar', 'markdown', 'search'].map(async (name) => [`/${name}.js`, await readFile(fileURLToPath(import.meta.resolve(`support-chat-kit/${name}.js`)))])),
);

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>My site</title>
  <link rel="icon" href="data:,">
</head>
<body>
  <h1>My site</h1>
  <p>The button in the corner answers from your docs.</p>
  <script src="/support-chat.iife.js" data-endpoint="/api/support" async></script>
</body>
</html>`;

/** Escalations arrive here, signed with SUPPORT_CHAT_WEBHOOK_SECRET: print them (or forward them to your inbox). */
async function escalation(req, res) {
  let body = '';
  for await (const chunk of req) body += chunk;
  const signed = verifyWebhookSignature(env.SUPPORT_CHAT_WEBHOOK_SECRET, req.headers['x-support-chat-timestamp'] ?? null, body, req.headers['x-support-chat-signature'] ?? null);
  if (!signed) return res.writeHead(401).end();
  const ticket = JSON.parse(body);
  if (req.headers['x-support-chat-event'] === 'ticket.created') {
    console.log(`Escalation from ${ticket.customer?.name} <${ticket.customer?.email}>: ${ticket.title}\n${ticket.note ?? ''}\n${ticket.summary}`);
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
}

// Without SUPPORT_CHAT_BASE_URL, answers cite your docs by their path (docs/billing#refunds), which
// the widget opens on this site: each page is served as HTML (a folder's index.md or index.mdx as the
// folder), its headings anchored as the answers cite them (a docs site serves them once you set it).
const docs = resolve('docs');
const isFile = (file) => stat(file).then((info) => info.isFile(), () => false);
async function docPage(path, res) {
  let base;
  try {
    base = resolve(decodeURIComponent(path.slice(1)));
  } catch {
    return false; // not a path (a malformed %-escape)
  }
  if (base !== docs && !base.startsWith(docs + sep)) return false;
  for (const file of [base, `${base}.md`, `${base}.mdx`, `${base}.html`, join(base, 'index.md'), join(base, 'index.mdx')]) {
    if (!(await isFile(file))) continue;
    const type = extname(file);
    if (type === '.md' || type === '.mdx') {
      const html = await renderDocPage(file, { widget: { src: '/support-chat.iife.js', endpoint: '/api/support' } });
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html), true;
    }
    const text = await readFile(file);
    return res.writeHead(200, { 'content-type': type === '.html' ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(text), true;
  }
  return false;
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (path.startsWith('/api/support/')) return proxy(req, res);
  if (path === '/support-chat.iife.js') return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(widget);
  if (Object.hasOwn(modules, path)) return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(modules[path]);
  if (path === '/escalations' && req.method === 'POST') return void escalation(req, res);
  if (path === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  if (!env.SUPPORT_CHAT_BASE_URL && (path === '/docs' || path.startsWith('/docs/')) && (await docPage(path, res).catch(() => false))) return;
  res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
});
// A client that stalls is let go: a request must arrive whole within 30 s (its headers within 10 s),
// and a connection with nothing going through for 60 s is closed; a client that stops reading a
// stream is one (answer streams send a keepalive every 15 s, so a reader is never idle that long).
server.requestTimeout = 30_000;
server.headersTimeout = 10_000;
server.timeout = 60_000;
server.listen(port, () => console.log(`Your site with the support widget: http://localhost:${port}/`));
