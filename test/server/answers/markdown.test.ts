import { describe, expect, it } from 'vitest';
import { parseMarkdown } from '../../../src/server/knowledge/ingest/markdown.js';
import { slug } from '../../../src/server/knowledge/ingest/slug.js';
import { slugify } from '../../../src/server/knowledge/text/text.js';
import { leastTime as time } from '../../helpers/least-time.js';

const parse = (text: string) => parseMarkdown(text, { url: 'https://docs.example.com/page', fallbackTitle: 'page' });

describe('Markdown sections', () => {
  it('keeps a `# line` after a titled page’s H2 sections as text of the current section', () => {
    const page = parse(`---
title: Ticket routing
url: https://docs.example.com/routing
---

# Ticket routing

## Prompting Claude

Build the prompt like this:

# Create an instance of the client
client = Client()

## Evaluation

Measure accuracy.
`);
    expect(page.sections.map((s) => s.url)).toEqual(['https://docs.example.com/routing#prompting-claude', 'https://docs.example.com/routing#evaluation']);
    expect(page.sections[0]!.body).toContain('Create an instance of the client');
  });

  it('still cuts sections at every H1 of a page whose structure is H1 headings', () => {
    const page = parse('# One\n\nFirst.\n\n# Two\n\nSecond.\n');
    expect(page.sections.map((s) => s.title)).toEqual(['One', 'Two']);
    expect(page.title).toBe('One');
    const untitled = parse('Intro.\n\n# One\n\nFirst.\n\n# Two\n\nSecond.\n');
    expect(untitled.sections.map((s) => s.url)).toEqual(['https://docs.example.com/page', 'https://docs.example.com/page#one', 'https://docs.example.com/page#two']);
  });
});

const mdx = (text: string) => parseMarkdown(text, { url: 'https://docs.example.com/page', fallbackTitle: 'page', mdx: true });
const all = (page: ReturnType<typeof parse>) => page.sections.map((s) => `${s.title}\n${s.body}\n${s.code}`).join('\n');

describe('MDX, read by micromark', () => {
  it('keeps import and export lines inside fenced code, and generics in code', () => {
    const page = mdx("import { Tabs } from 'nextra/components';\n\n# Fetching\n\n```ts\nimport { client } from './client';\nexport async function get(): Promise<Response> {\n  return client.get();\n}\n```\n");
    expect(page.sections[0]!.code).toBe("import { client } from './client';\nexport async function get(): Promise<Response> {\n  return client.get();\n}");
    expect(all(page)).not.toContain('nextra');
  });

  it('drops a multi-line import whole', () => {
    const page = mdx("import {\n  Card,\n  Cards,\n} from '@/components/card';\n\n# Cards\n\nPick a plan.\n");
    expect(page.sections.map((s) => s.body)).toEqual(['Pick a plan.']);
  });

  it('keeps a component’s title attribute as a bold line over its text', () => {
    const page = mdx('# FAQ\n\n<AccordionGroup>\n  <Accordion title="Can I self-host?">\n    Yes: run `npx support-chat serve`.\n  </Accordion>\n</AccordionGroup>\n\n<Card title="Rate limits" href="/limits">60 requests a minute.</Card>\n');
    expect(page.sections[0]!.body).toBe('**Can I self-host?**\n\nYes: run `npx support-chat serve`.\n\n**Rate limits** 60 requests a minute.');
  });

  it('makes sections of headings indented inside components', () => {
    const page = mdx('# Install\n\n<Tabs>\n  <Tab title="npm">\n    ## Install with npm\n\n    Run `npm i acme`.\n  </Tab>\n</Tabs>\n');
    expect(page.sections.map((s) => [s.url, s.body])).toEqual([
      ['https://docs.example.com/page', '**npm**'],
      ['https://docs.example.com/page#install-with-npm', 'Run `npm i acme`.'],
    ]);
  });

  it('reads `{#id}` after a heading as its anchor', () => {
    expect(mdx('# Page\n\n## Rate limits {#limits}\n\nSixty.\n').sections[0]!.url).toBe('https://docs.example.com/page#limits');
  });

  it('reads a page that is not valid MDX as Markdown rather than failing', () => {
    expect(mdx('# Math\n\nWhen 1 < x and y > 2, retry.\n').sections[0]!.body).toBe('When 1 < x and y > 2, retry.');
  });
});

