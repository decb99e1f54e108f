// A Vite plugin for builds: a part of the widget loaded on demand (the Markdown parser, the search)
// goes next to the bundle as its own module, dist/<name>.js, and its loader, written for the sources
// (`new URL('<name>.ts', BASE)`), is pointed at it.
//
// `lit` in such a module is a stand-in that makes the template objects Lit's `html` makes (in
// Lit 3's production build, `{_$litType$: 1, strings, values}`; `nothing` is `Symbol.for`): the
// bundle's own Lit renders them. A second Lit would also create a second `lit-html` Trusted Types
// policy, which a strict CSP (`trusted-types lit-html`) refuses.
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { minifyCssTemplates, shortenPrivateProperties } from './minify-lit-css.mjs';

const LIT_STAND_IN = "export const html=(strings,...values)=>({['_$litType$']:1,strings,values});export const nothing=Symbol.for('lit-nothing');";

const litStandIn = {
  name: 'lit-stand-in',
  setup(b) {
    b.onResolve({ filter: /^lit$/ }, () => ({ path: 'lit', namespace: 'lit-stand-in' }));
    b.onLoad({ filter: /^lit$/, namespace: 'lit-stand-in' }, () => ({ contents: LIT_STAND_IN, loader: 'js' }));
  },
};

// Styles in a module read the panel's private custom properties under the short names the bundle's
// styles give them (scripts/minify-lit-css.mjs).
const bundleStyles = resolve(import.meta.dirname, '../src/widget/support-chat.styles.ts');
const privateProperties = {
  name: 'private-properties',
  setup(b) {
    b.onLoad({ filter: /\.styles\.ts$/ }, ({ path }) => ({
      contents: shortenPrivateProperties(readFileSync(path, 'utf8'), minifyCssTemplates(readFileSync(bundleStyles, 'utf8'))),
      loader: 'ts',
    }));
  },
};

/**
 * @param {string} name the module emitted, <name>.js
 * @param {string} loader the file (under src/widget) whose `new URL('<entry>.ts', BASE)` loads it
 * @param {string} [entry] its source, src/widget/<entry>.ts (default: <name>)
 * @param {{ manglePrivate?: boolean }} [options] `manglePrivate`: its private members (`private _name`,
 *   read by no other module) get short names, as in the bundle (scripts/mangle-private.mjs)
 */
export function emitModule(name, loader, entry = name, options = {}) {
  const source = resolve(import.meta.dirname, `../src/widget/${entry}.ts`);
  const from = `new URL('${entry}.ts', BASE)`;
  return {
    name: `support-chat:emit-${name}`,
    apply: 'build',
    transform(code, id) {
      if (!id.replaceAll('\\', '/').endsWith(`/src/widget/${loader}`)) return null;
      // After TypeScript's transform the quotes may be double ones.
      const out = code.replace(from, `new URL('${name}.js', BASE)`).replace(from.replaceAll("'", '"'), `new URL('${name}.js', BASE)`);
      if (out === code) this.error(`src/widget/${loader} no longer loads \`${from}\``);
      return { code: out, map: null };
    },
    async generateBundle() {
      const { outputFiles } = await build({
        entryPoints: [source],
        bundle: true,
        write: false,
        format: 'esm',
        minify: true,
        target: 'es2021',
        charset: 'utf8',
        legalComments: 'none',
        plugins: [litStandIn, privateProperties],
        ...(options.manglePrivate ? { mangleProps: /^_[a-z]/ } : {}),
      });
      this.emitFile({ type: 'asset', fileName: `${name}.js`, source: outputFiles[0].text });
    },
  };
}
