/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { playwright } from '@vitest/browser-playwright';
import { findChromium, chromiumArgs } from './scripts/chromium.mjs';
import { minifyLitCss } from './scripts/minify-lit-css.mjs';
import { manglePrivateMembers } from './scripts/mangle-private.mjs';
import { emitLocales } from './scripts/emit-locales.mjs';
import { emitModule } from './scripts/emit-module.mjs';
import { testPostgresUrl } from './test/helpers/postgres-url.js';

/**
 * `vite build` makes dist/support-chat.js (ES module); `vite build --mode iife`
 * makes dist/support-chat.iife.js (a classic script that registers the element).
 * Both bundle Lit so a page needs nothing else; both load Spanish, French and Arabic on demand from
 * dist/locales/<code>.js next to them, the Markdown parser from dist/markdown.js and the search from
 * dist/search.js.
 */
export default defineConfig(({ mode, command }) => ({
  // `--mode iife` is not "production", so say it: Lit's production build, not its dev-mode one.
  ...(command === 'build' ? { resolve: { conditions: ['module', 'browser', 'production'] }, define: { 'process.env.NODE_ENV': '"production"' } } : {}),
  plugins: [minifyLitCss(), manglePrivateMembers(), emitLocales(), emitModule('markdown', 'render-markdown.ts', 'markdown-module', { manglePrivate: true }), emitModule('search', 'load-search.ts')],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2021',
    // terser compresses this bundle about 0.5 KB (gzipped) smaller than esbuild. Two passes catch what
    // the first pass's inlining exposes; Safari 10 workarounds are moot for an ES2021 target.
    minify: 'terser',
    terserOptions: { ecma: 2020, safari10: false, compress: { passes: 2 } },
    sourcemap: true,
    lib: {
      entry: mode === 'iife' ? 'src/widget/auto.ts' : 'src/widget/index.ts',
      name: 'SupportChat',
      formats: mode === 'iife' ? ['iife'] : ['es'],
      fileName: () => (mode === 'iife' ? 'support-chat.iife.js' : 'support-chat.js'),
    },
  },
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/widget/**', 'test/e2e/**', 'test/scale/**', 'node_modules/**'],
          // Widget code that must also load where there is no DOM is tested in Node too.
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The server suite again, every database on PostgreSQL (a fresh schema per server).
          name: 'node-postgres',
          environment: 'node',
          include: ['test/server/**/*.test.ts'],
          globalSetup: ['test/helpers/postgres-setup.ts'],
          env: { SUPPORT_CHAT_TEST_DATABASE_URL: testPostgresUrl },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'scale',
          environment: 'node',
          // Load and scale, one file at a time (a latency bound times the server, not a neighbouring file):
          // the exhaustion probe, and real `serve` processes on PostgreSQL and Redis (skipped, and said
          // so, when either does not answer).
          include: ['test/scale/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/widget/**/*.test.ts'],
          // The browser is looked up only when this project runs; none found: one line, exit 1.
          globalSetup: ['test/helpers/require-browser.ts', 'test/widget/global-setup.ts', 'test/widget/identity-setup.ts'],
          testTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: { executablePath: findChromium() ?? undefined, args: chromiumArgs },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/helpers/require-browser.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
}));
