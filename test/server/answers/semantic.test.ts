import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { cosine, fromBytes, quantize, sectionText, sentenceEncoder, toBytes, type Embedder } from '../../../src/server/knowledge/ranking/embeddings.js';
import { answerOdds, answerSignals, decide, DECISION, MEANING_NEUTRAL, shouldAnswer, THRESHOLDS, type AnswerSignals } from '../../../src/server/answers/decision.js';
import { openTestSql } from '../../helpers/database.js';
import { turnsDuring } from '../../helpers/event-loop.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A small help center whose words mislead: the question below says "charged" and "this month",
 * as the payment section does; the refunds section says "money back" but ranks second by words.
 */
function helpCenter(): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-semantic-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'docs'));
  mkdirSync(join(dir, 'code'));
  writeFileSync(
    join(dir, 'docs', 'billing.md'),
    `# Billing

## Refund policy

A refund is issued within 14 days of your request: the money goes back to the card you paid with.

## Payment methods

We accept cards and bank transfers. You are charged on the first day of each month, and a receipt is emailed the same day to the billing contact, who can change the card at any time from the billing page of the workspace settings.

## Signing in

Signed out? Sign in again to get back to your account, or ask an owner to get you a new seat.
`,
  );
  writeFileSync(join(dir, 'code', 'refund.ts'), '/** Issues a refund for an order. */\nexport function refund(orderId: string) {\n  return orderId;\n}\n');
  return dir;
}

/** The real encoder, counting the texts it embeds; `id` names it as another model would be. */
function countingEncoder(id = sentenceEncoder.id): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    id,
    texts,
    async embed(input) {
      texts.push(...input);
      return sentenceEncoder.embed(input);
    },
  };
}

async function sql() {
  const db = await openTestSql();
  onTestFinished(() => db.close());
  return db;
}

const QUESTION = 'I was charged twice this month, how do I get my money back?';

describe('sentence embeddings', () => {
  // First in the file: the model is loaded once per process.
  it("leave the process's handlers of uncaught errors as they were when the model loads", async () => {
    const before = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    await sentenceEncoder.embed(['hello']);
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(before);
  });

  it('put a question near the passage that answers it in other words', async () => {
    const [question, refund, payment] = await sentenceEncoder.embed([
      QUESTION,
      'A refund is issued within 14 days of your request: the money goes back to the card you paid with.',
      'We accept cards and bank transfers.',
    ]);
    expect(question).toHaveLength(512);
    expect(cosine(question!, refund!)).toBeGreaterThan(cosine(question!, payment!) + 0.05);
  });

  it("are computed on the model's own thread: the event loop keeps turning meanwhile", async () => {
    await sentenceEncoder.embed(['warm up']);
    const texts = Array.from({ length: 32 }, (_, i) => `Section ${i}: ${'Sync keeps your notes in step across devices, with version history. '.repeat(6)}`);
    const { turns } = await turnsDuring(() => sentenceEncoder.embed(texts));
    // On the event loop's thread, two batches of sixteen would allow about two turns.
    expect(turns).toBeGreaterThan(20);
  });

  it('keep a vector through bytes, and its direction through quantization', () => {
    const vector = Float32Array.from({ length: 512 }, (_, i) => Math.sin(i) / 16);
    const q = quantize(vector);
    expect(Math.max(...q.map(Math.abs))).toBe(127);
    expect(fromBytes(toBytes(q))).toEqual(q);
    expect(fromBytes(new Uint8Array(0))).toBeNull();
    expect(cosine(q, quantize(vector.map((v) => v * 3)))).toBeCloseTo(1, 6);
  });

  it('embed a section as words: its heading path, title and text without table marks or link targets', () => {
    const text = sectionText({ title: 'Escalation', context: 'Integrations', body: '| | Plain |\n| --- | --- |\n| API | [GraphQL](https://x.test/graphql) |', code: '' });
    expect(text).toBe('Integrations — Escalation\nPlain API GraphQL');
  });
});

