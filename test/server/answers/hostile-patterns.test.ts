/**
 * The regular expressions and loops that read documents, tickets and answers outside ingestion,
 * fed the worst input found for each (64,000 characters): each is read in time linear in its
 * length. Measured as the main thread's CPU time (a busy machine does not fail it); the
 * patterns these replaced took seconds to minutes on the same inputs. The same outputs on
 * ordinary input are the other answer tests' job.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { answersAsCode, bestSentences, codeExcerpt, extractiveSummary } from '../../../src/server/answers/compose.js';
import { sectionText } from '../../../src/server/knowledge/ranking/embeddings.js';
import { mapCitations } from '../../../src/server/answers/index.js';
import { refersBack } from '../../../src/server/answers/passage.js';
import { runInLabels } from '../../../src/server/knowledge/ranking/rank.js';
import { docSummary } from '../../../src/server/answers/sources.js';
import { loadSpecificity } from '../../../src/server/knowledge/text/specificity.js';
import { sentences, slugify, tokenize } from '../../../src/server/knowledge/text/text.js';
import { passageOfMarkdown } from '../../../src/server/knowledge/index.js';
import { codeBlock, splitSentences } from '../../../src/server/knowledge/text/passage.js';
import { mainThreadCpuMs } from '../../helpers/main-thread-cpu.js';

const N = 64_000;
const repeat = (unit: string, length = N) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** Hostile texts, each of the shape that made one pattern or loop quadratic. */
const TEXTS: Record<string, string> = {
  'wiki links never closed': repeat('[['),
  'embeds never closed': repeat('![[a.png'),
  'a run of blanks before an embed that is not one': `x${' '.repeat(N - 10)}![[x`,
  'links whose target never closes': repeat('[a]('),
  'brackets never closed': repeat('['),
  'fences on one line': repeat('```'),
  'empty lines': repeat('\n'),
  'blank lines of spaces': repeat(' \n'),
  'a blank line of tabs and spaces before a rule': `${repeat(' \t', N - 10)}x---`,
  'bold runs never closed, between sentences': repeat('**a. B. '),
  'code spans never closed, between sentences': repeat('`a. B. '),
  'list items with blanks and no label': repeat('- \n\n'),
  'html tags never closed': repeat('<'),
  'capitals and a digit': `${'A'.repeat(N - 1)}1`,
  'link targets never closed': repeat(']('),
  'abbreviations between sentences': repeat('e.g. A i.e. '),
  'assignments of a string never closed': repeat('a = `'),
  'equals signs': repeat('='),
  'sentence ends with their spaces lost': repeat('a.Bc'),
  'a sentence end before a run of blanks': `ab.${' '.repeat(N - 10)}X`,
  'sentence ends before code spans and bold runs': repeat('ab.` **ab!** `'),
  '"them" inside words and alone': repeat('themthem them'),
  'a callout marker never closed': `> [!${repeat('a', N - 10)}`,
  'callout markers in a quote': repeat('> [!note]- \n'),
  'parentheses never closed, between sentences': repeat('(a. B. '),
  'parentheses opened far before sentences': `${repeat('(', N / 2)}${repeat('Ab. ', N / 2)}`,
  '"above" before runs of blanks': repeat(`above${' '.repeat(200)}\t`),
};

const CODE: Record<string, string> = {
  'a use line of blanks': `use${' '.repeat(N)}x`,
  'a require line of blanks': `const${' '.repeat(N)}x`,
  'trailing blanks': `let a = 1;\n${' '.repeat(N)}\nx`,
  'lines of use': repeat(`use ${' '.repeat(60)}x\n`),
};

/** The main thread's CPU time `work` takes, in milliseconds (clock ticks of 10 ms). */
function cpuOf(work: () => unknown): number {
  const before = mainThreadCpuMs();
  work();
  return mainThreadCpuMs() - before;
}

// The word frequencies load once, before anything is measured.
beforeAll(() => loadSpecificity());

describe('the worst input for each pattern', () => {
  it.each(Object.entries(TEXTS))('%s: read in linear time wherever it is read', (_, text) => {
    const terms = new Set(tokenize('a b x link'));
    // Answers read the passage ingest stored (its parse has its own budget, see ingest-bounds.test.ts).
    const passage = passageOfMarkdown(text);
    const readers: [string, () => unknown][] = [
      ['splitSentences', () => splitSentences(text)],
      ['bestSentences', () => bestSentences(passage, terms, 3)],
      ['refersBack', () => refersBack({ text, block: false })],
      ['sentences', () => sentences(text)],
      ['sectionText', () => sectionText({ title: 'T', context: '', body: text, code: '' })],
      ['codeText', () => sectionText({ title: text.slice(0, 300), context: text.slice(0, 300), body: text, code: text, kind: 'code' })],
      ['docSummary', () => docSummary({ title: 'T', code: '/** doc */\nx', passage })],
      ['runInLabels', () => runInLabels(text)],
      ['mapCitations', () => mapCitations(text, [])],
      ['slugify', () => slugify(text)],
      ['tokenize', () => tokenize(text)],
      ['answersAsCode', () => answersAsCode(text)],
      ['extractiveSummary', () => extractiveSummary([{ role: 'user', content: text, sources: [] }, { role: 'assistant', content: text, sources: [] }])],
    ];
    // A quadratic pattern takes seconds on 64,000 characters; linear reading takes a few milliseconds.
    // The bound leaves room for a collection or a busy neighbour in a full test run (ticks of 10 ms).
    for (const [name, read] of readers) expect(cpuOf(read), name).toBeLessThan(400);
  });

  it.each(Object.entries(CODE))('%s: a code excerpt in linear time', (_, code) => {
    expect(cpuOf(() => codeExcerpt(codeBlock(code), 10, new Set(['x'])))).toBeLessThan(400);
    expect(cpuOf(() => sectionText({ title: 'x', context: 'src/x.ts', body: '', code, kind: 'code' }))).toBeLessThan(400);
  });

  it('reads what it read before from ordinary Markdown', () => {
    expect(bestSentences('See [[Sync#Setup|the setup]] and [[Sync#Conflicts]] for syncing your vault today. ![[icon.svg]]', new Set(tokenize('sync vault')), 1)).toEqual([
      'See the setup and Sync › Conflicts for syncing your vault today.',
    ]);
    expect(sentences('**Does it expire? Will I lose data?** No. Run `a. B` to check. Done!')).toEqual(['**Does it expire? Will I lose data?** No.', 'Run `a. B` to check.', 'Done!']);
    // A bold line under a bare "-" is no list item's label (the old pattern crossed the line end to read it as one).
    expect(runInLabels('Intro\n\n- **CSP.** Works.\n  1. **Keys:** Rotate.\n-\n**Not.**')).toEqual(['CSP', 'Keys']);
    expect(sectionText({ title: 'T', context: 'P', body: 'Use [the proxy](https://x.test/p) here.\n\n| a | b |\n| --- | --- |\n```js\ncode()\n```\nend', code: '' })).toBe('P — T\nUse the proxy here. a b end');
    expect(mapCitations('Rotate keys [1] .', [{ title: 'K', url: 'https://k' }]).content).toBe('Rotate keys [1].');
    expect(codeExcerpt(codeBlock('use std::io::{self, Read};\nconst a = require("a");\n\nfn main() {\n  run();\n}\n'), 10, new Set(['run']))).toBe('  run();\n}');
    expect(tokenize('parseHTTPResponse_v2 ABCdEFg')).toEqual(['parsehttpresponse_v2', 'pars', 'http', 'respons', 'v2', 'abcdefg', 'ab', 'cd', 'fg']);
  });
});