describe('Markdown, read by micromark', () => {
  it('keeps the first line of a bare fence', () => {
    expect(parse('# Run\n\n```\nnpm start\nopen http://localhost:8080\n```\n').sections[0]!.code).toBe('npm start\nopen http://localhost:8080');
  });

  it('keeps autolinks and links as Markdown, a relative link resolved against the page', () => {
    expect(parse('# Help\n\nEmail us at <support@acme.com> or see <https://status.acme.com>.\n').sections[0]!.body).toBe('Email us at <support@acme.com> or see <https://status.acme.com>.');
    expect(parse('# Help\n\nSee [the limits](limits#per-minute) or\n[our status page](https://status.acme.com/(eu)).\n').sections[0]!.body).toBe(
      'See [the limits](https://docs.example.com/limits#per-minute) or\n[our status page](https://status.acme.com/%28eu%29).',
    );
    // A page read from a folder has no address to resolve against: its relative links read as their text.
    expect(parseMarkdown('# Help\n\nSee [the limits](limits.md).\n', { url: 'docs/help.md', fallbackTitle: 'help' }).sections[0]!.body).toBe('See the limits.');
  });

  it('writes a list item\'s paragraph on one line, and indents a later paragraph of the item under its marker', () => {
    const page = parse('# Steps\n\n- Open Settings\n  and choose Sync.\n\n  Then press Connect.\n- Done.\n');
    expect(page.sections[0]!.body).toBe('- Open Settings and choose Sync.\n  Then press Connect.\n- Done.');
  });

  it('names a page without a title of its own after its file, as words', () => {
    expect(parseMarkdown('Some text.\n', { url: 'https://docs.example.com/getting-started', fallbackTitle: 'getting-started' }).title).toBe('Getting started');
    expect(parseMarkdown('Some text.\n', { url: 'https://docs.example.com/v', fallbackTitle: 'Version history' }).title).toBe('Version history');
  });

  it('keeps `<` and `>` in prose, and decodes entities', () => {
    expect(parse('# Math\n\nWhen 1 < x and y > 2, caf&eacute; &mdash; &#x2014; &amp;.\n').sections[0]!.body).toBe('When 1 < x and y > 2, café — — &.');
  });

  it('makes sections of setext headings', () => {
    const page = parse('Guide\n=====\n\nIntro.\n\nLimits\n------\n\nSixty a minute.\n');
    expect(page.title).toBe('Guide');
    expect(page.sections.map((s) => [s.url, s.body])).toEqual([
      ['https://docs.example.com/page', 'Intro.'],
      ['https://docs.example.com/page#limits', 'Sixty a minute.'],
    ]);
  });

  it('keeps `#` at the end of a heading’s words', () => {
    const section = parse('# SDKs\n\n## Using C#\n\nInstall the NuGet package.\n').sections[0]!;
    expect([section.title, section.url]).toEqual(['Using C#', 'https://docs.example.com/page#using-c']);
  });

  it('keeps a fence inside a longer fence as code, and a heading inside it as code', () => {
    const page = parse('# Snippets\n\n````md\n```bash\n## Install\nnpm i acme\n```\n````\n\nAfter.\n');
    expect(page.sections).toHaveLength(1);
    expect(page.sections[0]!.code).toBe('```bash\n## Install\nnpm i acme\n```');
    expect(page.sections[0]!.body).toBe('After.');
  });

  it('reads front matter as YAML', () => {
    const page = parse('---\ntitle: >-\n  Rate limits and\n  quotas\nurl: "https://docs.example.com/limits"\n---\n\n## Per minute\n\nSixty.\n');
    expect(page.title).toBe('Rate limits and quotas');
    expect(page.sections[0]!.url).toBe('https://docs.example.com/limits#per-minute');
  });

  it('keeps tables as Markdown tables and lists as lists', () => {
    const page = parse('# Plans\n\n| Plan | Price |\n| :-- | --: |\n| Pro | $10 |\n\n- one\n- two\n  1. nested\n');
    expect(page.sections[0]!.body).toBe('| Plan | Price |\n| --- | --- |\n| Pro | $10 |\n\n- one\n- two\n  1. nested');
  });

  it("reads a table cell's line-breaking tags as a space and its wiki links as their labels", () => {
    const page = parse('# Search\n\n| Operator | Description |\n| --- | --- |\n| `task:` | Find a [[Basic syntax#Tasks\\|task]].<p/>Example: `task:call`.<br>Also <b>bold</b>er. |\n');
    const [table] = page.sections[0]!.passage!.blocks;
    expect(table!.text.split('\n')[2]).toBe('| `task:` | Find a task. Example: `task:call`. Also bolder. |');
    expect(table!.plain).toContain('Find a task. Example: task:call. Also bolder.');
  });

  it('keeps a table longer than a block whole, its rows padded to one width as formatters write them', () => {
    const rows = Array.from({ length: 30 }, (_, i) => `| \`op${i}:\` | Finds text in field ${i}.${' '.repeat(200)}|`);
    const page = parse(`# Search\n\n| Operator | Description${' '.repeat(200)}|\n| --- | ---${' '.repeat(208)}|\n${rows.join('\n')}\n\nAfter the table.\n`);
    const blocks = page.sections[0]!.passage!.blocks;
    expect(blocks.map((b) => b.kind)).toEqual(['table', 'paragraph']);
    expect(blocks[0]!.text.split('\n')).toHaveLength(32);
  });

  it('makes GitHub’s anchors, repeated headings numbered', () => {
    const page = parse('# P\n\n## Set up `npx` — fast!\n\na\n\n## Set up `npx` — fast!\n\nb\n');
    expect(page.sections.map((s) => s.url.split('#')[1])).toEqual(['set-up-npx--fast', 'set-up-npx--fast-1']);
  });
});

