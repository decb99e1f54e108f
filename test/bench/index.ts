/**
 * @module `npm run bench`: runs every `test/bench/*.bench.ts` (or those named on
 * the command line) and prints each one's tables. A bench module exports
 * `run(): Promise<BenchTable[]>`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printTable, type BenchTable } from './table.js';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();

for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run(): Promise<BenchTable[]> };
  console.log(`\n## ${file.replace('.bench.ts', '')}\n`);
  for (const table of await mod.run()) printTable(table);
}
process.exit(0);
