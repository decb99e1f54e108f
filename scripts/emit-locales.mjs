// A Vite plugin for builds: each built-in language other than English (src/widget/locales/<code>.ts)
// goes next to the bundle as dist/locales/<code>.js, the module `loadLocale` imports on demand; the
// loader, written for the sources (`locales/${code}.ts`), is pointed at them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { transformSync } from 'esbuild';

const dir = resolve(import.meta.dirname, '../src/widget/locales');

export function emitLocales() {
  return {
    name: 'support-chat:emit-locales',
    apply: 'build',
    transform(code, id) {
      if (!/[\\/]src[\\/]widget[\\/]locales\.ts$/.test(id)) return null;
      const out = code.replace('`locales/${code}.ts`', '`locales/${code}.js`');
      if (out === code) this.error('src/widget/locales.ts no longer loads `locales/${code}.ts`');
      return { code: out, map: null };
    },
    generateBundle() {
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
        const { code } = transformSync(readFileSync(join(dir, file), 'utf8'), { loader: 'ts', format: 'esm', minify: true, target: 'es2021', charset: 'utf8' });
        this.emitFile({ type: 'asset', fileName: `locales/${file.replace(/\.ts$/, '.js')}`, source: code });
      }
    },
  };
}
