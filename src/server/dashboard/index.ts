/**
 * @module The insights dashboard at `/dashboard/`: a static page and its script, served by the API
 * server under a strict Content Security Policy. The page asks for a token itself; the server
 * serves the same files to everyone and the report comes from GET /v0/insights.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiResponse } from '../http/exchange.js';
import type { Route } from '../http/router.js';

/** Scripts, styles and requests from this server only, no inline code, no HTML sinks (Trusted Types with no policy). */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'dashboard.css': 'text/css; charset=utf-8',
};

/** The assets beside this module (running from `src/`), else in the source tree (running the build from `dist/node/`). */
function assetsDir(): string {
  const candidates = [new URL('./assets/', import.meta.url), new URL('../../../../src/server/dashboard/assets/', import.meta.url)];
  for (const candidate of candidates) {
    const path = fileURLToPath(candidate);
    if (existsSync(`${path}index.html`)) return path;
  }
  throw new Error('dashboard assets not found beside the server');
}

/** The dashboard's routes (public: the page holds no data until the visitor gives it a token). */
export function dashboardRoutes(): Route[] {
  let cache: Map<string, string> | undefined;
  const file = (name: string) => {
    cache ??= new Map(Object.keys(FILES).map((n) => [n, readFileSync(`${assetsDir()}${n}`, 'utf8')]));
    return cache.get(name)!;
  };
  const serve = (name: string) => (): ApiResponse => ({
    status: 200,
    headers: {
      'content-type': FILES[name]!,
      'content-security-policy': DASHBOARD_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    },
    body: file(name),
  });
  return [
    { method: 'GET', pattern: '/dashboard', scope: 'public', handler: () => ({ status: 308, headers: { location: '/dashboard/' }, body: null }) },
    { method: 'GET', pattern: '/dashboard/', scope: 'public', handler: serve('index.html') },
    { method: 'GET', pattern: '/dashboard/dashboard.js', scope: 'public', handler: serve('dashboard.js') },
    { method: 'GET', pattern: '/dashboard/dashboard.css', scope: 'public', handler: serve('dashboard.css') },
  ];
}
