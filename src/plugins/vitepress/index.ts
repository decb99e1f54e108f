/**
 * @module `support-chat-kit/vitepress`: the assistant on a VitePress 1 site in one line,
 * `export default withSupportChat(defineConfig({…}))`. It adds the widget's script to every page
 * (served from the package under the site's base), mounts the proxy in `vitepress dev`, puts the
 * widget's search in the navbar's search place, routes results through VitePress's router and, at
 * build, copies the widget's files and writes `llms.txt` and `llms-full.txt`. VitePress is only
 * named in types here: nothing of it is loaded with this module.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HeadConfig, SiteConfig, UserConfig } from 'vitepress';
import { assetMiddleware, copyWidgetAssets, devProxyMiddleware, NAVIGATE_SCRIPT, normalizeBase, pageUrl, readPageFile, scriptAttributes, writeLlmsFiles, type LlmsPage, type SupportChatPluginOptions } from '../shared/index.js';

export type { SupportChatPluginOptions } from '../shared/index.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
type Alias = { find: string | RegExp; replacement: string };

/** The navbar's search button that replaces VitePress's (see navbar-search.ts). */
const NAVBAR_SEARCH = fileURLToPath(new URL('./navbar-search.js', import.meta.url));

/** The route of a page file (`guide/install.md`) under `base`, as VitePress serves it. */
export function routeOf(page: string, base: string, cleanUrls: boolean): string {
  const stem = page.slice(0, -'.md'.length);
  if (stem === 'index') return base;
  if (stem.endsWith('/index')) return `${base}${stem.slice(0, -'index'.length)}`;
  return `${base}${stem}${cleanUrls ? '' : '.html'}`;
}

/** The site's pages for the llms files, in VitePress's order, each at the route it is served from. */
export function vitepressPages(siteConfig: Pick<SiteConfig, 'pages' | 'srcDir' | 'rewrites' | 'site' | 'cleanUrls' | 'sitemap'>): LlmsPage[] {
  const pages: LlmsPage[] = [];
  for (const page of siteConfig.pages) {
    const file = join(siteConfig.srcDir, page);
    // Pages of dynamic routes have no file of their own.
    if (!existsSync(file)) continue;
    const route = routeOf(siteConfig.rewrites.map[page] ?? page, siteConfig.site.base, siteConfig.cleanUrls ?? false);
    const read = readPageFile(file, pageUrl(siteConfig.sitemap?.hostname, route), page);
    if (read) pages.push(read);
  }
  return pages;
}

/** The dev server's part: the proxy and the widget's files, before VitePress's own handlers. */
function devPlugin(base: string, options: SupportChatPluginOptions) {
  return {
    name: 'support-chat-kit:vitepress',
    configureServer(server: { config: { root: string }; middlewares: { use(fn: Middleware): void } }) {
      // `.env` is where `init` ran: the working directory, else the site's folder or one above it.
      const dirs = options.envDir ? [options.envDir] : [process.cwd(), server.config.root];
      server.middlewares.use(devProxyMiddleware(dirs, options.endpoint));
      server.middlewares.use(assetMiddleware(base));
    },
  };
}

/**
 * The site's config with the assistant added.
 *
 * @example
 * import { defineConfig } from 'vitepress';
 * import { withSupportChat } from 'support-chat-kit/vitepress';
 * export default withSupportChat(defineConfig({ title: 'My docs' }));
 */
export function withSupportChat<C extends UserConfig<never>>(config: C, options: SupportChatPluginOptions = {}): C {
  const base = normalizeBase(config.base);
  const head: HeadConfig[] = [...(config.head ?? []), ['script', { ...scriptAttributes(base, options), async: '' }], ['script', {}, NAVIGATE_SCRIPT]];
  const vite = { ...(config.vite ?? {}) } as Record<string, unknown> & { plugins?: unknown[]; resolve?: { alias?: Alias[] | Record<string, string> } };
  vite.plugins = [...(vite.plugins ?? []), devPlugin(base, options)];
  if (!options.keepSearch) {
    const alias = vite.resolve?.alias;
    const aliases: Alias[] = Array.isArray(alias) ? [...alias] : Object.entries(alias ?? {}).map(([find, replacement]) => ({ find, replacement }));
    // VitePress's documented way to replace one of its theme's components.
    aliases.unshift({ find: /^.*\/VPNavBarSearch\.vue$/, replacement: NAVBAR_SEARCH });
    vite.resolve = { ...vite.resolve, alias: aliases };
  }
  const userBuildEnd = config.buildEnd;
  return {
    ...config,
    head,
    vite,
    async buildEnd(siteConfig: SiteConfig) {
      await userBuildEnd?.(siteConfig);
      await copyWidgetAssets(siteConfig.outDir);
      if (options.llmsTxt !== false) {
        await writeLlmsFiles(siteConfig.outDir, { title: siteConfig.site.title, description: siteConfig.site.description, pages: vitepressPages(siteConfig) });
      }
    },
  } as C;
}
