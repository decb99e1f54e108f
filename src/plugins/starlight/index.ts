/**
 * @module `support-chat-kit/starlight`: the assistant on a Starlight site in one line,
 * `starlight({ plugins: [supportChat()] })`. A Starlight plugin: it adds the widget's script to
 * every page (served from the package under the site's base), replaces the header's search with
 * the widget's (Pagefind off, unless `keepSearch`), and adds an Astro integration that mounts the
 * proxy in `astro dev` and, at build, copies the widget's files and writes `llms.txt` and
 * `llms-full.txt`. Astro and Starlight are not imported: their hooks are typed here by what this
 * plugin uses of them.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetMiddleware, copyWidgetAssets, devProxyMiddleware, NAVIGATE_SCRIPT, normalizeBase, pageUrl, readPageFile, scriptAttributes, writeLlmsFiles, type LlmsPage, type SupportChatPluginOptions } from '../shared/index.js';

export type { SupportChatPluginOptions } from '../shared/index.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
type HeadEntry = { tag: string; attrs?: Record<string, string | boolean | undefined>; content?: string };

/** What this plugin reads of Astro's config. */
interface AstroConfigSubset {
  root: URL;
  srcDir: URL;
  base: string;
  site?: string | undefined;
}

/** What this plugin reads and changes of Starlight's config. */
interface StarlightConfigSubset {
  title?: string | Record<string, string>;
  description?: string;
  head?: HeadEntry[];
  components?: Record<string, string>;
  pagefind?: unknown;
}

interface AstroIntegration {
  name: string;
  hooks: {
    'astro:server:setup'?: (options: { server: { middlewares: { use(fn: Middleware): void } } }) => void;
    'astro:build:done'?: (options: { dir: URL; pages: { pathname: string }[] }) => Promise<void>;
  };
}

/** A Starlight plugin, as `starlight({ plugins })` takes it. */
export interface StarlightPlugin {
  name: string;
  hooks: {
    'config:setup': (context: {
      config: StarlightConfigSubset;
      updateConfig(config: Partial<StarlightConfigSubset>): void;
      addIntegration(integration: AstroIntegration): void;
      astroConfig: AstroConfigSubset;
    }) => void;
  };
}

/** The header search that opens the widget's (see client/Search.astro). */
const SEARCH_COMPONENT = fileURLToPath(new URL('./client/Search.astro', import.meta.url));

/** Every Markdown page of the docs collection, by the path Starlight serves it at (`guide/install/`, `` for the home page). */
export function docsPages(docsDir: string): Map<string, string> {
  const pages = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else if (name.endsWith('.md') || name.endsWith('.mdx')) {
        const stem = relative(docsDir, file).split(sep).join('/').replace(/\.mdx?$/, '').toLowerCase();
        const path = stem === 'index' ? '' : stem.endsWith('/index') ? `${stem.slice(0, -'index'.length)}` : `${stem}/`;
        pages.set(path, file);
      }
    }
  };
  if (existsSync(docsDir)) walk(docsDir);
  return pages;
}

/** The built pages that come from the docs collection, each at its URL. */
export function starlightPages(docsDir: string, built: { pathname: string }[], base: string, site: string | undefined): LlmsPage[] {
  const sources = docsPages(docsDir);
  const pages: LlmsPage[] = [];
  for (const { pathname } of built) {
    const file = sources.get(pathname) ?? sources.get(pathname.endsWith('/') ? pathname : `${pathname}/`);
    if (!file) continue;
    const page = readPageFile(file, pageUrl(site, `${base}${pathname}`), pathname || 'Home');
    if (page) pages.push(page);
  }
  return pages;
}

/**
 * The plugin.
 *
 * @example
 * import starlight from '@astrojs/starlight';
 * import supportChat from 'support-chat-kit/starlight';
 * starlight({ title: 'My docs', plugins: [supportChat()] })
 */
export function supportChat(options: SupportChatPluginOptions = {}): StarlightPlugin {
  return {
    name: 'support-chat-kit',
    hooks: {
      'config:setup'({ config, updateConfig, addIntegration, astroConfig }) {
        const base = normalizeBase(astroConfig.base);
        const root = fileURLToPath(astroConfig.root);
        const script: HeadEntry = { tag: 'script', attrs: { ...scriptAttributes(base, options), async: true } };
        updateConfig({
          head: [...(config.head ?? []), script, { tag: 'script', content: NAVIGATE_SCRIPT }],
          ...(options.keepSearch ? {} : { components: { ...config.components, Search: SEARCH_COMPONENT }, pagefind: false }),
        });
        const title = typeof config.title === 'string' ? config.title : Object.values(config.title ?? {})[0] ?? 'Docs';
        addIntegration({
          name: 'support-chat-kit',
          hooks: {
            'astro:server:setup'({ server }) {
              server.middlewares.use(devProxyMiddleware(options.envDir ? [options.envDir] : [process.cwd(), root], options.endpoint));
              // Astro's dev server takes the base off each request's URL before any other middleware sees it.
              server.middlewares.use(assetMiddleware('/'));
            },
            async 'astro:build:done'({ dir, pages }) {
              const outDir = fileURLToPath(dir);
              await copyWidgetAssets(outDir);
              if (options.llmsTxt === false) return;
              const docsDir = join(fileURLToPath(astroConfig.srcDir), 'content', 'docs');
              await writeLlmsFiles(outDir, { title, description: config.description, pages: starlightPages(docsDir, pages, base, astroConfig.site) });
            },
          },
        });
      },
    },
  };
}

export default supportChat;
