/**
 * @module `serve --site DIR`: a docs site's static build and the support proxy on one origin, for a
 * self-hosted docs site. The build is served at the site's base path (`/` or, for a site published
 * under a folder such as Docusaurus' `baseUrl: '/proj/'`, `/proj/`), with clean URLs as static
 * hosts serve them (`/guide/install` is `guide/install.html` or `guide/install/index.html`), the
 * build's own 404.html for a miss, never a file outside the build, and the widget's files from the
 * package when the build lacks them.
 */
import { createReadStream, existsSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The proxy's path on the site, as the widget's `data-endpoint` and the plugins use it. */
export const PROXY_PATH = '/api/support';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
};

/** The widget's files a page may load at the site's root: its script and the modules it loads next to it. */
const WIDGET_FILES = new Set(['/support-chat.iife.js', '/markdown.js', '/search.js', '/locales/es.js', '/locales/fr.js', '/locales/ar.js']);

/** The folder of the widget's built files: the package's `dist/` (from a checkout, once built). */
export function widgetDir(): string | null {
  for (const candidate of ['../../', '../../dist/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(join(dir, 'support-chat.iife.js'))) return dir;
  }
  return null;
}

async function fileIn(root: string, path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return null;
    // A symbolic link leading out of the build is not served.
    const real = await realpath(path);
    return real === root || real.startsWith(root + sep) ? real : null;
  } catch {
    return null;
  }
}

/**
 * The file a URL path names in the build, or a redirect to its folder's address; null when none.
 * The path is decoded once and must stay inside the build (no `..`, no NUL).
 */
export async function resolveStatic(root: string, pathname: string): Promise<{ file: string } | { redirect: string } | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').includes('..')) return null;
  const base = resolve(root, `.${decoded}`);
  if (base !== root && !base.startsWith(root + sep)) return null;
  if (decoded.endsWith('/')) {
    const index = await fileIn(root, join(base, 'index.html'));
    return index ? { file: index } : null;
  }
  for (const candidate of [base, `${base}.html`]) {
    const file = await fileIn(root, candidate);
    if (file) return { file };
  }
  // A folder's page lives at the folder's address with its slash, so its relative links resolve.
  // (Rebuilt from its segments: a path starting `//` would be another host's address.)
  if (await fileIn(root, join(base, 'index.html'))) return { redirect: `/${pathname.split('/').filter(Boolean).join('/')}/` };
  return null;
}

/** A base path as `/` or `/proj/`; a TypeError for one that is not a plain path. */
export function siteBase(text: string | undefined): string {
  const segments = (text ?? '/').split('/').filter(Boolean);
  for (const segment of segments) {
    if (segment === '.' || segment === '..' || /[\\?#%\s]/.test(segment)) throw new TypeError(`not a plain path: "${text}"`);
  }
  // As the path appears in a request's URL: percent-encoded.
  return segments.length > 0 ? encodeURI(`/${segments.join('/')}/`) : '/';
}

export interface SiteServerOptions {
  /** The build's folder. */
  root: string;
  /** The path the build is published under, as `siteBase` reads it. @default '/' */
  base?: string;
  /** The proxy, answering everything under `PROXY_PATH`. */
  proxy(req: IncomingMessage, res: ServerResponse): void;
  /** Where the widget's files are when the build lacks them; null for nowhere. @default widgetDir() */
  widget?: string | null;
}

function send(req: IncomingMessage, res: ServerResponse, file: string, status = 200): void {
  const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff' });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}

/** The site's request listener: the proxy under `PROXY_PATH`, the build's files, the widget's, the build's 404 page. */
export async function siteListener(options: SiteServerOptions): Promise<(req: IncomingMessage, res: ServerResponse) => void> {
  const root = await realpath(resolve(options.root));
  const widget = options.widget === undefined ? widgetDir() : options.widget;
  const widgetRoot = widget ? await realpath(widget) : null;
  const notFound = await fileIn(root, join(root, '404.html'));
  const base = siteBase(options.base);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = new URL(req.url ?? '/', 'http://site').pathname;
    if (pathname === PROXY_PATH || pathname.startsWith(`${PROXY_PATH}/`)) return options.proxy(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed');
    // The origin's root and the base without its slash lead to the site's home page.
    if (base !== '/' && (pathname === '/' || pathname === base.slice(0, -1))) return void res.writeHead(308, { location: base }).end();
    // Under the base, the rest of the path names a file of the build (its redirects under the base too).
    const found = pathname.startsWith(base) ? await resolveStatic(root, pathname.slice(base.length - 1)) : null;
    if (found && 'redirect' in found) return void res.writeHead(308, { location: `${base.slice(0, -1)}${found.redirect}` }).end();
    if (found) return send(req, res, found.file);
    if (widgetRoot && WIDGET_FILES.has(pathname)) {
      const file = await fileIn(widgetRoot, join(widgetRoot, `.${pathname}`));
      if (file) return send(req, res, file);
    }
    if (notFound) return send(req, res, notFound, 404);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
  };
  return (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
  };
}

/** Starts the site's server on `host:port`; resolves with it once it listens. */
export async function startSiteServer(options: SiteServerOptions & { host: string; port: number }): Promise<{ server: Server; url: string }> {
  const server = createServer(await siteListener(options));
  // As server.mjs: a stalled client is let go, an answer stream's keepalives keep a reader's connection.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.timeout = 60_000;
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => done());
  });
  const { port } = server.address() as { port: number };
  return { server, url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}` };
}
