/**
 * @module A native `import()` for the Docusaurus plugin's entry. Docusaurus loads plugins through
 * jiti, which rewrites every `import` of the files it loads, dynamic ones too, into its own
 * `require` with default-export interop; through it `import { z } from 'zod'` finds no `z` and the
 * proxy fails to load. This file is loaded by Node's own `require` (`createRequire` in index.ts),
 * never by jiti, so the `import()` below is Node's and the modules it loads are plain ES modules.
 */
function nativeImport(specifier: string): Promise<unknown> {
  return import(specifier);
}

export = nativeImport;
