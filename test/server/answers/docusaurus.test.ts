/**
 * A Docusaurus site's `.md` pages are MDX, as Docusaurus reads them by default: their `import`
 * lines and JSX (`<img src={useBaseUrl(…)} />`) are syntax, never quoted as text. A folder that
 * is no Docusaurus site keeps CommonMark, and a page that is not valid MDX is read as Markdown.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { testDatabases } from '../../helpers/database.js';
import { testFolders } from '../../helpers/folders.js';

const database = testDatabases();
/** A site folder holding `files` (path → text). */
const site = testFolders('docusaurus-');

const INVOICES = [
  '---',
  'title: Download your invoices',
  '---',
  '',
  "import useBaseUrl from '@docusaurus/useBaseUrl';",
  '',
  'Paddle sends an invoice by email after each payment.',
  '',
  '<div class="browser">',
  "    <img alt=\"Download an invoice\" src={useBaseUrl('img/download-invoice.webp')} />",
  '</div>',
  '',
  'Each invoice can be downloaded from the list.',
].join('\n');

/** The text of each stored section of the folder `ingested`: what search and replies read. */
async function textOf(ingested: string): Promise<string> {
  const sql = await database();
  const engine = createAnswerEngine({ sql, llm: null, embedder: null });
  await engine.ingest('acme', [ingested], { baseUrl: 'https://docs.test/' });
  const rows = await sql.all<{ body: string; passage: string }>('SELECT body, passage FROM kb_sections ORDER BY id');
  return rows.map((row) => `${row.body}\n${row.passage}`).join('\n');
}

describe('a Docusaurus site', () => {
  it("reads its .md pages as MDX, ingested as the site or as its docs folder: no import line or JSX in the text", async () => {
    const root = site({ 'docusaurus.config.js': "export default { baseUrl: '/' };\n", 'docs/invoices.md': INVOICES });
    for (const ingested of [root, join(root, 'docs')]) {
      const text = await textOf(ingested);
      expect(text).toContain('Paddle sends an invoice by email after each payment.');
      expect(text).toContain('Each invoice can be downloaded from the list.');
      expect(text).not.toContain('import useBaseUrl');
      expect(text).not.toContain('useBaseUrl(');
    }
  });

  it('reads a page that is not valid MDX as Markdown, and a folder with no Docusaurus config as CommonMark', async () => {
    const broken = site({ 'docusaurus.config.js': 'export default {};\n', 'docs/limits.md': '# Limits\n\nA plan allows a < b {unclosed sites.\n' });
    expect(await textOf(join(broken, 'docs'))).toContain('A plan allows a < b {unclosed sites.');
    const plain = site({ 'docs/invoices.md': INVOICES });
    expect(await textOf(join(plain, 'docs'))).toContain("import useBaseUrl from '@docusaurus/useBaseUrl';");
  });
});
