/**
 * A search embeds its query only when the words alone match little of it, and a question asked
 * again is embedded once: counted on the real sentence encoder.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentenceEncoder, type Embedder } from '../../../src/server/knowledge/ranking/embeddings.js';
import { searchDocs } from '../../../src/server/knowledge/search.js';
import { openTestEngine } from '../../helpers/answer-engine.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function helpCenter(): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-question-embedding-'));
  dirs.push(dir);
  writeFileSync(
    join(dir, 'billing.md'),
    `# Billing

## Refund policy

A refund is issued within 14 days of your request: the money goes back to the card you paid with.

## Payment methods

We accept cards and bank transfers. You are charged on the first day of each month.
`,
  );
  return dir;
}

/** The real encoder, counting the texts it is asked to embed. */
function countingEncoder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    id: sentenceEncoder.id,
    texts,
    async embed(input) {
      texts.push(...input);
      return sentenceEncoder.embed(input);
    },
  };
}

describe('query embeddings', () => {
  it('are not made when the words match the query well, and made once for a repeated weak query', async () => {
    const encoder = countingEncoder();
    const engine = await openTestEngine({ embedder: encoder });
    await engine.ingest('shop', [helpCenter()], { baseUrl: 'https://help.shop.test/' });
    encoder.texts.length = 0;

    const strong = await searchDocs(engine, 'shop', 'refund policy', { limit: 5 });
    expect(strong[0]!.url).toContain('#refund-policy');
    expect(encoder.texts).toEqual([]);

    // Words the docs do not use: meaning decides, so the query is embedded, once for all three asks.
    for (const query of ['can I get reimbursed?', 'can I get   reimbursed?', ' can I get reimbursed? ']) await searchDocs(engine, 'shop', query, { limit: 5 });
    expect(encoder.texts).toEqual(['can I get reimbursed?']);
  });

  it('are made once for a question answered twice', async () => {
    const encoder = countingEncoder();
    const engine = await openTestEngine({ embedder: encoder });
    await engine.ingest('shop', [helpCenter()], { baseUrl: 'https://help.shop.test/' });
    encoder.texts.length = 0;
    const ask = () => engine.answer({ orgId: 'shop', messages: [{ role: 'user', content: 'How long does a refund take?', sources: [] }], signal: new AbortController().signal });
    const first = await ask();
    const second = await ask();
    expect(second.sources).toEqual(first.sources);
    expect(encoder.texts.filter((t) => t === 'How long does a refund take?')).toHaveLength(1);
  });

  it('read a misspelled word as typed and as the word it means, in search and in the chat; a name stays as written', async () => {
    const encoder = countingEncoder();
    const engine = await openTestEngine({ embedder: encoder });
    await engine.ingest('shop', [helpCenter()], { baseUrl: 'https://help.shop.test/' });
    encoder.texts.length = 0;
    await searchDocs(engine, 'shop', 'can i pay by bank trasnfer or wiring', { limit: 5 });
    expect(encoder.texts).toEqual(['can i pay by bank trasnfer or wiring can i pay by bank transfer or wiring', 'can i pay by bank transfer or wiring']);
    encoder.texts.length = 0;
    await engine.answer({ orgId: 'shop', messages: [{ role: 'user', content: 'Can I pay by bank trasnfer from Zyxwvut Bank?', sources: [] }], signal: new AbortController().signal });
    expect(encoder.texts).toEqual(['Can I pay by bank trasnfer from Zyxwvut Bank? Can I pay by bank transfer from Zyxwvut Bank?', 'Can I pay by bank transfer from Zyxwvut Bank?']);
    // Spelled right, the question is embedded as asked, once.
    encoder.texts.length = 0;
    await searchDocs(engine, 'shop', 'can i pay by bank transfer or cheque', { limit: 5 });
    expect(encoder.texts).toEqual(['can i pay by bank transfer or cheque']);
  });

  it('place a section as near a misspelled question as the nearer of its readings: as typed and respelled, or respelled alone', async () => {
    // An encoder that reads meaning by a word: "trasnfer" means nothing it knows, "transfer" payments, "refund" refunds.
    const direction = (k: number) => Int8Array.from({ length: 512 }, (_, i) => (i % 3 === k ? 100 : 0));
    const encoder: Embedder = {
      id: 'keyword-encoder',
      async embed(texts) {
        return texts.map((text) => direction(text.includes('trasnfer') ? 0 : /transfer/i.test(text) ? 1 : /refund/i.test(text) ? 2 : 0));
      },
    };
    const engine = await openTestEngine({ embedder: encoder });
    await engine.ingest('shop', [helpCenter()], { baseUrl: 'https://help.shop.test/' });
    const { hits } = await engine.explain({ orgId: 'shop', messages: [{ role: 'user', content: 'can i pay by bank trasnfer', sources: [] }], signal: new AbortController().signal });
    const payment = hits.find((hit) => hit.section.url.endsWith('#payment-methods'));
    expect(payment?.similarity).toBeCloseTo(1, 5);
    expect(hits.find((hit) => hit.section.url.endsWith('#refund-policy'))?.similarity).toBeCloseTo(0, 5);
  });
});