describe('Docusaurus admonitions (container directives)', () => {
  const page = `# Goals

Send key:value pairs to localhost:8080. Note:abc, a::b and :name stay as written.

:::tip Would you like to group your pages at any time?
You can do so by using [the "Filter" button](filters) on the top of your dashboard
:::

:::note
Text
:::

:::tip[Not what you need?]
Ask us.
:::

::::info Outer [draft] title
Outer text.

:::warning
- one
- two

\`\`\`js
run()
\`\`\`
:::
::::

\`\`\`md
:::tip Shown as code
:::
\`\`\`

:::important Last one
Never closed.
`;
  const body =
    'Send key:value pairs to localhost:8080. Note:abc, a::b and :name stay as written.\n\n' +
    '**Would you like to group your pages at any time?**\n\nYou can do so by using [the "Filter" button](https://docs.example.com/filters) on the top of your dashboard\n\n' +
    'Text\n\n' +
    '**Not what you need?**\n\nAsk us.\n\n' +
    '**Outer [draft] title**\n\nOuter text.\n\n- one\n- two\n\n' +
    '**Last one**\n\nNever closed.';

  it('reads an admonition’s content as the page’s, its title (`:::tip Title` or `:::tip[Title]`) as a bold line, without the `:::` lines', () => {
    for (const read of [parse, mdx]) {
      const [section] = read(page).sections;
      expect(section!.body).toBe(body);
      expect(section!.code).toBe('run()\n\n:::tip Shown as code\n:::');
    }
  });

  it('reads prose with colons as it did before', () => {
    expect(parse('# Ports\n\nSet key:value, open localhost:8080.\nNote:abc and a::b.\n\n::leaf\n').sections[0]!.body).toBe('Set key:value, open localhost:8080.\nNote:abc and a::b.\n\n::leaf');
  });
});

