/**
 * Property over every Markdown page of the test fixtures: whatever a question asks of a section,
 * what the reply quotes of it is the page's own text in the page's order, a list or numbered steps
 * whole or not at all, and a sentence that points back never without the one before it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bestPassage } from '../../../src/server/answers/compose.js';
import { parseMarkdown } from '../../../src/server/knowledge/ingest/markdown.js';
import { tokenize } from '../../../src/server/knowledge/index.js';
import { splitSentences } from '../../../src/server/knowledge/text/passage.js';
import { passageOfMarkdown } from '../../../src/server/knowledge/index.js';
import { checkUnit } from '../../helpers/quoted-as-written.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures');

function pages(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return pages(path);
    return /\.mdx?$/.test(name) ? [path] : [];
  });
}

describe('a reply quotes a section as written', () => {
  const files = pages(FIXTURES);
  const sections = files.flatMap((file) => parseMarkdown(readFileSync(file, 'utf8'), { url: `https://docs.example/${file.slice(FIXTURES.length)}`, fallbackTitle: 'page', mdx: file.endsWith('.mdx') }).sections);
  // Every section's heading asked of every section of its page and of the others: the questions a reader may ask.
  const questions = [...new Set(sections.map((s) => s.title))];

  it('quotes sentences in page order, lists and steps whole, and no pointing-back sentence alone', () => {
    expect(files.length).toBeGreaterThan(10);
    let quotedUnits = 0;
    for (const section of sections) {
      for (const question of questions) {
        const { units } = bestPassage(section.passage!, new Set(tokenize(question)), 3);
        let at = -1;
        for (const unit of units) {
          quotedUnits++;
          const check = checkUnit(unit, section.passage!, at);
          expect(check.ok ? '' : check.why, section.url).toBe('');
          if (check.ok) at = check.end;
        }
      }
    }
    expect(quotedUnits).toBeGreaterThan(100);
  });
});

describe('the quoting check', () => {
  const page = '# Update plugins\n\nTo update all your plugins:\n\n1. Open **Settings**.\n2. Select **Update all**.\n\nTo update one plugin:\n\n1. Open **Settings**.\n2. Select **Update** beside it.\n';
  const passage = passageOfMarkdown(page);

  it('takes one of two lists that begin alike, quoted whole, as quoted whole', () => {
    expect(checkUnit('1. Open **Settings**.\n2. Select **Update all**.', passage, -1)).toMatchObject({ ok: true });
    expect(checkUnit('1. Open **Settings**.\n2. Select **Update** beside it.', passage, -1)).toMatchObject({ ok: true });
  });

  it('still finds a list quoted in part', () => {
    expect(checkUnit('1. Open **Settings**.', passage, -1)).toMatchObject({ ok: false });
    expect(checkUnit('1. Open **Settings**.\n2. Select **Update all**.\n2. Select **Update** beside it.', passage, -1)).toMatchObject({ ok: false });
  });
});

describe('sentences of the passage model', () => {
  it("are split by the page's language, a lowercase command after a full stop starting a sentence, code spans and bold runs kept whole", () => {
    expect(splitSentences('Run the command. npm install starts it.')).toEqual(['Run the command.', 'npm install starts it.']);
    expect(splitSentences('It serves the demo at <http://localhost:3000/>. `npm start -- --port 4000` picks another port. Run `npm test`. `npm start` is next.')).toEqual([
      'It serves the demo at <http://localhost:3000/>.',
      '`npm start -- --port 4000` picks another port.',
      'Run `npm test`.',
      '`npm start` is next.',
    ]);
    expect(splitSentences('مرحبا بك. كيف حالك؟ أنا بخير.', 'ar')).toEqual(['مرحبا بك.', 'كيف حالك؟', 'أنا بخير.']);
    expect(splitSentences('It is condensed first ("and on Windows?" → "How do I install Acme Sync on Windows?"), which is searched. Then go on.')).toEqual([
      'It is condensed first ("and on Windows?" → "How do I install Acme Sync on Windows?"), which is searched.',
      'Then go on.',
    ]);
    // A parenthesis that never closes holds its sentence together only so far.
    const smile = `It works :( ${'Try again. '.repeat(50)}`;
    expect(splitSentences(smile)).toHaveLength(50);
    expect(splitSentences(smile)[1]).toBe('Try again.');
    expect(splitSentences('Item 1) is first. Item 2) is second.')).toEqual(['Item 1) is first.', 'Item 2) is second.']);
    expect(splitSentences('**Does it expire? Will I lose my data?** No. Type `a. B` here, e.g. now.')).toEqual(['**Does it expire? Will I lose my data?** No.', 'Type `a. B` here, e.g. now.']);
    // A `!` or `?` with no space after it is a bang command or a query string, not a sentence end.
    expect(splitSentences("!Bang commands search other sites. For example, you could enter '!a bags' into the box. Wow! It works?Yes.")).toEqual([
      '!Bang commands search other sites.',
      "For example, you could enter '!a bags' into the box.",
      'Wow!',
      'It works?Yes.',
    ]);
  });
});

describe('callouts in the passage model', () => {
  const page = [
    'We refund these services:',
    '',
    '- Publish',
    '- Sync',
    '',
    '> [!Warning] Non-refundable purchases',
    '> Some purchases are **not** refundable:',
    '>',
    '> - [[Catalyst license|Catalyst licenses]] are not refundable.',
    '> - Credit is not refundable.',
    '',
    '> [!tip]',
    '> If you have any trouble, contact support.',
    '',
    '> A plain quote stays one block.',
  ].join('\n');

  it('are read as containers: the title a bold line, the content blocks of their own', () => {
    expect(passageOfMarkdown(page).blocks.map((b) => [b.kind, b.text])).toEqual([
      ['paragraph', 'We refund these services:'],
      ['list', '- Publish\n- Sync'],
      ['paragraph', '**Non-refundable purchases**'],
      ['paragraph', 'Some purchases are **not** refundable:'],
      ['list', '- Catalyst licenses are not refundable.\n- Credit is not refundable.'],
      ['paragraph', 'If you have any trouble, contact support.'],
      ['quote', 'A plain quote stays one block.'],
    ]);
  });

  it("quote a callout's list whole, with the sentence that introduces it, never as part of the list before it", () => {
    const quoted = bestPassage(passageOfMarkdown(page), new Set(tokenize('is a catalyst license refundable')), 2).units;
    expect(quoted).toContain('Some purchases are **not** refundable:\n\n- Catalyst licenses are not refundable.\n- Credit is not refundable.');
  });
});

describe('a list of labelled entries in the passage model', () => {
  const page = ['- **Rendering.** Answers are Markdown.', '- **Composer.** Enter sends a message.', '- **Accessibility.** The launcher is labelled for screen readers.', '- **CSP.** Works under a strict policy.'].join('\n');

  it('is a glossary: each entry a block of its own, quoted whole without the others', () => {
    expect(passageOfMarkdown(page).blocks.map((b) => [b.kind, b.text])).toEqual(page.split('\n').map((line) => ['list', line]));
    expect(bestPassage(passageOfMarkdown(page), new Set(tokenize('is the launcher labelled for screen readers')), 1).units).toEqual(['- **Accessibility.** The launcher is labelled for screen readers.']);
  });

  it('stays one list when it is short, or when an entry has no label', () => {
    expect(passageOfMarkdown(page.split('\n').slice(0, 3).join('\n')).blocks).toHaveLength(1);
    expect(passageOfMarkdown(`${page}\n- Plain entry.`).blocks).toHaveLength(1);
  });
});

describe('code inside a list item in the passage model', () => {
  const page = [
    '1. Install the package:',
    '',
    '   ```sh',
    '   npm install acme',
    '   ```',
    '',
    '2. Start it. Without a key it answers from the docs alone:',
    '',
    '   ```js',
    '   start({ key: process.env.KEY }); // [[not a wiki link]]',
    '',
    '   stop();',
    '   ```',
    '- Then open the page.',
  ].join('\n');

  it('stays in its item, fenced and indented as far as the item\'s text, as written', () => {
    const [steps, list] = passageOfMarkdown(page).blocks;
    expect(steps!.kind).toBe('steps');
    expect(steps!.text).toBe(
      [
        '1. Install the package:',
        '   ```sh',
        '   npm install acme',
        '   ```',
        '2. Start it. Without a key it answers from the docs alone:',
        '   ```js',
        '   start({ key: process.env.KEY }); // [[not a wiki link]]',
        '',
        '   stop();',
        '   ```',
      ].join('\n'),
    );
    expect(steps!.sentences[1]).toContain('   stop();');
    expect(list!.text).toBe('- Then open the page.');
  });

  it('is read back by a CommonMark parser as code inside the same list item', async () => {
    const { fromMarkdown } = await import('mdast-util-from-markdown');
    const [steps] = passageOfMarkdown(page).blocks;
    const list = fromMarkdown(steps!.text).children[0]!;
    expect(list.type).toBe('list');
    const items = (list as { children: { children: { type: string; value?: string }[] }[] }).children;
    expect(items).toHaveLength(2);
    expect(items[1]!.children.map((c) => c.type)).toEqual(['paragraph', 'code']);
    expect(items[1]!.children[1]!.value).toBe('start({ key: process.env.KEY }); // [[not a wiki link]]\n\nstop();');
  });
});

describe('raw HTML blocks of a Markdown page in the passage model', () => {
  const page = [
    '# Safe search',
    '',
    '<p>',
    '    Safe search removes adult content. You can',
    '    control it in the following ways:',
    '</p>',
    '',
    '<ul>',
    '    <li>With the dropdown under the search box.</li>',
    '    <li>By appending !safeoff to your search (this uses our',
    '        <a href="https://example.test/bang">bang</a> syntax).</li>',
    '</ul>',
    '',
    'Press <kbd>Enter</kbd> to search.',
  ].join('\n');

  it('are read as the blocks they stand for: a <p> a paragraph, a <ul> a list quoted whole; inline HTML stays in its sentence', () => {
    const { sections } = parseMarkdown(page, { url: 'https://docs.example/safe-search', fallbackTitle: 'page' });
    expect(sections[0]!.passage!.blocks.map((b) => [b.kind, b.text])).toEqual([
      ['paragraph', 'Safe search removes adult content. You can control it in the following ways:'],
      ['list', '- With the dropdown under the search box.\n- By appending !safeoff to your search (this uses our [bang](https://example.test/bang) syntax).'],
      ['paragraph', 'Press Enter to search.'],
    ]);
    const quoted = bestPassage(sections[0]!.passage!, new Set(tokenize('how do i turn off safe search with safeoff')), 2).units;
    expect(quoted.join('\n\n')).toContain('You can control it in the following ways:\n\n- With the dropdown under the search box.\n- By appending !safeoff');
  });

  it('stay text when they are over the element budget', () => {
    const deep = `${'<div>'.repeat(600)}deep text${'</div>'.repeat(600)}`;
    const { sections } = parseMarkdown(`# Deep\n\n${deep}\n`, { url: 'https://docs.example/deep', fallbackTitle: 'page' });
    expect(sections[0]!.passage!.blocks.map((b) => b.plain).join(' ')).toBe('deep text');
    expect(sections[0]!.passage!.blocks.every((b) => b.kind === 'paragraph')).toBe(true);
  });
});