describe('the semantic rerank', () => {
  it('ranks the section that answers a question asked in other words first, where words alone do not', async () => {
    const dir = helpCenter();
    const byWords = createAnswerEngine({ sql: await sql(), llm: null, embedder: null });
    await byWords.ingest('acme', [join(dir, 'docs')]);
    const byMeaning = createAnswerEngine({ sql: await sql(), llm: null });
    await byMeaning.ingest('acme', [join(dir, 'docs')]);
    const first = async (engine: typeof byWords) => (await engine.search('acme', QUESTION))[0]?.section.title;
    expect(await first(byWords)).not.toBe('Refund policy');
    expect(await first(byMeaning)).toBe('Refund policy');
  });

  const kindsAndVectors = async (db: Awaited<ReturnType<typeof sql>>) =>
    (await db.all<{ kind: string; embedding: Uint8Array | null }>("SELECT kind, embedding FROM kb_sections WHERE org_id = 'acme' ORDER BY id")).map((r) => [r.kind, r.embedding?.byteLength ?? 0]);

  it('embeds doc sections and tickets at ingest, and leaves code pieces for later (embedPending)', async () => {
    const dir = helpCenter();
    const db = await sql();
    const encoder = countingEncoder();
    const engine = createAnswerEngine({ sql: db, llm: null, embedder: encoder });
    await engine.ingest('acme', [join(dir, 'docs'), join(dir, 'code')]);
    await engine.indexTicket('acme', { source: 'plain', externalId: 't1', title: 'Refund for order 42', body: 'The customer asked for a refund.', url: null });
    expect(encoder.texts).toHaveLength(4);
    expect(await kindsAndVectors(db)).toEqual([['doc', 512], ['doc', 512], ['doc', 512], ['code', 0], ['ticket', 512]]);
    expect(await engine.pending()).toEqual([{ orgId: 'acme', sections: 1 }]);
    // Unchanged files are not embedded again, and their code still waits.
    encoder.texts.length = 0;
    await engine.ingest('acme', [join(dir, 'docs'), join(dir, 'code')]);
    expect(encoder.texts).toEqual([]);
    // The code piece, as what it is rather than its syntax.
    const version = async () => (await db.get<{ version: number }>("SELECT version FROM kb_versions WHERE org_id = 'acme'"))!.version;
    const before = await version();
    expect(await engine.embedPending('acme')).toBe(1);
    expect(encoder.texts).toEqual(['refund — refund\nIssues a refund for an order.\nexport function refund(orderId: string) {\nexport function refund order id string return']);
    expect(await kindsAndVectors(db)).toEqual([['doc', 512], ['doc', 512], ['doc', 512], ['code', 512], ['ticket', 512]]);
    // Indexes are rebuilt with the new vectors; a second run has nothing to do and changes nothing.
    expect(await version()).toBe(before + 1);
    expect(await engine.pending()).toEqual([]);
    expect(await engine.embedPending('acme')).toBe(0);
    expect(await engine.embedPending()).toBe(0);
    expect(await version()).toBe(before + 1);
  });

  it('embeds code pieces at ingest when asked (kb ingest --embed-code)', async () => {
    const dir = helpCenter();
    const db = await sql();
    const engine = createAnswerEngine({ sql: db, llm: null });
    await engine.ingest('acme', [join(dir, 'docs'), join(dir, 'code')], { embedCode: true });
    expect(await kindsAndVectors(db)).toEqual([['doc', 512], ['doc', 512], ['doc', 512], ['code', 512]]);
    expect(await engine.embedPending()).toBe(0);
  });

  it('embedPending works a batch at a time, for one organization or all, and stops between batches when aborted', async () => {
    const dir = helpCenter();
    const db = await sql();
    const encoder = countingEncoder();
    const batches: number[] = [];
    const engine = createAnswerEngine({ sql: db, llm: null, embedder: { id: encoder.id, embed: (texts) => (batches.push(texts.length), encoder.embed(texts)) } });
    const byWords = createAnswerEngine({ sql: db, llm: null, embedder: null });
    await byWords.ingest('acme', [join(dir, 'docs'), join(dir, 'code')]);
    await byWords.ingest('other', [join(dir, 'docs')]);
    expect(await engine.pending()).toEqual([{ orgId: 'acme', sections: 4 }, { orgId: 'other', sections: 3 }]);
    expect(await engine.embedPending('acme', { batch: 3 })).toBe(4);
    expect(batches).toEqual([3, 1]);
    expect(await engine.pending()).toEqual([{ orgId: 'other', sections: 3 }]);
    const controller = new AbortController();
    batches.length = 0;
    const stopping = { id: encoder.id, embed: async (texts: string[]) => (controller.abort(), encoder.embed(texts)) };
    // Aborted during its first batch: that batch is written, the next is not started.
    expect(await createAnswerEngine({ sql: db, llm: null, embedder: stopping }).embedPending(undefined, { batch: 2, signal: controller.signal })).toBe(2);
    expect(await engine.embedPending()).toBe(1);
    expect(await engine.pending()).toEqual([]);
  });

  it('ranks by words while sections have no vectors, and embeds them on the next ingest of unchanged files', async () => {
    const dir = helpCenter();
    const db = await sql();
    await createAnswerEngine({ sql: db, llm: null, embedder: null }).ingest('acme', [join(dir, 'docs')]);
    const engine = createAnswerEngine({ sql: db, llm: null });
    expect((await engine.search('acme', QUESTION))[0]?.section.title).not.toBe('Refund policy');
    expect(await engine.stats('acme')).toEqual({ documents: 1, sections: 3, prose: 3, embedded: 0 });
    const report = await engine.ingest('acme', [join(dir, 'docs')]);
    expect(report.unchanged).toBe(1);
    expect(await engine.stats('acme')).toEqual({ documents: 1, sections: 3, prose: 3, embedded: 3 });
    const missing = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM kb_sections WHERE org_id = 'acme' AND embedding IS NULL");
    expect(missing!.n).toBe(0);
    expect((await engine.search('acme', QUESTION))[0]?.section.title).toBe('Refund policy');
  });
});

