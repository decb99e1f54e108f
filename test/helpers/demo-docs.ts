/**
 * @module The user docs of `npm start`'s knowledge base, as scripts/start.mjs ingests them: every
 * page of docs/ but benchmarks.md (measurements for the project's developers, not an answer to a
 * visitor), under `/source/docs/`. A test of the demo's answers reads what the demo reads: with
 * benchmarks.md, a paragraph on what a query embedding costs answered "How much does it cost?".
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The pages of docs/ the demo ingests, as paths relative to the project's root. */
export const DEMO_DOCS: readonly string[] = readdirSync(join(import.meta.dirname, '../../docs'))
  .filter((name) => /\.mdx?$/.test(name) && name !== 'benchmarks.md')
  .map((name) => `docs/${name}`);
