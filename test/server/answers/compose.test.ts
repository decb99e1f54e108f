import { describe, expect, it } from 'vitest';
import { bestSentences, codeExcerpt } from '../../../src/server/answers/compose.js';
import { tokenize } from '../../../src/server/answers/text.js';

const terms = (question: string) => new Set(tokenize(question));

describe('quoted sentences', () => {
  it('quotes a passage repeated once per tab of an exported page once, even with its spaces lost', () => {
    const body = [
      'Criteria Bad The model should classify sentiments well.',
      'Our sentiment model should reach an F1 score of 0.85 on held-out posts.',
      'Our sentiment model should reach an F1 score of 0.85 on held-out posts.',
      'CriteriaBadThe model should classify sentiments well.',
      'Example criteria Our sentiment model should reach an F1 score of 0.85 on held-out posts.',
    ].join('\n');
    const quoted = bestSentences(body, terms('What F1 score should a sentiment model reach?'), 3);
    // The sentence that answers first.
    expect(quoted).toEqual(['Our sentiment model should reach an F1 score of 0.85 on held-out posts.', 'Criteria Bad The model should classify sentiments well.']);
  });

  it('skips a long run of words with no sentence end (a menu or a list of links) when there is a sentence to quote', () => {
    const menu = Array.from({ length: 12 }, (_, i) => `Install the sheets add-on step ${i}`).join(' ');
    const body = `${menu}\nTo install the add-on, open the marketplace and choose Install.`;
    expect(bestSentences(body, terms('How do I install the sheets add-on?'), 2)).toEqual(['To install the add-on, open the marketplace and choose Install.']);
    // With nothing else to quote, the run-on is still better than nothing.
    expect(bestSentences(menu, terms('How do I install the sheets add-on?'), 2)).toEqual([menu]);
  });
});

