// A Vite plugin for the widget's builds: the widget's private members (TypeScript `private _name`,
// the only properties named `_` + a lowercase letter in the bundle; Lit's own internals are `_$…`)
// get short names across the whole chunk. Safe because nothing reads them by a string name and
// none is stored: the bundle is one chunk, renamed at once.
import { transform } from 'esbuild';

export function manglePrivateMembers() {
  return {
    name: 'support-chat:mangle-private-members',
    apply: 'build',
    async renderChunk(code) {
      const result = await transform(code, { mangleProps: /^_[a-z]/, sourcemap: true, loader: 'js' });
      return { code: result.code, map: result.map };
    },
  };
}
