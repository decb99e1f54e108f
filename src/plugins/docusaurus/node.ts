/**
 * @module The Docusaurus plugin's Node-only part: the dev server's proxy and widget files, and what
 * a build adds (the widget's files, llms.txt and llms-full.txt). The entry (index.ts) loads it with
 * Node's own `import()` when Docusaurus first needs it, not through Docusaurus's module loader.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { assetMiddleware, copyWidgetAssets, devProxyMiddleware, pageUrl, readPageFile, writeLlmsFiles, type LlmsPage, type SupportChatPluginOptions } from '../shared/index.js';

export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** What this plugin reads of the site. */
export interface DocusaurusContext {
  siteDir: string;
  baseUrl: string;
  siteConfig: { title: string; tagline?: string; url?: string };
}

/** A doc as the docs plugin loaded it. */
interface LoadedDoc {
  source: string;
  permalink: string;
  title: string;
  description?: string;
  unlisted?: boolean;
  draft?: boolean;
}

export interface LoadedPlugin {
  name: string;
  content?: unknown;
}

/** The docs of every docs plugin instance and version, each at its permalink; `@site/` sources resolved in `siteDir`. */
export function docusaurusPages(plugins: LoadedPlugin[], siteDir: string, site: string | undefined): LlmsPage[] {
  const pages: LlmsPage[] = [];
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (plugin.name !== 'docusaurus-plugin-content-docs') continue;
    const versions = (plugin.content as { loadedVersions?: { docs?: LoadedDoc[] }[] } | undefined)?.loadedVersions ?? [];
    for (const doc of versions.flatMap((version) => version.docs ?? [])) {
      if (doc.unlisted || doc.draft || seen.has(doc.permalink)) continue;
      seen.add(doc.permalink);
      const file = doc.source.startsWith('@site/') ? join(siteDir, doc.source.slice('@site/'.length)) : doc.source;
      if (!existsSync(file)) continue;
      const page = readPageFile(file, pageUrl(site, doc.permalink), doc.title);
      if (page) pages.push({ ...page, title: doc.title, ...(doc.description ? { description: doc.description } : {}) });
    }
  }
  return pages;
}

/** The dev server's middleware: the proxy at its endpoint, then the widget's files under `base`. */
export function devMiddleware(context: DocusaurusContext, base: string, options: SupportChatPluginOptions): Middleware {
  const proxy = devProxyMiddleware(options.envDir ? [options.envDir] : [process.cwd(), context.siteDir], options.endpoint);
  const assets = assetMiddleware(base);
  return (req, res, next) => proxy(req, res, (error) => (error ? next(error) : assets(req, res, next)));
}

/** After a build: the widget's files in `outDir`, and llms.txt/llms-full.txt unless turned off. */
export async function afterBuild(context: DocusaurusContext, options: SupportChatPluginOptions, outDir: string, plugins: LoadedPlugin[]): Promise<void> {
  await copyWidgetAssets(outDir);
  if (options.llmsTxt === false) return;
  const { title, tagline, url } = context.siteConfig;
  await writeLlmsFiles(outDir, { title, description: tagline, pages: docusaurusPages(plugins, context.siteDir, url) });
}
