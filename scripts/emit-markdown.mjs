// A Vite plugin for builds: the widget's Markdown parser (src/widget/markdown.ts) goes next to the
// bundle as dist/markdown.js, the module `loadMarkdown` imports on demand; the loader, written for the
// sources (`markdown.ts`), is pointed at it.
import { resolve } from 'node:path';
import { buildSync } from 'esbuild';

const source = resolve(import.meta.dirname, '../src/widget/markdown.ts');

export function emitMarkdown() {
  return {
    name: 'support-chat:emit-markdown',
    apply: 'build',
    transform(code, id) {
      if (!/[\\/]src[\\/]widget[\\/]render-markdown\.ts$/.test(id)) return null;
      // After TypeScript's transform the quotes may be double ones.
      const out = code.replace(/new URL\((['"])markdown\.ts\1, BASE\)/, "new URL('markdown.js', BASE)");
      if (out === code) this.error("src/widget/render-markdown.ts no longer loads `new URL('markdown.ts', BASE)`");
      return { code: out, map: null };
    },
    generateBundle() {
      const { outputFiles } = buildSync({ entryPoints: [source], bundle: true, write: false, format: 'esm', minify: true, target: 'es2021', charset: 'utf8', legalComments: 'none' });
      this.emitFile({ type: 'asset', fileName: 'markdown.js', source: outputFiles[0].text });
    },
  };
}