describe('vectors of another model', () => {
  it('are not compared with this one\'s, and are made again by the next ingest of unchanged files', async () => {
    const dir = helpCenter();
    const db = await sql();
    await createAnswerEngine({ sql: db, llm: null, embedder: countingEncoder('an-older-model') }).ingest('acme', [join(dir, 'docs')]);
    const encoder = countingEncoder();
    const engine = createAnswerEngine({ sql: db, llm: null, embedder: encoder });
    expect(await engine.stats('acme')).toMatchObject({ prose: 3, embedded: 0 });
    expect((await engine.search('acme', QUESTION))[0]?.section.title).toBe('Payment methods');
    encoder.texts.length = 0;
    await engine.ingest('acme', [join(dir, 'docs')]);
    expect(encoder.texts).toHaveLength(3);
    expect(await engine.stats('acme')).toMatchObject({ prose: 3, embedded: 3 });
    expect((await engine.search('acme', QUESTION))[0]?.section.title).toBe('Refund policy');
  });
});

describe('without a working model', () => {
  it('ingests, ranks by words and answers, stores no vectors, and warns once', async () => {
    const dir = helpCenter();
    const db = await sql();
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => warning.code === 'SUPPORT_CHAT_EMBEDDINGS' && warnings.push(warning.message);
    process.on('warning', onWarning);
    onTestFinished(() => void process.off('warning', onWarning));
    const broken: Embedder = { id: 'broken', embed: () => Promise.reject(new Error('WebAssembly is not available')) };
    const engine = createAnswerEngine({ sql: db, llm: null, embedder: broken });
    const report = await engine.ingest('acme', [join(dir, 'docs')]);
    expect(report.added).toBe(1);
    expect((await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM kb_sections WHERE org_id = 'acme' AND embedding IS NOT NULL"))!.n).toBe(0);
    expect((await engine.search('acme', QUESTION))[0]?.section.title).toBe('Payment methods');
    const answer = await engine.answer({ orgId: 'acme', messages: [{ role: 'user', content: 'How are refunds issued?', sources: [] }], signal: new AbortController().signal });
    expect(answer.sources[0]?.title).toBe('Refund policy — Billing');
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual(['sentence embeddings are unavailable (WebAssembly is not available): ranking by words alone']);
  });
});

describe('the answer/no-answer decision', () => {
  const signals: AnswerSignals = { general: 0.8, heading: 0.5, known: 1, top3: 0.8, coverage: 0.6, evidence: 1, agreement: 0, margin: 0.2, meaning: 0, embedded: true, nearest: 0 };
  /** `base` with the share of the question's words the best section holds set so that its log-odds are `odds` (whatever the fitted weights). */
  const atOdds = (base: AnswerSignals, odds: number): AnswerSignals => ({ ...base, general: base.general + (odds - answerOdds(base)) / DECISION.general });

  it("weighs how close the best section's meaning is to the question, neutral without embeddings", async () => {
    const dir = helpCenter();
    const db = await sql();
    const hitsWith = async (embedder: Embedder | null) => {
      const engine = createAnswerEngine({ sql: db, llm: null, embedder });
      await engine.ingest('acme', [join(dir, 'docs')]);
      // As answers do: a query the words match well is not embedded unless its vector is given.
      return engine.search('acme', 'How are refunds issued?', { vector: await engine.embedQuestion('How are refunds issued?') });
    };
    const [plain] = await hitsWith(null);
    const vocabulary = { has: () => true, sectionsWith: () => 1, readings: (text: string) => [text], terms: (text: string) => text.toLowerCase().split(/\W+/).filter(Boolean) };
    expect(answerSignals('How are refunds issued?', [plain!], vocabulary)!.meaning).toBe(0);
    const [embedded] = await hitsWith(sentenceEncoder);
    expect(embedded!.similarity).toBeGreaterThan(0.5);
    expect(answerSignals('How are refunds issued?', [embedded!], vocabulary)!.meaning).toBeCloseTo(embedded!.similarity! - MEANING_NEUTRAL, 9);
  });

  it('answers a borderline question whose best section means what it asks, and refuses one whose best section means something else', () => {
    // At the threshold by its words alone; a quarter nearer or farther in meaning than neutral decides.
    const borderline = atOdds(signals, THRESHOLDS.answer);
    expect(shouldAnswer({ ...borderline, meaning: 0.25 })).toBe(true);
    expect(shouldAnswer({ ...borderline, meaning: -0.25 })).toBe(false);
  });

  it('parts three outcomes: an answer, related pages below the answer, nothing related below those or when the meaning is far', () => {
    const z = (s: AnswerSignals) => answerOdds(s);
    const answer = atOdds(signals, THRESHOLDS.answer + 0.5);
    expect(z(answer)).toBeGreaterThan(THRESHOLDS.answer);
    expect(decide(answer)).toBe('answer');
    // Held back by the evidence floor, it still shows the pages.
    expect(decide({ ...answer, evidence: 0.2 })).toBe('related');
    // A section with none of the question's own words, matched by the earlier turns' alone (a follow-up), is no answer.
    expect(decide({ ...answer, coverage: 0 })).toBe('related');
    // One that holds under a third of the question's weight is about something near it: related pages, not an answer.
    expect(decide({ ...answer, coverage: 0.28 })).toBe('related');
    expect(decide({ ...answer, coverage: 0.32 })).toBe('answer');
    // …of what the knowledge base knows of it: a word no page uses weighs the most, and answers nothing either way.
    expect(decide(atOdds({ ...answer, coverage: 0.28, known: 0.8 }, THRESHOLDS.answer + 0.5))).toBe('answer');
    const loose = atOdds({ ...signals, heading: 0 }, (THRESHOLDS.answer + THRESHOLDS.related) / 2);
    expect(z(loose)).toBeLessThan(THRESHOLDS.answer);
    expect(z(loose)).toBeGreaterThan(THRESHOLDS.related);
    expect(decide(loose)).toBe('related');
    // The weather: none of the first three sections means anything near it.
    expect(decide({ ...loose, meaning: THRESHOLDS.meaning - 0.01, nearest: THRESHOLDS.meaning - 0.01 })).toBe('none');
    // …but one of them near enough in meaning keeps the related pages.
    expect(decide({ ...loose, meaning: THRESHOLDS.meaning - 0.01, nearest: THRESHOLDS.meaning + 0.01 })).toBe('related');
    // Without embeddings (a knowledge base stored without them), meaning does not decide.
    expect(decide({ ...loose, meaning: 0, embedded: false, nearest: THRESHOLDS.meaning - 0.01 })).toBe('related');
    expect(decide({ ...loose, known: 0, top3: 0, meaning: -0.1, nearest: -0.1 })).toBe('none');
    // The floor does not hold back an answer: a short question's embedding is often far from the section that answers it.
    expect(decide({ ...answer, nearest: THRESHOLDS.meaning - 0.01 })).toBe('answer');
    // Found by its meaning alone (no word in common), a section close enough in meaning is related.
    expect(decide({ ...loose, general: 0, known: 0, top3: 0, heading: 0, meaning: -0.3, nearest: THRESHOLDS.close })).toBe('related');
    expect(decide(null)).toBe('none');
  });
});