describe('slug', () => {
  it('gives the anchors text.ts’s slugify gives', () => {
    for (const heading of ['Using C#', 'Set up `npx` — fast!', ' Rate   limits ', 'Über Straße', 'snake_case and kebab-case', '日本語のガイド', 'İstanbul', 'a\tb', '100% (beta)']) {
      expect(slug(heading), heading).toBe(slugify(heading));
    }
  });
});

describe('hostile pages cost time linear in their length', () => {
  // Issue #25's ingestion shapes and the ones micromark itself found hard. A page four times as
  // long may take about four times as long; a quadratic cost takes sixteen.
  const shapes: Record<string, (n: number) => string> = {
    'a heading of ‹': (n) => `# ${'‹'.repeat(n)}`,
    'a body of [': (n) => `# T\n\n${'['.repeat(n)}`,
    'link labels, one a line': (n) => `# T\n\n${'[a]\n'.repeat(n / 4)}`,
    'unclosed link destinations': (n) => `# T\n\n${'[a]('.repeat(n / 4)}`,
    'runs of <': (n) => `# T\n\n${'<'.repeat(n)}`,
    'unclosed tags': (n) => `# T\n\n${'<a '.repeat(n / 3)}`,
    'an unclosed fence': (n) => `# T\n\n\`\`\`\n${'x\n'.repeat(n / 2)}`,
    'spaces before {#id}': (n) => `# a${' '.repeat(n)}{#x}`,
    'nested quotes': (n) => `${'> '.repeat(n / 2)}x`,
    'nested lists': (n) => `${'- '.repeat(n / 2)}x`,
    'one long paragraph of words': (n) => `# T\n\n${'word '.repeat(n / 5)}`,
    'a table of link labels, one a row': (n) => `# T\n\n| a |\n| - |\n${'|[a]\n'.repeat(n / 5)}`,
    'a table of one long row of link labels': (n) => `# T\n\n| a |\n| - |\n|${'[a]'.repeat(n / 3)}`,
    'inline tags, one after each word': (n) => `# T\n\n${'a<p/>'.repeat(n / 5)}`,
    'table headers, one a run': (n) => `# T\n\n${'|[a\n|-\n\n'.repeat(n / 8)}`,
  };
  it.each(Object.keys(shapes))('%s', (name) => {
    const shape = shapes[name]!;
    for (const asMdx of [false, true]) {
      const read = (n: number) => () => parseMarkdown(shape(n), { url: 'u', fallbackTitle: 'f', mdx: asMdx });
      // Sizes of whole blocks (see MAX_BLOCK_CHARS), so the cost within a block counts the same in both.
      const small = time(read(8_000));
      const large = time(read(32_000));
      expect(large, `${name}${asMdx ? ' (MDX)' : ''}: ${small.toFixed(0)} ms → ${large.toFixed(0)} ms`).toBeLessThan(Math.max(8 * small, 400));
    }
  }, 120_000);

  it('rows of link labels under a header that is no table: one paragraph, cut as any other', () => {
    // micromark reads the lines as one paragraph (the delimiter row has one cell, the header two):
    // read whole, 96,000 characters take seconds. Six times the size rather than four: at smaller sizes the growth hides.
    const shape = (n: number) => `# T\n\n| a | b |\n| - |\n${'|[a] *b\n'.repeat(n / 8)}`;
    const read = (n: number) => () => parseMarkdown(shape(n), { url: 'u', fallbackTitle: 'f' });
    const small = time(read(16_000));
    const large = time(read(96_000));
    expect(large, `${small.toFixed(0)} ms → ${large.toFixed(0)} ms`).toBeLessThan(Math.max(8 * small, 400));
  }, 120_000);
});
