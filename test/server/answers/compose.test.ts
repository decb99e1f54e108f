import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answersAsCode, bestSentences, codeExcerpt, isDiagram, RELATED_INTRO, relatedReply } from '../../../src/server/answers/compose.js';
import { parseMarkdown } from '../../../src/server/knowledge/ingest/markdown.js';
import { passageOfText } from '../../../src/server/knowledge/ingest/passage.js';
import { openTestEngine } from '../../helpers/answer-engine.js';
import { asksForCode, onlyLinks, onlyPoints, proseLength, readPart, saysNothing } from '../../../src/server/answers/reply-shape.js';
import { tokenize } from '../../../src/server/knowledge/text/text.js';
import { codeBlock, termsByLine, withTerms } from '../../../src/server/knowledge/text/passage.js';
import { bestPassage, refersBack } from '../../../src/server/answers/passage.js';

const terms = (question: string) => new Set(tokenize(question));

/** Asserts that `content` holds each of `texts`, in that order. */
function expectInOrder(content: string, texts: string[]): void {
  const at = texts.map((text) => content.indexOf(text));
  expect(at.every((i) => i >= 0), content).toBe(true);
  expect([...at].sort((a, b) => a - b), content).toEqual(at);
}

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
    // The sentence that answers, with the one before it, in the order the page says them.
    expect(quoted).toEqual(['Criteria Bad The model should classify sentiments well.', 'Our sentiment model should reach an F1 score of 0.85 on held-out posts.']);
  });

  it('quotes a long list with the sentence that introduces it', () => {
    const regions = ['Austria', 'Belgium', 'Bulgaria', 'Croatia', 'Cyprus', 'Denmark', 'Estonia', 'Finland', 'France', 'Germany', 'Greece', 'Hungary', 'Ireland', 'Italy', 'Latvia', 'Lithuania', 'Malta', 'Spain', 'Sweden'];
    const body = ['Subscriptions are sold in many places.', '', 'The plan is currently available to subscribers in the following regions:', '', ...regions.map((r) => `- ${r}`)].join('\n');
    const [quoted] = bestSentences(body, terms('I live in Germany, can I buy the plan?'), 1);
    expect(quoted).toBe(['The plan is currently available to subscribers in the following regions:', '', ...regions.map((r) => `- ${r}`)].join('\n'));
  });

  it('skips a long run of words with no sentence end (a menu or a list of links) when there is a sentence to quote', () => {
    const menu = Array.from({ length: 12 }, (_, i) => `Install the sheets add-on step ${i}`).join(' ');
    const body = `${menu}\nTo install the add-on, open the marketplace and choose Install.`;
    expect(bestSentences(body, terms('How do I install the sheets add-on?'), 2)).toEqual(['To install the add-on, open the marketplace and choose Install.']);
    // With nothing else to quote, the run-on is still better than nothing.
    expect(bestSentences(menu, terms('How do I install the sheets add-on?'), 2)).toEqual([menu]);
  });

  it('reads a long line with sentence ends inside it as sentences, though its last goes on past the line (a doc comment a window cuts)', () => {
    const comment = [
      'Death tests run in a sub-process.',
      'On other platforms (e.g. Windows or Mac), we only support a simple regex syntax implemented as part of the framework.',
      'This limited implementation should be enough most of the time.',
      'Known caveats: a threadsafe style death test obtains the path to the test program and re-executes it.',
      'For simplicity, the current implementation does not search the PATH',
    ].join(' ');
    const question = terms('What regex syntax is supported on Windows and Mac for death tests?');
    expect(bestSentences(passageOfText(comment), question, 1)).toEqual(['On other platforms (e.g. Windows or Mac), we only support a simple regex syntax implemented as part of the framework.']);
    // A line with no sentence end is still one run.
    const menu = Array.from({ length: 12 }, (_, i) => `Death tests on Windows and Mac ${i}`).join(' ');
    expect(passageOfText(menu).blocks[0]!.sentences).toEqual([menu]);
  });
});

describe('the prose a reply counts', () => {
  it('is what a visitor reads: a link by its label, code blocks not at all', () => {
    const sentence = 'Email [support](mailto:support@example.test?subject=I%20lost%20my%202FA%20codes) for help.';
    expect(proseLength(sentence)).toBe('Email support for help.'.length);
    expect(proseLength(`Run this:\n\n\`\`\`sh\nnpm test\n\`\`\``)).toBe('Run this:\n\n'.length);
    expect(proseLength('See <https://example.test/a>.')).toBe('See https://example.test/a.'.length);
    // Quotes nested as deep as the text goes are read without recursion.
    const deep = `${'> '.repeat(20_000)}[a](https://example.test/)`;
    expect(proseLength(deep)).toBeLessThanOrEqual(deep.length);
  });

  it('is read once with the letters inside and outside its links, which say whether a reply says anything', () => {
    const links = '- [Billing](https://example.test/billing)\n- [Refunds](https://example.test/refunds)';
    expect(readPart(links)).toEqual({ prose: '- Billing\n- Refunds'.length, inside: 'BillingRefunds'.length, outside: 0 });
    expect(saysNothing([readPart(links)])).toBe(true);
    const said = readPart('Refunds are made within 14 days of a purchase: `npm run refund`.');
    expect(said.inside).toBe(0);
    expect(saysNothing([readPart(links), said])).toBe(false);
  });
});

