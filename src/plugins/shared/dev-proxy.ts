/**
 * @module The proxy in a generator's dev server: the same proxy `server.mjs` runs, configured from
 * the `.env` that `support-chat-kit init` wrote, so the site's own dev command answers the widget
 * as soon as `npx support-chat-kit serve` runs beside it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { createSupportProxy, nodeListener } from '../../proxy/index.js';
import { DEFAULT_ENDPOINT } from './options.js';

type Next = (error?: unknown) => void;
type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The settings the proxy needs, by the names `init` writes them under. */
export interface ProxySettings {
  apiBaseUrl: string;
  token: string | undefined;
  secret: string | undefined;
}

/** The nearest `.env` in `dirs` or their parents, or null. */
export function findEnvFile(dirs: string[]): string | null {
  for (const start of dirs) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const file = join(dir, '.env');
      if (existsSync(file) && statSync(file).isFile()) return file;
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

/** The proxy's settings: the process's environment first (a host's settings), then the `.env` file. */
export function readSettings(envFile: string | null, env: NodeJS.ProcessEnv = process.env): ProxySettings {
  const file = envFile ? parseEnv(readFileSync(envFile, 'utf8')) : {};
  const pick = (name: string) => env[name] ?? file[name];
  return { apiBaseUrl: pick('SUPPORT_CHAT_API_URL') ?? 'http://127.0.0.1:8787', token: pick('SUPPORT_CHAT_TOKEN'), secret: pick('SUPPORT_PROXY_SECRET') };
}

const notConfigured = (why: string) => JSON.stringify({ error: { code: 'internal_error', message: `The support chat is not set up: ${why}. Run npx support-chat-kit init in the site's folder.` } });

/**
 * Connect-style middleware for a dev server: requests under `endpoint` go to the proxy, the rest to
 * `next`. The `.env` is looked for in `dirs` on each request until found, and read again when it
 * changes, so running `init` while the dev server runs needs no restart.
 */
export function devProxyMiddleware(dirs: string[], endpoint = DEFAULT_ENDPOINT): (req: IncomingMessage, res: ServerResponse, next: Next) => void {
  const basePath = endpoint.replace(/\/+$/, '');
  let current: { key: string; listener: Listener | null; why: string } | undefined;
  let warned = false;
  const listenerFor = () => {
    const envFile = findEnvFile(dirs);
    const key = envFile ? `${envFile}:${statSync(envFile).mtimeMs}` : '';
    if (current?.key !== key) {
      const settings = readSettings(envFile);
      const missing = [settings.token ? '' : 'SUPPORT_CHAT_TOKEN', settings.secret ? '' : 'SUPPORT_PROXY_SECRET'].filter(Boolean);
      current = {
        key,
        why: missing.length > 0 ? `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set${envFile ? ` in ${envFile}` : ' (no .env found)'}` : '',
        listener: missing.length > 0 ? null : nodeListener(createSupportProxy({ apiBaseUrl: settings.apiBaseUrl, token: settings.token!, secret: settings.secret!, basePath })),
      };
    }
    return current;
  };
  return (req, res, next) => {
    // Only a path on this site is the proxy's: a full-URL endpoint is a proxy elsewhere.
    if (!basePath.startsWith('/')) return next();
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return next();
    let found: ReturnType<typeof listenerFor>;
    try {
      found = listenerFor();
    } catch (error) {
      return next(error);
    }
    if (found.listener) return found.listener(req, res);
    if (!warned) {
      warned = true;
      console.warn(`support-chat-kit: ${found.why}; the widget's requests answer 503 until it is (npx support-chat-kit init).`);
    }
    res.writeHead(503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(notConfigured(found.why));
  };
}
