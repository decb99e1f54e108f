/** @module The import graph of the project's sources, for the architecture tests: which file imports which. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** The TypeScript sources under `dir`, declaration files left out. */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file's imports of other files in `files` (relative specifiers; `.js` names its `.ts`). */
export function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .flatMap((name) => {
        const base = resolve(dirname(file), name);
        return [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].filter((candidate) => known.has(candidate)).slice(0, 1);
      });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}