describe('how the local answer reads', () => {
  it('quotes next the sentence that adds words of the question, not one that repeats the first', () => {
    const body = [
      'Version history keeps deleted notes for one year on the Plus plan.',
      'The Plus plan keeps version history for every note.',
      'Attachments and images count as files.',
    ].join(' ');
    const quoted = bestSentences(body, terms('how long does version history keep deleted attachments and images on the plus plan'), 2);
    expect(quoted).toEqual(['Version history keeps deleted notes for one year on the Plus plan.', 'Attachments and images count as files.']);
  });

  it('quotes the sentence before the one that answers when it alone matches: it says what "this" is', () => {
    const body = 'Unable to connect to server: check your connection, then reconnect. On iOS, this message displays as `socket closed`. Other messages are listed below.';
    expect(bestSentences(body, terms('what does socket closed mean?'), 2)).toEqual(['Unable to connect to server: check your connection, then reconnect.', 'On iOS, this message displays as `socket closed`.']);
  });

  it("quotes a question the page asks with its answer, never alone or beside another question's answer", () => {
    const faq = [
      '**What happens if I cancel my plan?**',
      'Cancelling deletes your remote vaults, which cannot be restored later.',
      '',
      '**What if a payment fails and my plan expires? Will I lose my remote vault?**',
      'No, your remote vault is kept for 30 days after the plan expires.',
      '',
      '**Can I buy a plan for my whole team?**',
      'Yes. One admin account can buy seats for every member of the team.',
    ].join('\n');
    const quoted = bestSentences(faq, terms('my payment failed and my plan expired, is my remote vault gone?'), 2);
    // The question is quoted whole (its bold run closed) with the sentence that answers it.
    expect(quoted[0]).toBe('**What if a payment fails and my plan expires? Will I lose my remote vault?** No, your remote vault is kept for 30 days after the plan expires.');
    for (const unit of quoted) expect(unit.match(/\*\*/g)?.length ?? 0, unit).toBeOneOf([0, 2, 4]);
    // A bare "Yes." goes on to the sentence that says what yes means.
    expect(bestSentences(faq, terms('can one admin buy seats for the team?'), 1)).toEqual(['**Can I buy a plan for my whole team?** Yes. One admin account can buy seats for every member of the team.']);
    // A question on a line of its own (not bold) is quoted with its answer too.
    const plain = 'Why do line breaks disappear in reading view?\nA single Enter is ignored in Markdown: end the line with two spaces instead.';
    expect(bestSentences(plain, terms('line breaks disappear in reading view'), 1)).toEqual(['Why do line breaks disappear in reading view? A single Enter is ignored in Markdown: end the line with two spaces instead.']);
  });

  it('reads wiki links as their label or page › heading, drops embedded icons and keeps code spans as written', () => {
    const body = 'In the ribbon, click **Publish changes** ![[lucide-send.svg#icon]]. Type `![[Document.pdf#page=3]]` to open a PDF on page 3. See [[Internal links#Link to a block|block links]] and [[Sync#Regions]].';
    expect(bestSentences(body, terms('publish changes ribbon open pdf page 3 block links regions'), 3).sort()).toEqual([
      'In the ribbon, click **Publish changes**.',
      'See block links and Sync › Regions.',
      'Type `![[Document.pdf#page=3]]` to open a PDF on page 3.',
    ]);
  });

  it('keeps a sentence wrapped over two lines whole, and a Markdown table as a table', () => {
    const body = 'Sync has two plans.\nThe Plus plan allows files up\nto 200 MB each.\n\n| | Standard | Plus |\n\n| Maximum file size | 5 MB | 200 MB |\n| Total storage | 1 GB | 10 GB |';
    const quoted = bestSentences(body, terms('what is the maximum file size on the plus plan'), 2);
    expect(quoted).toContain('The Plus plan allows files up to 200 MB each.');
    expect(quoted.find((q) => q.startsWith('|'))).toBe('| | Standard | Plus |\n| --- | --- | --- |\n| Maximum file size | 5 MB | 200 MB |\n| Total storage | 1 GB | 10 GB |');
  });

  it('quotes code around the lines that match, never the import block, never cut inside a statement', () => {
    const code = [
      "import { a } from './a.js';",
      "import { b } from './b.js';",
      '',
      'export function setup() {',
      '  const x = a();',
      '  return x;',
      '}',
      '',
      'export function createProxy(options) {',
      '  const limiter = rateLimit({',
      '    perMinute: options.perMinute,',
      '    burst: 5,',
      '  });',
      '  return handler(limiter);',
      '}',
    ].join('\n');
    const excerpt = codeExcerpt(code, 4, terms('how do I set the proxy rate limit per minute?'));
    expect(excerpt).not.toContain('import');
    expect(excerpt).not.toContain('…');
    expect(excerpt).toContain('perMinute: options.perMinute,');
    expect(excerpt.split('\n').at(-1)).toMatch(/[;})]$/);
  });

describe('replies a person reads', () => {
  it('joins a hard-wrapped line that starts with a number to its sentence (only "1." may start a list inside a paragraph)', () => {
    const body = 'The proxy waits for an answer up to a limit (default\n10000) milliseconds before it answers processing.\n\nSteps:\n\n1. Open the page.\n2. Press Send.';
    const quoted = bestSentences(body, terms('how long does the proxy wait for an answer'), 2);
    expect(quoted[0]).toBe('The proxy waits for an answer up to a limit (default 10000) milliseconds before it answers processing.');
    expect(bestSentences(body, terms('open the page press send steps'), 1)).toEqual(['1. Open the page.\n2. Press Send.']);
  });

  it('never quotes a doc comment tag such as @default', () => {
    const body = 'How long a poll may wait for the answer, in milliseconds.\n@default 10000 milliseconds of waiting for the answer';
    expect(bestSentences(body, terms('how long may a poll wait for the answer default'), 2)).toEqual(['How long a poll may wait for the answer, in milliseconds.']);
  });

  it('quotes a sentence that points back ("It serves…") with the sentence before it, which says what "it" is', () => {
    const body = 'The API server is a Node process you run next to your database. It serves POST /chat and GET /chat/{id} on port 8080. Logs go to standard output.';
    expect(bestSentences(body, terms('which port serves POST chat'), 1)).toEqual([
      'The API server is a Node process you run next to your database.',
      'It serves POST /chat and GET /chat/{id} on port 8080.',
    ]);
  });
});

});