describe('how the local answer reads', () => {
  it("quotes the row that answers from a table an export flattened into one run of text, cut where its sentences' spaces were lost", () => {
    const rows = [
      'CapabilityThis enables you to…Text SummarizationDistill lengthy content into key insights for executives, social media, or product teams.',
      'Content GenerationCraft compelling content from blog posts and emails to marketing slogans and product descriptions.',
      'Question AnsweringBuild intelligent, interactive systems from customer support chatbots to educational AI tutors.',
      'Text TranslationSeamlessly communicate across languages in products, support, and content creation.',
      'Dialogue and ConversationCreate engaging, context-aware interactions in games, virtual assistants, and storytelling apps.',
      'Code Explanation & GenerationAccelerate development with instant code reviews, boilerplate generation, and interactive tutorials.',
    ];
    const body = `Claude has a broad range of text-based capabilities, including but not limited to:\n${rows.join('')}`;
    const quoted = bestSentences(body, terms('Which capability builds interactive systems for customer support?'), 1);
    expect(quoted).toEqual(['Question AnsweringBuild intelligent, interactive systems from customer support chatbots to educational AI tutors.']);
    // A sentence of ordinary length is never cut there ("Node.Js" stays one word).
    expect(bestSentences('Install Node.Js first, then run the installer.', terms('install node'), 1)).toEqual(['Install Node.Js first, then run the installer.']);
  });


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

  it('never quotes a sentence that introduces what is not quoted with it ("To start a presentation:" before a bold label)', () => {
    const body = 'Slides lets you create presentations from your notes. To start a presentation:\n\n**File menu:**\n\n- Right-click the tab and click **Begin**.';
    expect(bestSentences(body, terms('can i make slides presentations from notes?'), 2)).toEqual(['Slides lets you create presentations from your notes.']);
  });

  it("never quotes a bold label alone (a callout's title): it names what follows and says nothing", () => {
    const body =
      'If you name notes by a unique ID, convert the links to full names.\n\n> [!tip] Zettelkasten link beautifier\n> The converter can also beautify your links.\n\nYou can also use the Unique note creator to create Zettelkasten notes.';
    const quoted = bestSentences(body, terms('who came up with the zettelkasten method?'), 3);
    expect(quoted).toContain('You can also use the Unique note creator to create Zettelkasten notes.');
    expect(quoted.join(' ')).not.toContain('**Zettelkasten link beautifier**');
    // A sentence set in bold is a sentence.
    const warned = 'Set a site password.\n\n**Passwords for single notes are not supported.**';
    expect(bestSentences(warned, terms('password for one note'), 2)).toContain('**Passwords for single notes are not supported.**');
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
    expect(quoted).toContain('**What if a payment fails and my plan expires? Will I lose my remote vault?** No, your remote vault is kept for 30 days after the plan expires.');
    for (const unit of quoted) expect(unit.match(/\*\*/g)?.length ?? 0, unit).toBeOneOf([0, 2, 4]);
    // A bare "Yes." goes on to the sentence that says what yes means.
    expect(bestSentences(faq, terms('can one admin buy seats for the team?'), 1)).toEqual(['**Can I buy a plan for my whole team?** Yes. One admin account can buy seats for every member of the team.']);
    // A question on a line of its own (not bold) is quoted with its answer too.
    const plain = 'Why do line breaks disappear in reading view?\nA single Enter is ignored in Markdown: end the line with two spaces instead.';
    expect(bestSentences(plain, terms('line breaks disappear in reading view'), 1)).toEqual(['Why do line breaks disappear in reading view? A single Enter is ignored in Markdown: end the line with two spaces instead.']);
  });

  it('reads wiki links as their label or page › heading, drops embedded icons and keeps code spans as written', () => {
    const body = 'In the ribbon, click **Publish changes** ![[lucide-send.svg#icon]]. Type `![[Document.pdf#page=3]]` to open a PDF on page 3. Use [[Internal links#Link to a block|block links]] and [[Sync#Regions]] alike.';
    expect(bestSentences(body, terms('publish changes ribbon open pdf page 3 block links regions'), 3).sort()).toEqual([
      'In the ribbon, click **Publish changes**.',
      'Type `![[Document.pdf#page=3]]` to open a PDF on page 3.',
      'Use block links and Sync › Regions alike.',
    ]);
  });

  it('keeps a sentence wrapped over two lines whole, and a Markdown table as a table', () => {
    const body = 'Sync has two plans.\nThe Plus plan allows files up\nto 200 MB each.\n\n| | Standard | Plus |\n| - | - | - |\n| Maximum file size | 5 MB | 200 MB |\n| Total storage | 1 GB | 10 GB |';
    const quoted = bestSentences(body, terms('what is the maximum file size on the plus plan'), 2);
    expect(quoted).toContain('The Plus plan allows files up to 200 MB each.');
    expect(quoted.find((q) => q.startsWith('|'))).toBe('|  | Standard | Plus |\n| --- | --- | --- |\n| Maximum file size | 5 MB | 200 MB |\n| Total storage | 1 GB | 10 GB |');
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
    const excerpt = codeExcerpt(codeBlock(code), 4, terms('how do I set the proxy rate limit per minute?'));
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
    // A sentence ending in a colon takes the steps after it: they are what it says.
    expect(bestSentences(body, terms('open the page press send steps'), 1)).toEqual(['Steps:\n\n1. Open the page.\n2. Press Send.']);
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

describe('the rules a quoted reply keeps', () => {
  const page = (markdown: string) => parseMarkdown(markdown, { url: 'https://docs.example.com/start', fallbackTitle: 'start' }).sections[0]!.body;

  it('keeps an autolink and a Markdown link in the sentence it quotes, a relative link made absolute', () => {
    const body = page('# Run\n\n`npm start` serves the demo at <http://localhost:3000/> (`PORT` picks another\nport). Mounting is in [the proxy guide](proxy.md#mounting).\n');
    const [quoted] = bestSentences(body, terms('which port does npm start serve the demo on'), 1);
    expect(quoted).toBe('`npm start` serves the demo at <http://localhost:3000/> (`PORT` picks another port).');
    expect(bestSentences(body, terms('where is mounting explained'), 1)).toEqual(['Mounting is in [the proxy guide](https://docs.example.com/proxy.md#mounting).']);
  });

  it('never turns a hard-wrapped line that starts with a number into a list, in a paragraph or in a list item', () => {
    const body = page(
      '# Limits\n\nEach helpdesk call is bounded by `SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS` (default\n10000) milliseconds.\n\n- A malformed id (not 1–256 printable characters) answers\n  404. Null means anonymous.\n- An unknown id answers 403.\n',
    );
    const quoted = [...bestSentences(body, terms('how long may a helpdesk call take'), 2), ...bestSentences(body, terms('what does a malformed id answer, and null'), 2)];
    expect(quoted.join('\n')).toContain('(default 10000) milliseconds');
    expect(quoted.join('\n')).toContain('answers 404. Null means anonymous.');
    for (const unit of quoted) expect(unit).not.toMatch(/^\s*\d{2,}[.)]/m);
  });

  it('never quotes code that is only imports and a doc comment tag, or a query or script held in a string', () => {
    expect(answersAsCode("/** @module A media query's state as a reactive controller. */\nimport type { ReactiveController } from 'lit';")).toBe(false);
    expect(answersAsCode('/**\n * How long a poll waits.\n * @default 10000\n */')).toBe(false);
    expect(answersAsCode("const CLAIM = `UPDATE jobs SET state = 'running'\n  WHERE id = ?`;")).toBe(false);
    expect(answersAsCode('export const LOCK_SQL = `SELECT pg_advisory_xact_lock(42)`;')).toBe(false);
    expect(answersAsCode('THREAD = """\nimport sys\nprint(sys.argv)\n"""')).toBe(false);
    expect(answersAsCode("export const TOKEN_PREFIX = 'sc_live_';")).toBe(true);
    expect(answersAsCode('export function clamp(x: number) {\n  return Math.min(1, x);\n}')).toBe(true);
    // An excerpt ends before an import block that follows the code.
    const code = ['export const TIMEOUT = 10;', '', "import { a } from './a';", "import { b } from './b';"].join('\n');
    expect(codeExcerpt(codeBlock(code), 1, terms('timeout'))).toBe('export const TIMEOUT = 10;');
    // Nor from the middle of a block comment: from the line that opens it.
    const documented = ['/**', ' * The semantic rerank.', ' * Words are reordered by score and cosine.', ' */', 'const RERANK = { candidates: 50 };'].join('\n');
    expect(codeExcerpt(codeBlock(documented), 3, terms('how are words reordered')).split('\n')[0]).toBe('/**');
    const tagged = ['/**', ...Array.from({ length: 30 }, (_, i) => ` * @cssproperty --accent-${i} - Accent color ${i}.`), ' */', 'export class Chat {', '  color = 1;', '}'].join('\n');
    expect(codeExcerpt(codeBlock(tagged), 3, terms('how do I change the accent color 20'))).toBe('export class Chat {\n  color = 1;\n}');
  });

  it('chooses the excerpt by the terms its passage stored for each line at ingest, not by reading the code again', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `export const value${i} = ${i};`);
    const block = withTerms({ kind: 'code', text: lines.join('\n'), plain: lines.join(' '), sentences: [] });
    // The terms line by line are those of the whole block, in order.
    expect(block.terms).toEqual(tokenize(block.plain));
    expect(termsByLine(block)).toEqual(lines.map((line) => tokenize(line)));
    expect(codeExcerpt(block, 1, terms('value30'))).toBe('export const value30 = 30;');
    // The excerpt reads the stored terms: a term stored for line 12 alone finds line 12.
    const stored = { ...block, terms: block.terms.map((t, i) => (i === block.lineStarts![12] ? 'zebra' : t)) };
    expect(codeExcerpt(stored, 1, terms('zebra'))).toBe('export const value12 = 12;');
  });

  it('takes a sentence that points back with the sentences it points back to, and never alone', () => {
    const body = 'The proxy is a fetch handler you mount in your app. It holds the API token. It answers 401 without a session cookie.\n\n- one\n- two\n\nThey are checked on every request and answer 413 when too large.';
    expect(bestSentences(body, terms('what answers 401 without a session cookie'), 1)).toEqual([
      'The proxy is a fetch handler you mount in your app.',
      'It holds the API token.',
      'It answers 401 without a session cookie.',
    ]);
    // After a list, "They" has no sentence to point back to: the reply quotes something that stands alone.
    for (const unit of bestSentences(body, terms('what is checked on every request and answers 413 when too large'), 2)) expect(unit).not.toMatch(/^They\b/);
  });

  it('takes a sentence that goes on from the one before ("However, …") with it, and never alone', () => {
    const body = 'A block is a paragraph, a quote or a list item.\n\n- one\n- two\n\nHowever, more items qualify as blocks than as heading links, so the block list is longer.';
    for (const unit of bestSentences(body, terms('why is the list of blocks longer than heading links'), 2)) expect(unit).not.toMatch(/^However\b/);
    const colours = 'Four custom properties set the brand colours. Set them inside a dark media query for a dark variant.';
    expect(bestSentences(colours, terms('how do I set a dark variant of the colours'), 1)).toEqual(colours.split(/(?<=\.) /));
    // "them" inside a sentence points back as surely as at its start.
    const targets = 'Webhook targets on loopback addresses are refused. Set `ALLOW_LOCAL=true` to allow them (local development; the demo does).';
    expect(bestSentences(targets, terms('how do I run the demo'), 1)).toEqual(targets.split(/(?<=\.) /));
    expect(bestSentences('Set `ALLOW_LOCAL=true` to allow them (local development; the demo does).', terms('how do I run the demo'), 1)).toEqual([]);
    const prose = 'Snapshots are kept for seven days. However, a snapshot older than that is deleted.';
    expect(bestSentences(prose, terms('when is an old snapshot deleted'), 1)).toEqual(['Snapshots are kept for seven days.', 'However, a snapshot older than that is deleted.']);
    // "For example", "Then", "But": each goes on from the sentence before it.
    for (const opener of ['For example, the', 'For instance, the', 'Then the', 'But the']) {
      const body = `The download parameter is set by our site. ${opener} download parameter names the paid campaign a visitor came from.`;
      expect(bestSentences(body, terms('which paid campaign does the download parameter name'), 1), opener).toEqual(body.split(/(?<=\.) /));
      expect(bestSentences(`${opener} download parameter names the paid campaign.`, terms('which paid campaign does the download parameter name'), 1), opener).toEqual([]);
    }
  });

  it('takes a sentence that says "above" with what it points back to: the sentence and the code before it', () => {
    const body = parseMarkdown(
      '# Start\n\nYou need Node.js 20. In your site\'s folder:\n\n```sh\nnpx kit init --base-url https://example.com/\n```\n\nThe `--base-url` above is a placeholder: put where your docs are published.\n',
      { url: 'https://docs.example.com/start', fallbackTitle: 'start' },
    ).sections[0]!.passage!;
    const quoted = bestPassage(body, terms('what is the base url placeholder'), 1);
    expect(quoted.units).toEqual(["In your site's folder:", 'The `--base-url` above is a placeholder: put where your docs are published.']);
    expect(quoted.introduced.map(({ unit, code }) => [unit, code.map((block) => block.text)])).toEqual([["In your site's folder:", ['npx kit init --base-url https://example.com/']]]);
    // "above" before a number or an article compares: the sentence stands alone.
    for (const alone of ['Rates above 90 % are flagged for review by the team.', 'Keep the launcher above the fold on every page you ship.', 'Place long documents near the top, above your query and instructions.']) {
      expect(refersBack({ text: alone, block: false }), alone).toBe(false);
    }
    expect(refersBack({ text: 'Run the command shown above.', block: false })).toBe(true);
  });

  it('never quotes a sentence that only sends the reader elsewhere', () => {
    const body = 'File recovery saves snapshots of your notes at regular intervals. For more information, refer to Delete a note. See Back up your files.';
    expect(bestSentences(body, terms('how do I get back a deleted note from file recovery snapshots'), 3)).toEqual(['File recovery saves snapshots of your notes at regular intervals.']);
    expect(onlyPoints('Learn more about goals and custom events in our guide.')).toBe(true);
    expect(onlyPoints('Seeing your stats needs a login.')).toBe(false);
    expect(onlyPoints('Read access lets a user open the dashboard.')).toBe(false);
  });
});

/** Folders of pages written for one test, removed after it. */
const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An engine whose knowledge base is `pages` (file name → text), ingested under `baseUrl`, and how it answers one question. */
async function knowledgeBase(pages: Record<string, string>, baseUrl = 'https://docs.acme.test/') {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-pages-'));
  folders.push(dir);
  for (const [name, text] of Object.entries(pages)) writeFileSync(join(dir, name), text);
  const engine = await openTestEngine();
  await engine.ingest('acme', [dir], { baseUrl });
  const answer = (question: string) => engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });
  return { engine, answer };
}

