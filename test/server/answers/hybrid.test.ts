/**
 * Hybrid retrieval through the real engine (the Universal Sentence Encoder, SQLite): sections found
 * by their meaning alone, with no word of the question, join the words' candidates and are shown;
 * code pieces are embedded as what they are (doc comment, signature, identifiers as words).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { codeText } from '../../../src/server/knowledge/ranking/embeddings.js';
import { showNearest } from '../../../src/server/knowledge/ranking/rank.js';
import type { Embedder } from '../../../src/server/knowledge/ranking/embeddings.js';
import { searchDocs } from '../../../src/server/knowledge/search.js';
import { tokenize } from '../../../src/server/knowledge/text/text.js';
import { migrations } from '../../../src/server/schema.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { openSql } from '../../../src/server/store/sql.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function sql() {
  const db = await openSql({ dataDir: ':memory:' });
  await migrate(db, migrations);
  return db;
}

/** A five-page help center of a note-taking app, written for this test. */
const PAGES: Record<string, string> = {
  'refunds.md': '# Refunds\n\nNot happy with a purchase? Ask for a refund within 30 days and the full amount is returned to your card.\n',
  'shortcuts.md': '# Keyboard shortcuts\n\n## Editing\n\nPress Ctrl+B to make text bold and Ctrl+I for italics.\n\n## Navigation\n\nPress Ctrl+O to open the quick switcher and jump to any note by its name.\n',
  'themes.md': '# Themes\n\nChoose a light or dark theme under Settings, Appearance. Community themes can be installed from the theme gallery.\n',
  'sync.md': '# Sync\n\n## Set up sync\n\nSign in on each device and pick the vault to sync. Changes upload within seconds.\n\n## Sync back up\n\nIf sync pauses, reopen the app and check your internet connection; your notes are kept on the device meanwhile.\n',
  'plans.md': '# Plans\n\nThe Standard plan syncs one vault; the Plus plan syncs ten vaults and keeps a year of version history. Plans are paid monthly or yearly.\n',
};

function helpCenter(): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-hybrid-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'help'));
  for (const [name, text] of Object.entries(PAGES)) writeFileSync(join(dir, 'help', name), text);
  return dir;
}

const ask = (content: string) => [{ role: 'user' as const, content, sources: [] }];
const signal = new AbortController().signal;
const MONEY_BACK = 'can i get my money back?';

describe('hybrid retrieval', () => {
  it('reaches a page that shares no word with the question, by its meaning, and shows it', async () => {
    const dir = helpCenter();
    // The fixture's premise: no word of the question is a word of the Refunds page.
    const page = new Set(tokenize(PAGES['refunds.md']!));
    expect(tokenize(MONEY_BACK).filter((t) => page.has(t))).toEqual([]);
    const byWords = createAnswerEngine({ sql: await sql(), llm: null, embedder: null });
    await byWords.ingest('app', [join(dir, 'help')], { baseUrl: 'https://help.test/' });
    expect((await byWords.search('app', MONEY_BACK)).map((h) => h.section.title)).not.toContain('Refunds');
    const hybrid = createAnswerEngine({ sql: await sql(), llm: null });
    await hybrid.ingest('app', [join(dir, 'help')], { baseUrl: 'https://help.test/' });
    const titles = (await hybrid.search('app', MONEY_BACK)).slice(0, 5).map((h) => h.section.title);
    expect(titles).toContain('Refunds');
    const reply = await hybrid.answer({ orgId: 'app', messages: ask(MONEY_BACK), signal });
    expect(reply.sources.map((s) => s.url)).toContain('https://help.test/help/refunds');
  }, 60_000);

  it('still cites nothing for a question about nothing the knowledge base holds', async () => {
    const dir = helpCenter();
    const engine = createAnswerEngine({ sql: await sql(), llm: null });
    await engine.ingest('app', [join(dir, 'help')], { baseUrl: 'https://help.test/' });
    const reply = await engine.answer({ orgId: 'app', messages: ask('How do I make a chocolate cake?'), signal });
    expect(reply).toMatchObject({ sources: [], isUncertain: true });
  }, 60_000);
});

