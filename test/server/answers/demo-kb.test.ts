import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import type { Sql } from '../../../src/server/store/sql.js';
import { openTestSql } from '../../helpers/database.js';
import { NO_ANSWER } from '../../../src/server/answers/compose.js';
import { DEMO_DOCS } from '../../helpers/demo-docs.js';

/** `npm start`'s knowledge base: this project's README, docs and source (see scripts/start.mjs). */
const repo = resolve(import.meta.dirname, '../../..');
let sql: Sql;
let engine: ReturnType<typeof createAnswerEngine>;

beforeAll(async () => {
  sql = await openTestSql();
  engine = createAnswerEngine({ sql, llm: null });
  await engine.ingest('demo', [resolve(repo, 'README.md'), resolve(repo, 'src')], { baseUrl: 'http://localhost:8080/source/' });
  await engine.ingest('demo', DEMO_DOCS.map((page) => resolve(repo, page)), { baseUrl: 'http://localhost:8080/source/docs/' });
}, 60_000);
afterAll(() => sql?.close());

const ask = (question: string) => engine.answer({ orgId: 'demo', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });

/** The demo's questions: asked right after `kb ingest` (by words, code not embedded yet: a newcomer's first `npm start`), then once the server has embedded the code. */
const questions = () => {
  it.each([
    ['How do I embed the widget on my site?', 'README#embed-the-widget', /data-endpoint="\/api\/support"/],
    ['How do I run the proxy in Next.js?', 'docs/proxy#nextjs', /Next\.js/],
    ['How do I use the proxy with Express?', 'docs/proxy#mounting', /expressMiddleware\(proxy\)/],
    ['Can conversations be escalated to Linear?', 'docs/integrations#escalation', /Linear/],
    ['What are the rate limits?', 'docs/server#rate-limits', /X-RateLimit-Limit/],
    ['Does it support dark mode?', 'README#embed-the-widget', /`theme` \(`light` \| `dark` \| `auto`\)/],
    ['Which languages does it support?', 'docs/widget#languages-and-your-own-wording', /Spanish, French and Arabic/],
    // The README's table of variables names the three in one row: an answer as right as the engine page's section.
    ['How do I configure an LLM?', ['docs/engine#answers-with-an-llm', 'README#configure'], /SUPPORT_CHAT_LLM_BASE_URL/],
    ['How do I add my own docs?', 'docs/engine#add-your-own-docs', /npx support-chat-kit kb ingest/],
    ['Where is the data stored?', 'README#where-the-data-is-stored', /Data lives in `--data DIR`/],
    ['Is it accessible?', 'docs/widget#behaviour', /\*\*Accessibility\.\*\* Labelled launcher/],
  ] as [string, string | string[], RegExp][])('%s', async (question, source, phrase) => {
    const answer = await ask(question);
    // The section that explains it leads, or follows another section of the same page.
    const [first, second] = answer.sources.map((s) => s.url);
    const leads = (expected: string) => first === expected || (first?.startsWith(expected.replace(/#.*$/, '#')) && second === expected);
    const expected = [source].flat().map((s) => `http://localhost:8080/source/${s}`);
    expect(expected.some(leads), `${first}, ${second}`).toBe(true);
    expect(answer.content).toMatch(phrase);
  });

  it('answers "What CSP does the widget need?" with the widget reference\'s CSP item', async () => {
    const answer = await ask('What CSP does the widget need?');
    expect(answer.sources.slice(0, 2).map((s) => s.url)).toContain('http://localhost:8080/source/docs/widget#behaviour');
    expect(answer.content).toContain("- **CSP.** Works under `script-src 'self'; style-src 'self'; require-trusted-types-for 'script';");
  });

  it('cites a second piece of one source file only when it adds a word of the question', async () => {
    const answer = await ask('Where is the data stored?');
    const files = answer.sources.filter((s) => s.url.includes('/src/')).map((s) => s.url.replace(/#.*$/, ''));
    expect(new Set(files).size).toBe(files.length);
  });

  it('cites nothing for "How much does it cost?": the docs say "cost" only in passing', async () => {
    const answer = await ask('How much does it cost?');
    expect(answer.sources).toEqual([]);
    expect(answer.content).toBe(NO_ANSWER);
  });
};

describe("the demo answers its own users from the docs that explain it, right after kb ingest", questions);

describe('and once the server has embedded the code in the background', () => {
  beforeAll(async () => {
    expect(await engine.embedPending('demo')).toBeGreaterThan(1_000);
  }, 300_000);
  questions();
});
