/**
 * @module Whether a folder of Markdown is a Docusaurus site's content, whose `.md` pages Docusaurus
 * reads as MDX (its default `markdown.format`): their `import` lines and JSX (`<img
 * src={useBaseUrl(…)} />`) are syntax, not text. The folder ingested is the site (it holds
 * `docusaurus.config.*`), or a folder of it (`docs/`, `blog/`), whose site is the folder above.
 * A page that is not valid MDX is read as Markdown (see ingest/markdown.ts `tree`).
 */
import { dirname, join } from 'node:path';
import { exists } from './exists.js';

/** The names Docusaurus looks for its configuration under. */
const CONFIG_FILES = ['docusaurus.config.js', 'docusaurus.config.mjs', 'docusaurus.config.cjs', 'docusaurus.config.ts', 'docusaurus.config.mts', 'docusaurus.config.cts'];

/** Whether `root` or the folder above it holds a Docusaurus configuration. */
export async function isDocusaurusContent(root: string): Promise<boolean> {
  for (const site of [root, dirname(root)]) {
    for (const name of CONFIG_FILES) if (await exists(join(site, name), 'file')) return true;
  }
  return false;
}