describe('what a whole question means', () => {
  /** A stand-in model with two meanings: a text that says "more" means one thing, any other the other (unit vectors, as the model's). */
  const twoMeanings: Embedder = {
    id: 'two-meanings',
    embed: async (texts) => texts.map((text) => Int8Array.from({ length: 512 }, (_, i) => (i === (/\bmore\b/i.test(text) ? 0 : 1) ? 127 : 0))),
  };
  const pages: Record<string, string> = {
    'import.md': '# Import from Google Analytics\n\n## Import your visitors\n\nImport your visitors and pageviews from Google Analytics to show them on your dashboard: connect your Google account, pick the property, and the visitors of each day are imported.\n',
    'faq.md': '# Dashboard FAQ\n\n## Why does the dashboard count more visitors?\n\nOther analytics tools count fewer people than we do: ad blockers stop their scripts, and they sample the data.\n',
  };

  it('reorders what its words found in the chat, however much of it the words match; search keeps the words\' order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-meaning-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(pages)) writeFileSync(join(dir, name), text);
    const engine = createAnswerEngine({ sql: await sql(), llm: null, embedder: twoMeanings });
    await engine.ingest('app', [dir], { baseUrl: 'https://help.test/' });
    const question = 'why does the dashboard show more visitors than google analytics?';
    // The words match the import page wholly: by them alone it goes first, and search keeps that order.
    const [byWords] = await engine.search('app', question);
    expect(byWords).toMatchObject({ coverage: 1, section: { title: 'Import your visitors' } });
    expect((await searchDocs(engine, 'app', question))[0]?.section).toBe('Import your visitors');
    // The chat embeds the question: the section that means what it asks goes first, and its reply leads with it.
    const { hits } = await engine.explain({ orgId: 'app', messages: ask(question), signal });
    expect(hits.map((hit) => hit.section.title)).toEqual(['Why does the dashboard count more visitors?', 'Import your visitors']);
    const reply = await engine.answer({ orgId: 'app', messages: ask(question), signal });
    expect(reply.sources[0]?.title).toBe('Why does the dashboard count more visitors? — Dashboard FAQ');
  }, 60_000);
});

describe('the sections nearest in meaning, shown beside the words', () => {
  const hits = (...indexes: number[]) => indexes.map((index) => ({ index }));
  it('places them second, fourth and sixth unless already among the first five, keeping the rest in order', () => {
    expect(showNearest(hits(1, 2, 3, 4, 5, 6, 7, 8), hits(7, 2, 9)).map((h) => h.index)).toEqual([1, 7, 2, 9, 3, 4, 5, 6, 8]);
    expect(showNearest(hits(1, 2, 3), hits(2, 3))).toEqual(hits(1, 2, 3));
    expect(showNearest(hits(1), hits(5, 6)).map((h) => h.index)).toEqual([1, 5, 6]);
    expect(showNearest(hits(), hits(5)).map((h) => h.index)).toEqual([5]);
  });
});

describe('code pieces embedded as what they are', () => {
  it('reads a piece as its name and file in words, its doc comment, its signature and its identifiers split into words', () => {
    const code = '/** Builds the body sent back when a request fails. */\nexport class ProblemDetails {\n  toJSON() {\n    return { httpStatus: this.httpStatus, detail_text: this.detail_text };\n  }\n}';
    const text = codeText({ title: 'ProblemDetails', context: 'src/http/problem-details.ts', body: 'Builds the body sent back when a request fails.', code });
    expect(text.split('\n')).toEqual([
      'problem details — problem details',
      'Builds the body sent back when a request fails.',
      'export class ProblemDetails {',
      // Each identifier once, in words, in order of first use (shorter than three letters: left out).
      'export class problem details to json return http status this detail text',
    ]);
  });

  it('reaches a code piece by its meaning when the question shares no word with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-hybrid-code-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'problem-details.ts'), '/** Builds the body sent back when a request fails. */\nexport class ProblemDetails {\n  toJSON() {\n    return { httpStatus: this.httpStatus, detail_text: this.detail_text };\n  }\n}\n');
    writeFileSync(join(dir, 'src', 'themes.ts'), '/** Switches between the light and dark colour schemes. */\nexport function applyTheme(theme: Theme): void {\n  document.body.dataset.theme = theme.name;\n}\n');
    const question = 'what does the error message look like?';
    const byWords = createAnswerEngine({ sql: await sql(), llm: null, embedder: null });
    await byWords.ingest('app', [join(dir, 'src')]);
    expect(await byWords.search('app', question)).toEqual([]);
    const hybrid = createAnswerEngine({ sql: await sql(), llm: null });
    await hybrid.ingest('app', [join(dir, 'src')]);
    // Code pieces are embedded after the ingest (by the server, in the background): until then, words alone.
    expect(await hybrid.search('app', question)).toEqual([]);
    expect(await hybrid.embedPending('app')).toBe(2);
    expect((await hybrid.search('app', question)).map((h) => h.section.title)).toEqual(['ProblemDetails']);
  }, 60_000);
});
