import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { resolve } from 'node:path';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { NO_ANSWER } from '../../../src/server/answers/compose.js';

/** A help center of two pages: the answer/no-answer decision must work as well as on a large one. */
const helpCenter = resolve(import.meta.dirname, '../../fixtures/kb-two-pages/help');

async function twoPages() {
  const engine = createAnswerEngine({ db: new Database(':memory:'), llm: null });
  await engine.ingest('shop', [helpCenter], { baseUrl: 'https://help.shop.test/' });
  return (question: string) => engine.answer({ orgId: 'shop', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });
}

describe('a two-page help center', () => {
  it.each([
    ['how long do refunds take?', 'refunds', /within 14 days/],
    ['refund policy', 'refunds', /Refunds are issued/],
    ['when are invoices sent?', 'invoices', /first day of each month/],
    ['where do I find my invoice', 'invoices', /Billing page/],
  ])('answers "%s" from the right page', async (question, page, phrase) => {
    const answer = await (await twoPages())(question);
    expect(answer.sources.length).toBeGreaterThan(0);
    expect(answer.sources[0]!.url).toContain(`/help/${page}`);
    expect(answer.content).toMatch(phrase);
  });

  it.each(['what is the capital of France', 'how many tablespoons are in a cup'])('cites nothing for "%s"', async (question) => {
    const answer = await (await twoPages())(question);
    expect(answer.sources).toEqual([]);
    expect(answer.content).toBe(NO_ANSWER);
  });
});
