/**
 * The Markdown `read_page` answers, from the passage model stored at ingest: headings at their
 * depth, blocks in page order, code fenced so it cannot close early, bounded, and cut with a line
 * that says so.
 */
import { describe, expect, it } from 'vitest';
import { parseFile } from '../../src/server/knowledge/ingest/parse.js';
import { passageOfMarkdown } from '../../src/server/knowledge/ingest/stored-passage.js';
import type { IndexedPage } from '../../src/server/knowledge/store/pages.js';
import { PAGE_MAX_CHARS, pageMarkdown } from '../../src/server/mcp/page.js';

const URL_ = 'https://docs.acme.example/guide';
const section = (title: string, context: string, body: string, code = '', lang = '') => ({
  title,
  context,
  url: `${URL_}#${title.toLowerCase()}`,
  kind: 'doc' as const,
  passage: passageOfMarkdown(body, code, 'en', lang),
});

describe('pageMarkdown', () => {
  it('puts each section under a heading as deep as its place on the page, and fences its code', () => {
    const page: IndexedPage = {
      url: URL_,
      title: 'Guide',
      sections: [
        { ...section('Guide', 'Guide', 'The opening.'), url: URL_ },
        section('Install', 'Guide', 'Run it.', 'npm i acme', 'sh'),
        section('Windows', 'Guide › Install', 'Use the installer.'),
      ],
    };
    expect(pageMarkdown(page)).toEqual({
      markdown: `# Guide\n\nSource: ${URL_}\n\nThe opening.\n\n## Install\n\nRun it.\n\n\`\`\`sh\nnpm i acme\n\`\`\`\n\n### Windows\n\nUse the installer.`,
      truncated: false,
    });
  });

  it('fences code longer than any run of backticks inside it', () => {
    const page: IndexedPage = { url: URL_, title: 'Guide', sections: [section('Fences', 'Guide', '', 'a ````` b', 'md')] };
    expect(pageMarkdown(page).markdown).toContain('``````md\na ````` b\n``````');
  });

  it('cuts a long page at the bound with a line saying so, never inside a surrogate pair, whatever the page holds', () => {
    // The worst input: 300,000 emoji (600,000 code units) and a code block of one million backticks.
    const page: IndexedPage = { url: URL_, title: 'Guide', sections: [section('Long', 'Guide', '😀'.repeat(300_000), '`'.repeat(1_000_000))] };
    const { markdown, truncated } = pageMarkdown(page);
    expect(truncated).toBe(true);
    expect(markdown.length).toBeLessThanOrEqual(PAGE_MAX_CHARS);
    expect(markdown).toMatch(/\n\n\[The page was cut here: it has [\d,]+ characters, 100,000 are shown\.\]$/);
    expect(markdown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("keeps a section's blocks in page order as ingest stored them: code between its paragraphs, a quote marked, a list whole", () => {
    const source = [
      '# Guide',
      '',
      '## Install',
      '',
      'Install the CLI first:',
      '',
      '```sh',
      'npm i acme',
      '```',
      '',
      'Then sign in:',
      '',
      '1. Run `acme login`.',
      '2. Paste the token.',
      '',
      '> Tokens expire after a day.',
    ].join('\n');
    const parsed = parseFile(source, 'guide.md', 'https://docs.acme.example/', URL_)!;
    const page: IndexedPage = { url: URL_, title: parsed.title, sections: parsed.sections.map((s) => ({ ...s, passage: s.passage! })) };
    expect(pageMarkdown(page).markdown).toBe(
      `# Guide\n\nSource: ${URL_}\n\n## Install\n\nInstall the CLI first:\n\n\`\`\`sh\nnpm i acme\n\`\`\`\n\nThen sign in:\n\n1. Run \`acme login\`.\n2. Paste the token.\n\n> Tokens expire after a day.`,
    );
  });
});
