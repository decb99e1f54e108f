/**
 * @module `support-chat-kit/docusaurus`: the assistant on a Docusaurus 3 site in one line,
 * `plugins: ['support-chat-kit/docusaurus']` (options as a second element). It adds the widget's
 * script to every page (served from the package under the site's `baseUrl`), mounts the proxy in
 * `docusaurus start` (webpack's dev server, through `configureWebpack`), puts the widget's search
 * in the navbar's `SearchBar` place and routes its links through Docusaurus's router (theme
 * components in client/), and after a build copies the widget's files and writes `llms.txt` and
 * `llms-full.txt` from the docs. Docusaurus is not imported: what this plugin uses of it is typed here.
 *
 * Docusaurus loads this file through jiti, which compiles it and everything it imports to CommonJS,
 * `import()` included, and hands a package's default export where a named one is asked for (the
 * proxy's `import { z } from 'zod'` gets undefined). So this entry imports only Node's built-ins
 * and the plugin's options; the proxy and the build's work (node.ts) are loaded when first needed
 * with Node's own `import()`, from a CommonJS file that Node's `require` loads (native-import.cts),
 * which jiti never sees.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { normalizeBase, scriptAttributes, type SupportChatPluginOptions } from '../shared/options.js';
import type { DocusaurusContext, LoadedPlugin, Middleware } from './node.js';
import type nativeImportType from './native-import.cjs';

export type { SupportChatPluginOptions } from '../shared/options.js';
export type { DocusaurusContext } from './node.js';

/** Theme components: the router's hook (Root) always, the navbar's search too unless the site keeps its own. */
const THEME = fileURLToPath(new URL('./client/theme', import.meta.url));
const THEME_WITH_SEARCH = fileURLToPath(new URL('./client/theme-search', import.meta.url));

let nodePart: Promise<typeof import('./node.js')> | undefined;

/** node.ts as an ES module loaded by Node, once. */
function loadNodePart(): Promise<typeof import('./node.js')> {
  if (!nodePart) {
    const nativeImport = createRequire(import.meta.url)('./native-import.cjs') as typeof nativeImportType;
    nodePart = nativeImport(new URL('./node.js', import.meta.url).href) as Promise<typeof import('./node.js')>;
  }
  return nodePart;
}

/**
 * The plugin, as Docusaurus calls it.
 *
 * @example
 * // docusaurus.config.js
 * export default { plugins: [['support-chat-kit/docusaurus', { keepSearch: true }]] };
 */
export default function supportChatPlugin(context: DocusaurusContext, options: SupportChatPluginOptions = {}) {
  const base = normalizeBase(context.baseUrl);
  return {
    name: 'support-chat-kit',
    getThemePath: () => (options.keepSearch ? THEME : THEME_WITH_SEARCH),
    injectHtmlTags: () => ({ headTags: [{ tagName: 'script', attributes: { ...scriptAttributes(base, options), async: true } }] }),
    configureWebpack(_config: unknown, isServer: boolean) {
      if (isServer) return {};
      return {
        devServer: {
          // Docusaurus merges this with its own setupMiddlewares and joins the lists both return:
          // the proxy and the widget's files go on the app directly, ahead of the dev server's own.
          setupMiddlewares(_middlewares: unknown[], devServer: { app?: { use(fn: Middleware): void } }) {
            const middleware = loadNodePart().then((node) => node.devMiddleware(context, base, options));
            devServer.app?.use((req, res, next) => void middleware.then((run) => run(req, res, next), next));
            return [];
          },
        },
      };
    },
    async postBuild({ outDir, plugins }: { outDir: string; plugins: LoadedPlugin[] }) {
      const node = await loadNodePart();
      await node.afterBuild(context, options, outDir, plugins);
    },
  };
}
