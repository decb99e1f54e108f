import { afterEach, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { NO_ANSWER } from '../../../src/server/answers/compose.js';
import { openTestEngine } from '../../helpers/answer-engine.js';
import { fakeLlm, type FakeLlm } from '../../helpers/fake-llm.js';

/** A help center of two pages: the answer/no-answer decision must work as well as on a large one. */
const helpCenter = resolve(import.meta.dirname, '../../fixtures/kb-two-pages/help');

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function twoPages() {
  const config = llm ? { baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 2000, retries: 0 } : null;
  const engine = await openTestEngine({ llm: config });
  await engine.ingest('shop', [helpCenter], { baseUrl: 'https://help.shop.test/' });
  return (question: string) => engine.answer({ orgId: 'shop', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });
}

describe('a two-page help center', () => {
  it.each([
    ['how long do refunds take?', 'refunds', /within 14 days/],
    ['refund policy', 'refunds', /Refunds are issued/],
    ['when are invoices sent?', 'invoices', /first day of each month/],
    ['where do I find my invoice', 'invoices', /Billing page/],
    ['how long do refnuds take', 'refunds', /within 14 days/],
    ['when are invioces sent?', 'invoices', /first day of each month/],
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

describe('a two-page help center with an LLM', () => {
  it('sends the passages to the LLM, which answers with a citation', async () => {
    llm = await fakeLlm();
    llm.script = ['Refunds are issued within 14 days of your request [1].'];
    const answer = await (await twoPages())('how long do refunds take?');
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.messages[0]!.content).toContain('Refunds are issued within 14 days');
    expect(answer.content).toBe('Refunds are issued within 14 days of your request [1].');
    expect(answer.sources).toEqual([{ title: 'Refunds', url: 'https://help.shop.test/help/refunds#refunds' }]);
  });

  it('lets the LLM decide on passages the local decision refuses; its refusal cites nothing', async () => {
    const local = await (await twoPages())('apple charged me twice for my icloud storage, can I get a refund');
    expect(local.sources).toEqual([]);
    llm = await fakeLlm();
    llm.script = ["I couldn't find anything about iCloud charges in the documentation; a person on the team can help."];
    const answer = await (await twoPages())('apple charged me twice for my icloud storage, can I get a refund');
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.messages[0]!.content).toContain('Refunds are issued within 14 days');
    expect(answer).toEqual({ content: "I couldn't find anything about iCloud charges in the documentation; a person on the team can help.", sources: [], isUncertain: true });
  });
});