describe('the sources of a quoted answer', () => {
  it('lists only the sections it quotes, each titled as a person names it, docs before code for a how-to question', async () => {
    const kb = await knowledgeBase(
      {
        'refunds.md': '# Billing\n\n## Refunds\n\nAsk for a refund within 30 days of a payment: open Billing, choose the payment, then Refund.\nRefunds take five business days.\n\n## Invoices\n\nInvoices are emailed on the day each payment is taken.\n',
        'refund.ts': [
          "import { provider } from './provider';",
          '',
          'export const REFUND_PAYMENT_QUERY = `',
          '  SELECT id, amount FROM payments',
          '  WHERE refund_requested = 1 AND paid_at > ?`;',
          '',
          'export function refundPayment(paymentId: string) {',
          '  return provider.refund(paymentId);',
          '}',
        ].join('\n'),
      },
      'https://help.acme.test/',
    );
    const answer = await kb.answer('How do I get a refund of a payment?');
    expect(answer.isUncertain).toBe(false);
    expect(answer.sources[0]!.title).toBe('Refunds — Billing');
    expect(answer.content.startsWith('Ask for a refund within 30 days')).toBe(true);
    // Each source listed has a passage of its own in the reply.
    const passages: Record<string, string> = {
      'refunds#refunds': 'Refunds take five business days.',
      'refunds#invoices': 'Invoices are emailed on the day each payment is taken.',
      'refund.ts#L7-L9': 'export function refundPayment(paymentId: string) {',
    };
    for (const source of answer.sources) expect(answer.content, source.url).toContain(passages[source.url.split('/').pop()!] ?? source.url);
    expect(answer.content).not.toMatch(/SELECT|^import /m);
    for (const { title } of answer.sources) expect(title).not.toMatch(/\(continued\)|\.md\b/);
    // What another section says is captioned with its link: never read as more of the first section.
    const parts = answer.content.split('\n\n');
    expect(parts[0]).not.toMatch(/^From /);
    for (const source of answer.sources.slice(1)) expect(answer.content).toContain(`From [${source.title}](${source.url}):\n\n`);
  });

  it("quotes another page only when it holds one of the question's words rarest in the knowledge base or one not quoted yet; the page that answers, always", async () => {
    const kb = await knowledgeBase({
      'reset.md': '# Passwords\n\n## Reset your password\n\nTo reset the password of your email account in the app, open Settings, choose Security, then Reset password.\n\n## Reset links\n\nA reset link sent by email expires after one hour.\n',
      'signup.md': '# Password and email account\n\nSign up: each email account belongs to one person, and an email account can hold several workspaces.\n',
      // As on the help center of an email service, "email" and "account" are said everywhere:
      // what the question is about is resetting a password, though English alone ranks "email" first.
      'billing.md': '# Billing\n\nYour email account is billed each month.\n',
      'profile.md': '# Profile\n\nEach email account has a profile picture.\n',
    });
    const answer = await kb.answer('How do I reset the password of my email account?');
    expect(answer.isUncertain).toBe(false);
    const cited = answer.sources.map((s) => s.url.split('/').pop());
    expect(cited[0]).toBe('reset#reset-your-password');
    expect(cited).toContain('signup');
    // The page that answers goes on with its answer.
    expect(answer.content).toContain('A reset link sent by email expires after one hour.');
    // The other page only says "email account" again, which the reply has said: a source, not a quote.
    expect(answer.content).not.toContain('Sign up');
  });

  it('ranks docs before code for a question in words, and code as much as docs for one that names code', async () => {
    const kb = await knowledgeBase({
      'tables.md': '# Tables\n\n## Empty cells\n\nThe parser keeps an empty table cell as an empty string.\n',
      'cells.ts': ['/** The parser keeps an empty table cell as an empty string. */', 'export function keepEmptyCells(row: string[]): string[] {', "  return row.map((cell) => cell.trim());", '}'].join('\n'),
    });
    const first = async (query: string) => (await kb.engine.search('acme', query, { limit: 5 }))[0]!.section.url.split('/').pop();
    expect(await first('does the parser keep an empty table cell')).toBe('tables#empty-cells');
    // "function" names code: the code, which says it too, is not held back.
    expect(await first('which function keeps an empty table cell')).toMatch(/^cells\.ts#L/);
  });

  it('lists a second page that says the very passage it quotes (quoted once)', async () => {
    const shared = 'An overloaded_error event means the API is temporarily overloaded: retry with backoff.';
    const kb = await knowledgeBase({
      'streaming.md': `# Streaming\n\n## Error events\n\n${shared}\n`,
      'messages.md': `# Messages streaming\n\n## Error events\n\n${shared}\n\n## Ping events\n\nPing events keep the connection open.\n`,
    });
    const answer = await kb.answer('What does an overloaded_error event mean?');
    expect(answer.isUncertain).toBe(false);
    expect(answer.content).toBe(shared);
    expect(answer.sources.map((s) => s.url.split('/').pop()).sort()).toEqual(['messages#error-events', 'streaming#error-events']);
  });

  it('keeps the sentence that introduces the code it shows, with the code right after it and what follows after the code', async () => {
    const kb = await knowledgeBase({
      'styling.md':
        '# Styling\n\n## Brand colours\n\nTo match your brand colours, set the custom properties on the element from your stylesheet:\n\n```css\nacme-chat {\n  --acme-accent: #e4572e;\n}\n```\n\nSet them inside a dark media query for a dark variant of your brand colours.\n',
    });
    const answer = await kb.answer('How do I change the brand colours?');
    expect(answer.isUncertain).toBe(false);
    const intro = answer.content.indexOf('set the custom properties on the element from your stylesheet:');
    const code = answer.content.indexOf('--acme-accent: #e4572e;');
    const after = answer.content.indexOf('Set them inside a dark media query');
    expect(intro).toBeGreaterThanOrEqual(0);
    expect(code).toBeGreaterThan(intro);
    expect(after).toBeGreaterThan(code);
  });

  it('never shows a diagram drawn in a code block as the example a how-to question asks for', async () => {
    const kb = await knowledgeBase({
      'intro.md': '# Acme chat\n\nAcme chat answers from your docs and hands the visitor to a human when the assistant is not enough.\n\n```\nbrowser ── <acme-chat> ──HTTP──▶ proxy ──HTTP──▶ API\n```\n\nEvery answer is followed by a form to reach a human.\n',
    });
    const answer = await kb.answer('how do I hand the visitor to a human?');
    expect(answer.isUncertain).toBe(false);
    expect(answer.content).toContain('hands the visitor to a human');
    expect(answer.content).not.toContain('──▶');
    // A diagram is told from code by its marks, in one pass over the block, however long.
    expect(isDiagram({ text: 'a ──▶ b', lang: '' })).toBe(true);
    expect(isDiagram({ text: 'const arrow = "→";', lang: 'ts' })).toBe(false);
    expect(isDiagram({ text: 'x = 1 // → next', lang: '' })).toBe(false);
    const started = performance.now();
    expect(isDiagram({ text: `${'a'.repeat(5_000_000)}─→`, lang: '' })).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('quotes the sentence that introduces the code it shows even when a long list before it fills the reply, and in page order', async () => {
    const items = ['serves the widget files from the package under the base path of the site, in the dev server and in the build', 'mounts the proxy in the dev server of the generator with the settings of the env file that init wrote', 'puts the widget search in the navbar search place, on the keyboard shortcut', 'follows the light and dark toggle of the site and opens results through its router', 'writes the llms text files at build, an index with one link per page and every page in full'];
    const list = items.map((item) => `- ${item}, so that the chat is put on the site for every visitor of every page and works as the site itself does.`).join('\n');
    const kb = await knowledgeBase({
      'sites.md': `# Docs sites\n\nOne line in the config is all it takes.\n\nThe plugin:\n\n${list}\n\nSet up once, in the folder of the site:\n\n\`\`\`sh\nnpm install acme-chat\nnpx acme-chat init\n\`\`\`\n\nThe init command finds the generator and writes the env file.\n`,
    });
    const answer = await kb.answer('how do i put the chat on my site');
    expect(answer.isUncertain).toBe(false);
    const list0 = answer.content.indexOf('serves the widget files');
    const intro = answer.content.indexOf('Set up once, in the folder of the site:');
    const code = answer.content.indexOf('npm install acme-chat');
    expect(list0).toBeGreaterThanOrEqual(0);
    expect(intro).toBeGreaterThan(list0);
    expect(code).toBeGreaterThan(intro);
  });

  it('quotes each step written as a sentence and its code with its code, in page order: install, then start in two terminals', async () => {
    const kb = await knowledgeBase({
      'start.md':
        '# Quick start\n\n## Run the server\n\nInstall the server package in the folder of your site:\n\n```sh\nnpm install acme-server\n```\n\nThen start the server and your site, in two terminals:\n\n```sh\nnpx acme-server start\n```\n\n```sh\nnode site.mjs\n```\n\nOpen the site and ask the server a question.\n',
    });
    const answer = await kb.answer('how do i install and start the server for my site');
    expect(answer.isUncertain).toBe(false);
    expectInOrder(answer.content, ['Install the server package in the folder of your site:', 'npm install acme-server', 'Then start the server and your site, in two terminals:', 'npx acme-server start', 'node site.mjs']);
    // Each command in its own block, as the page wrote it.
    expect(answer.content).toContain('```sh\nnpx acme-server start\n```\n\n```sh\nnode site.mjs\n```');
  });

  it('never quotes a sentence pointing back to one it leaves out (a sentence introducing code that is not shown)', async () => {
    const kb = await knowledgeBase({
      'fonts.md':
        '# Fonts\n\n## Font of the panel\n\nEverything below applies to the whole widget, as the properties of the element:\n\nSet them in your stylesheet to change the font of the panel in the dark theme.\n\nThe panel takes the font of the page by default, in the light and the dark theme.\n',
    });
    const fonts = await kb.answer('Can I change the font of the panel in the dark theme?');
    expect(fonts.content).toContain('The panel takes the font of the page by default');
    expect(fonts.content).not.toMatch(/^Set them/m);
  });

  it('quotes a sentence once when another section says it again in nearly the same words', async () => {
    const kb = await knowledgeBase({
      'quota.md':
        '# Storage quota\n\n## What happens if I go over my storage quota?\n\nGoing over your storage quota for one month needs no action from you. If storage use falls back under your quota the next month, nothing changes.\n\n## I uploaded a lot at once, do I need a bigger plan?\n\nIf storage use drops back under your quota the next month, nothing changes. Uploads are never deleted for going over.\n',
    });
    const answer = await kb.answer('What happens if I go over my storage quota?');
    expect(answer.isUncertain).toBe(false);
    expect(answer.content).toContain('If storage use falls back under your quota the next month, nothing changes.');
    expect(answer.content).not.toContain('If storage use drops back under your quota the next month, nothing changes.');
  });
});

describe('a heading with no text of its own', () => {
  it('is answered with the text under it, and cited by its own address', async () => {
    const kb = await knowledgeBase({
      'vertex.md': '# Claude on Vertex AI\n\n## Accessing Vertex AI\n\n### Authenticate\n\nRun `gcloud auth application-default login` before your first request.\n\n## Pricing\n\nBilled by Google Cloud.\n',
    });
    const answer = await kb.answer('accessing Vertex AI');
    expect(answer.isUncertain).toBe(false);
    expect(answer.content).toContain('Run `gcloud auth application-default login` before your first request.');
    expect(answer.sources.map((s) => s.url.split('/').pop())).toContain('vertex#accessing-vertex-ai');
  });

  it('is never read with the next heading at its own level, which says something else', async () => {
    const kb = await knowledgeBase({
      'vertex.md': '# Claude on Vertex AI\n\n## Accessing Vertex AI\n\n## Model availability\n\nSearch for Claude in the Model Garden for the latest regions.\n\n## Pricing\n\nBilled by Google Cloud.\n',
    });
    const answer = await kb.answer('accessing Vertex AI');
    // What "Model availability" says is quoted only where that section is cited.
    if (answer.content.includes('Search for Claude in the Model Garden')) expect(answer.sources.map((s) => s.url.split('/').pop())).toContain('vertex#model-availability');
    expect(answer.sources.map((s) => s.url.split('/').pop())).not.toEqual(['vertex#accessing-vertex-ai']);
  });
});

describe('a reply that is not sure', () => {
  it('quotes what the related page most likely to help says, a list too, never as the answer; the others are its sources', async () => {
    const { engine } = await knowledgeBase(
      {
        'storage.md': '# Storage limits\n\n## Free up space\n\n1. Open **Settings → Sync**.\n2. Select **View largest files** next to the vault size.\n3. Delete what you do not need, then select **Prune**.\n',
        'plans.md': '# Plans\n\n## Downgrade\n\nA smaller plan needs the vault to fit its storage before the downgrade.\n',
        'publish.md': '# Publish\n\n## Media\n\nLarge videos are better hosted elsewhere and embedded.\n',
      },
      'https://help.acme.test/',
    );
    const question = 'sync says my vault is too big for storage, how do i make room';
    const hits = await engine.search('acme', question, { limit: 10 });
    const reply = relatedReply(hits, new Set((await engine.vocabulary('acme')).terms(question)));
    expect(reply.isUncertain).toBe(true);
    expect(reply.content.startsWith(RELATED_INTRO)).toBe(true);
    expect(reply.content).toContain('“Free up space — Storage limits” says:\n\n> 1. Open **Settings → Sync**.\n> 2. Select **View largest files** next to the vault size.');
    expect(reply.content).not.toContain('Downgrade');
    expect(reply.sources.map((source) => source.title)).toContain('Downgrade — Plans');
    // Ranked last, the page quoted is still the first source listed: the one whose words were read.
    const reversed = relatedReply([...hits].reverse(), new Set((await engine.vocabulary('acme')).terms(question)));
    expect(reversed.content).toContain('“Free up space — Storage limits” says:');
    expect(reversed.sources[0]!.title).toBe('Free up space — Storage limits');
  });

  it.each(['Learn more', 'What’s next?'])('lists no section of navigation: a "%s" of links has the words of the pages it links to', async (heading) => {
    const { engine } = await knowledgeBase(
      {
        'storage.md': '# Storage limits\n\n## Free up space\n\n1. Open **Settings → Sync**.\n2. Select **View largest files** next to the vault size.\n',
        'plans.md': `# Plans\n\nPlans differ in price.\n\n## ${heading}\n\n- [Storage too big for sync: make room in the vault](https://help.acme.test/storage)\n- [Vault storage](https://help.acme.test/storage)\n`,
      },
      'https://help.acme.test/',
    );
    const question = 'sync says my vault is too big for storage, how do i make room';
    const hits = await engine.search('acme', question, { limit: 10 });
    expect(hits.map((hit) => hit.section.title)).toContain(heading);
    const reply = relatedReply(hits, new Set((await engine.vocabulary('acme')).terms(question)));
    expect(reply.sources.map((source) => source.title)).not.toContain(`${heading} — Plans`);
    expect(reply.sources.map((source) => source.title)).toContain('Free up space — Storage limits');
  });

  it("quotes no example of another page for the names in its code alone: a question in words is not asked of a config's identifiers", async () => {
    const { answer } = await knowledgeBase({
      'engine.md': '# The answer engine\n\n## Add your own docs\n\nIngest a folder of Markdown, and answers come from it:\n\n```sh\nnpx kit kb ingest ./docs --org acme\n```\n',
      'mcp.md': '# Your own docs for AI agents\n\n## Add them to Claude Code\n\nOr, shared with a project, in `.mcp.json`:\n\n```json\n{ "mcpServers": { "acme-docs": { "url": "https://api.acme.test/v0/mcp" } } }\n```\n',
    });
    const reply = await answer('how do i add my own docs?');
    expect(reply.sources[0]!.url).toMatch(/engine#add-your-own-docs$/);
    expect(reply.content).toContain('npx kit kb ingest ./docs --org acme');
    // Still a source: its heading holds the question's words, where the visitor reads on.
    expect(reply.sources.some((source) => source.url.endsWith('/mcp#add-them-to-claude-code'))).toBe(true);
    expect(reply.content).not.toContain('mcpServers');
    // Asked for the code, the example is what it asks about.
    expect((await answer('show me the json config for acme-docs in claude code')).content).toContain('"acme-docs"');
  });

  it('quotes each sentence that introduces code with its own code right after it ("On macOS:", "On Windows:")', async () => {
    const intro = (where: string) => `The relay keeps the conversations of the laptop and production visitors in ${where}, with the settings of the env file that init wrote for the relay, in the folder of your site:`;
    const kb = await knowledgeBase({
      'relay.md': `# Relay\n\n## The relay\n\n${intro('memory')}\n\n\`\`\`sh\nnpx acme relay --memory\n\`\`\`\n\n${intro('the database')}\n\n\`\`\`sh\nnpx acme relay --database\n\`\`\`\n\nThe relay keeps the conversations of laptop and production visitors for thirty days, in the database of the organization that owns the site, and deletes them after that unless a person on the team asked to keep one longer for a ticket, which the relay then keeps until the ticket is closed by the team and for thirty days after, so that a visitor who comes back finds the conversation as it was when they left it on the site.\n`,
    });
    const answer = await kb.answer('what conversations does the relay keep for laptop and production visitors, and for how long');
    expect(answer.isUncertain).toBe(true);
    expectInOrder(answer.content, ['in memory,', 'npx acme relay --memory', 'in the database,', 'npx acme relay --database']);
  });

  it('quotes no list too long to read at a glance: the page is linked instead', async () => {
    const item = (i: number) => `- Step ${i} of freeing vault storage space: ${'open the sync settings, look at the largest files, and remove what you no longer need '.repeat(2)}`;
    const { engine } = await knowledgeBase(
      { 'storage.md': `# Storage limits

## Free up space

${Array.from({ length: 10 }, (_, i) => item(i)).join('\n')}
` },
      'https://help.acme.test/',
    );
    const question = 'sync says my vault is too big for storage, how do i make room';
    const reply = relatedReply(await engine.search('acme', question, { limit: 10 }), new Set((await engine.vocabulary('acme')).terms(question)));
    expect(reply.isUncertain).toBe(true);
    expect(reply.content).toBe(RELATED_INTRO);
    expect(reply.sources.map((source) => source.title)).toEqual(['Free up space — Storage limits']);
  });
});

describe('a reply sized for a chat panel', () => {
  const long = (topic: string) =>
    Array.from({ length: 8 }, (_, i) => `The ${topic} detail number ${i + 1} is described at length for administrators who manage several workspaces at once, with examples for every plan, every currency and every country we sell in, and the exceptions that apply to each.`).join(' ');

  it('quotes the answering passage and about 600 characters of prose, then "More on <page>" for the rest', async () => {
    const kb = await knowledgeBase({
      'refunds.md': `# Refunds\n\n## Refund window\n\nA refund can be asked for within 30 days of a payment. ${long('window')}\n\n## Refund methods\n\n${long('method')} A refund goes back to the card that paid, within the window.\n`,
    });
    const answer = await kb.answer('how many days is the refund window?');
    expect(answer.isUncertain).toBe(false);
    expect(answer.content).toContain('A refund can be asked for within 30 days of a payment.');
    expect(answer.content.length).toBeLessThan(900);
    expect(answer.content).toMatch(/\n\nMore on \[Refund window — Refunds\]\(https:\/\/docs\.acme\.test\/[^)]*refund-window\)\.$/);
  });

  it('answers a prose question without a source file’s internals, and a code question with its code', async () => {
    const kb = await knowledgeBase({
      'guide.md': '# Guide\n\n## Dropped tags\n\nThe crawler drops the navigation, scripts and styles tags of a page before it reads the content, so answers quote only the page’s content.\n',
      'crawl.ts': [
        '/** Tags the crawler drops from a page before it reads the content: navigation, scripts and styles. */',
        "export const DROPPED_TAGS = new Set(['nav', 'script', 'style', 'header', 'footer', 'aside']);",
        '',
        '/** Reads the content of a page, without the dropped tags. */',
        'export function readContent(html: string): string {',
        '  return html.replace(/<[^>]+>/g, "");',
        '}',
      ].join('\n'),
    });
    const prose = await kb.answer('which tags does the crawler drop from a page before it reads the content?');
    expect(prose.content).toContain('The crawler drops the navigation, scripts and styles tags');
    expect(prose.content).not.toContain('```');
    expect(prose.content).not.toContain('DROPPED_TAGS');
    const code = await kb.answer('what is in the DROPPED_TAGS constant?');
    expect(code.content).toContain('```');
    expect(code.content).toContain("new Set(['nav'");
  });

  it('quotes code a passage introduces ("add this:") to a prose question', async () => {
    const kb = await knowledgeBase({
      'install.md': '# Install\n\n## Add the widget\n\nTo add the widget to your page, put this in its HTML:\n\n```html\n<script src="/support-chat.iife.js" data-endpoint="/api/support" async></script>\n```\n',
    });
    const answer = await kb.answer('how do I add the widget to my page?');
    expect(answer.content).toContain('To add the widget to your page, put this in its HTML:');
    expect(answer.content).toContain('```html\n<script src="/support-chat.iife.js"');
  });

  it('never quotes a "See also" list or links glued into a line, and a reply of links alone is no answer', async () => {
    const kb = await knowledgeBase({
      'sync.md': '# Sync\n\n## Sync settings\n\nSync keeps your notes the same on every device.\n\n## See also\n\n- [Sync settings for teams](https://docs.acme.test/teams)\n- [Sync conflicts and history](https://docs.acme.test/conflicts)\n- [Sync on mobile devices](https://docs.acme.test/mobile)\n',
      'menu.md': '# Menu\n\n## Reminders\n\n[Reminder emails](https://docs.acme.test/a) [Reminder schedule](https://docs.acme.test/b) [Reminder templates](https://docs.acme.test/c) [Reminder limits](https://docs.acme.test/d)\n',
    });
    const sync = await kb.answer('which sync settings for teams and sync conflicts are there?');
    expect(sync.content).not.toContain('](https://docs.acme.test/teams)');
    const reminders = await kb.answer('reminder emails schedule templates limits');
    expect(reminders.content).not.toContain('[Reminder emails]');
    expect(reminders.isUncertain).toBe(true);
  });
});

describe('what a reply holds', () => {
  it('tells a code question from a prose question', () => {
    expect(asksForCode('What is the purpose of the DiffExecutor struct?')).toBe(true);
    expect(asksForCode('What happens in the `run_target` method?')).toBe(true);
    expect(asksForCode('Where is createSupportProxy() defined?')).toBe(true);
    expect(asksForCode('How do I make it use OpenAI to write the answers on iOS?')).toBe(false);
    expect(asksForCode('how often does it send reminders by default?')).toBe(false);
  });

  it('knows a list of links from a list that says something, in linear time', () => {
    expect(onlyLinks('- [Teams](https://a.test/t)\n- [Conflicts](https://a.test/c)')).toBe(true);
    expect(onlyLinks('See also: [Teams](https://a.test/t) [Conflicts](https://a.test/c)')).toBe(true);
    expect(onlyLinks('- Open [Settings](https://a.test/s) and choose a plan for the whole team.\n- Pay by card or invoice, monthly or yearly.')).toBe(false);
    const worst = '[a]('.repeat(50_000);
    const started = performance.now();
    onlyLinks(worst);
    asksForCode(`${'_a'.repeat(50_000)} ${'aB'.repeat(50_000)}`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
