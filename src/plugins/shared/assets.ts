/**
 * @module The widget's files a site serves: the classic script and the modules it loads from beside
 * itself when needed (search, Markdown, each locale), found in the package's own dist/ folder.
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { ASSET_FOLDER, normalizeBase } from './options.js';

export interface WidgetAsset {
  /** Its path under the asset folder: `support-chat.iife.js`, `locales/es.js`. */
  path: string;
  file: string;
}

/**
 * The package's dist/ folder, where the widget's bundles are. Resolved with `require.resolve`:
 * generators that load their config through Vite (Astro) run this module where
 * `import.meta.resolve` does not exist.
 */
export function widgetDir(): string {
  return dirname(createRequire(import.meta.url).resolve('support-chat-kit/support-chat.iife.js'));
}

/** Every file of the widget a page may load; throws when the package was installed without its build. */
export function widgetAssets(dir = widgetDir()): WidgetAsset[] {
  const assets: WidgetAsset[] = [];
  for (const name of ['support-chat.iife.js', 'search.js', 'markdown.js']) {
    const file = join(dir, name);
    if (!existsSync(file)) throw new Error(`support-chat-kit: ${file} is missing; the package's dist/ folder is not built`);
    assets.push({ path: name, file });
  }
  const locales = join(dir, 'locales');
  if (existsSync(locales)) {
    for (const name of readdirSync(locales).sort()) if (name.endsWith('.js')) assets.push({ path: `locales/${name}`, file: join(locales, name) });
  }
  return assets;
}

/** Copies the widget's files into a build's output folder, under the asset folder; returns how many. */
export async function copyWidgetAssets(outDir: string): Promise<number> {
  const assets = widgetAssets();
  for (const { path, file } of assets) {
    const target = join(outDir, ASSET_FOLDER, path);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file, target);
  }
  return assets.length;
}

type Next = (error?: unknown) => void;

/** Connect-style middleware serving the widget's files under `{base}support-chat/` from a dev server. */
export function assetMiddleware(base: string): (req: IncomingMessage, res: ServerResponse, next: Next) => void {
  const prefix = `${normalizeBase(base)}${ASSET_FOLDER}/`;
  let byPath: Map<string, string> | undefined;
  return (req, res, next) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!path.startsWith(prefix) || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    // Listed on the first request, so a dev server starts even before the package is built.
    byPath ??= new Map(widgetAssets().map((asset) => [asset.path, asset.file]));
    const file = byPath.get(path.slice(prefix.length));
    if (!file) return next();
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }).end(req.method === 'HEAD' ? undefined : body),
      next,
    );
  };
}
