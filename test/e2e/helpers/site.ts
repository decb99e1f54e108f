/**
 * @module A customer's site for end-to-end tests: one page at `/` and the built widget's files at
 * `/dist/<file>` (from `out`, see test/helpers/build-widget.ts), everything under the demo's strict
 * CSP with Trusted Types. `handle` sees each request first and answers what it recognises (an API,
 * a proxy); anything else is 404.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_CSP } from '../../../scripts/demo-server.mjs';
import { createSupportProxy, nodeListener, type SupportProxyOptions } from '../../../src/proxy/index.js';

export interface WidgetSiteOptions {
  /** The folder the widget was built into. */
  out: string;
  /** The page's HTML. */
  page: string;
  /** Which of the built files the site serves now. @default every file asked for */
  serves?: (file: string) => boolean;
  /** Answers a request first; returns true when it did. */
  handle?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | void;
}

export interface WidgetSite {
  url: string;
  close(): Promise<void>;
}

const BUILT = new Set(['support-chat.iife.js', 'support-chat.js', 'markdown.js', 'search.js']);

export async function startWidgetSite(options: WidgetSiteOptions): Promise<WidgetSite> {
  const headers = { 'content-security-policy': DEMO_CSP };
  const site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (options.handle?.(req, res, url)) return;
    if (url.pathname === '/') return void res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(options.page);
    const file = url.pathname.startsWith('/dist/') ? url.pathname.slice('/dist/'.length) : '';
    if (BUILT.has(file) && (options.serves?.(file) ?? true)) {
      return void res.writeHead(200, { ...headers, 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(join(options.out, file)));
    }
    res.writeHead(404, headers).end();
  });
  const url = await new Promise<string>((resolve) => site.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(site.address() as { port: number }).port}`)));
  return {
    url,
    close: () => {
      site.closeAllConnections();
      return new Promise<void>((resolve) => site.close(() => resolve()));
    },
  };
}

/**
 * The real proxy in front of an API at `apiBaseUrl`, as a Node request listener for a site's
 * `handle`. Every test's browser is one client address: its limits are raised, since they are not
 * what these tests are about, unless a test sets one (`limits`).
 */
export function siteProxy(apiBaseUrl: string, token: string, limits: SupportProxyOptions['visitorLimits'] = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return nodeListener(
    createSupportProxy({
      apiBaseUrl,
      token,
      secret: 'a-visitor-signing-secret-of-32-chars!!',
      // `limits` (a test's own) over the raised ones.
      visitorLimits: { perAddress: 10_000, polls: 10_000, newVisitorsPerAddress: 1_000, ...limits },
    }),
  );
}
