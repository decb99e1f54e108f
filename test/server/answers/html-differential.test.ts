import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHtml } from '../../../src/server/knowledge/ingest/html.js';
import { withChrome } from '../../helpers/docs-site.js';

/**
 * Well-formed pages as docs sites publish them (Docusaurus-, VitePress- and MkDocs-shaped pages of
 * this project's own docs, and the knowledge-base fixture), read into the snapshot below before
 * the parser got its budget and its linear whitespace handling: what it reads of them must not change.
 */
const here = import.meta.dirname;
const pages: [string, string][] = [
  ...readdirSync(join(here, 'html-pages')).map((f): [string, string] => [f, readFileSync(join(here, 'html-pages', f), 'utf8')]),
  ['webhooks.html', readFileSync(join(here, '../../fixtures/kb/docs/webhooks.html'), 'utf8')],
  ['inline blanks', withChrome({ title: 'Blanks', html: '<p>foo<span> </span>bar <a href="/x"></a>baz<b>\n</b>qux <em><span> </span></em> end</p><table><tr><td></td><td><span></span></td><td>cell</td></tr></table>' }, ['/docs/'])],
];

describe('reading well-formed pages', () => {
  it('gives what it gave before the budget and the linear whitespace pass', async () => {
    const read = Object.fromEntries(pages.map(([name, html]) => [name, readHtml(html, { url: `https://docs.acme.test/${name}`, fallbackTitle: name })]));
    // The passage model is made from the same tree (and tested with the Markdown reader): the snapshot holds what the sections held before it.
    const withoutPassages = JSON.stringify(read, (key, value: unknown) => (key === 'passage' ? undefined : value), 1);
    await expect(withoutPassages).toMatchFileSnapshot('./__snapshots__/html-differential.json');
  });
});
