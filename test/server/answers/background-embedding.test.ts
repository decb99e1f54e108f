/**
 * Code pieces are stored without vectors by `kb ingest` and embedded by the server in the
 * background: at start, when the 'kb' topic says a knowledge base changed, and stopped on close.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnswerEngine, type KnowledgeBase } from '../../../src/server/answers/index.js';
import { sentenceEncoder, type Embedder } from '../../../src/server/knowledge/ranking/embeddings.js';
import type { AnswerEngine } from '../../../src/server/answers/types.js';
import type { Sql } from '../../../src/server/store/sql.js';
import type { LogFields } from '../../../src/server/log.js';
import { freshDatabaseUrl } from '../../helpers/database.js';
import { testServer } from '../../helpers/server.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A small source folder: `count` code pieces, the first the class that builds error bodies. */
function sources(count = 2): string {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-background-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'problem-details.ts'), '/** Builds the body sent back when a request fails. */\nexport class ProblemDetails {\n  toJSON() {\n    return { httpStatus: this.httpStatus, detail_text: this.detail_text };\n  }\n}\n');
  writeFileSync(join(dir, 'src', 'themes.ts'), '/** Switches between the light and dark colour schemes. */\nexport function applyTheme(theme: Theme): void {\n  document.body.dataset.theme = theme.name;\n}\n');
  for (let i = 2; i < count; i++) writeFileSync(join(dir, 'src', `step${i}.ts`), `/** Step ${i} of the wizard. */\nexport function step${i}(): number {\n  return ${i};\n}\n`);
  return join(dir, 'src');
}

/** The real encoder, counting its calls, each made to take `delayMs` longer. */
function countingEncoder(delayMs = 0): Embedder & { calls: number } {
  const encoder = {
    id: sentenceEncoder.id,
    calls: 0,
    async embed(texts: string[]) {
      encoder.calls++;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return sentenceEncoder.embed(texts);
    },
  };
  return encoder;
}

const QUESTION = 'what does the error message look like?';

describe('background embedding in the server', () => {
  it('embeds the code pieces an ingest left, at start and when the kb topic says so; the index is rebuilt once; it does not loop', async () => {
    const encoder = countingEncoder();
    const { server } = await testServer({ engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: encoder }) });
    const kb = server.engine as AnswerEngine & KnowledgeBase;
    const folder = sources();
    await kb.ingest('app', [folder]);
    // Right after the ingest: words alone, which share nothing with the question.
    expect(await kb.search('app', QUESTION)).toEqual([]);
    const told: string[] = [];
    server.bus.subscribe('kb', (org) => told.push(org));
    server.embedding!.start();
    await vi.waitFor(async () => expect((await kb.search('app', QUESTION)).map((h) => h.section.title)).toEqual(['ProblemDetails']), { timeout: 30_000, interval: 100 });
    await server.embedding!.idle();
    expect(await kb.pending()).toEqual([]);
    // Told once, by the run that embedded; the run that message started embedded nothing and told nobody.
    expect(told).toEqual(['app']);
    const calls = encoder.calls;
    // Another organization's ingest, announced on the bus.
    await kb.ingest('other', [folder]);
    expect(await kb.pending()).toEqual([{ orgId: 'other', sections: 2 }]);
    server.bus.publish('kb', 'other');
    await vi.waitFor(async () => expect(await kb.pending()).toEqual([]), { timeout: 30_000, interval: 50 });
    await server.embedding!.idle();
    expect((await kb.search('other', QUESTION)).map((h) => h.section.title)).toEqual(['ProblemDetails']);
    expect(told).toEqual(['app', 'other', 'other']);
    // The two code pieces and one question, nothing more.
    expect(encoder.calls - calls).toBeLessThanOrEqual(3);
  }, 60_000);

  it('stops on close: the batch under way is written, no other is started', async () => {
    const encoder = countingEncoder(100);
    const { server } = await testServer({ engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: encoder }) });
    const kb = server.engine as AnswerEngine & KnowledgeBase;
    await kb.ingest('app', [sources(60)]);
    expect(await kb.pending()).toEqual([{ orgId: 'app', sections: 60 }]);
    server.embedding!.start();
    await vi.waitFor(() => expect(encoder.calls).toBeGreaterThan(0), { timeout: 30_000, interval: 10 });
    await server.embedding!.stop();
    const calls = encoder.calls;
    const left = (await kb.pending())[0]?.sections ?? 0;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(60);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(encoder.calls).toBe(calls);
    expect((await kb.pending())[0]?.sections).toBe(left);
  }, 60_000);

  it('runs when a server starts with its worker, and closing the server stops it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-background-data-'));
    dirs.push(dataDir);
    const databaseUrl = freshDatabaseUrl();
    const encoder = countingEncoder(100);
    const engine = (sql: Sql) => createAnswerEngine({ sql, llm: null, embedder: encoder });
    // `kb ingest`, before the server runs.
    const ingesting = await testServer({ dataDir, databaseUrl, engine });
    await (ingesting.server.engine as AnswerEngine & KnowledgeBase).ingest('app', [sources(60)]);
    await ingesting.server.close();
    expect(encoder.calls).toBe(0);
    const logged: string[] = [];
    const logger = { info: () => undefined, warn: (f: LogFields) => logged.push(String(f.msg)), error: (f: LogFields) => logged.push(String(f.msg)) };
    const { server } = await testServer({ dataDir, databaseUrl, engine, startWorker: true, logger });
    await vi.waitFor(() => expect(encoder.calls).toBeGreaterThan(0), { timeout: 30_000, interval: 10 });
    await server.close();
    const calls = encoder.calls;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(encoder.calls).toBe(calls);
    // The batch under way was written before the database closed.
    expect(logged).toEqual([]);
    const reopened = await testServer({ dataDir, databaseUrl, engine });
    const left = (await (reopened.server.engine as AnswerEngine & KnowledgeBase).pending())[0]?.sections ?? 0;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(60);
  }, 60_000);
});
