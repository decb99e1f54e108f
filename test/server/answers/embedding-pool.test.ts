/**
 * The embedding pool: a thread per core, fair between organizations (one organization's backlog
 * never holds another's next query behind it), queries before bulk work, a bounded queue per
 * organization, and a backend that fails to start is retried, then reported.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EmbeddingPool,
  EmbeddingQueueFullError,
  EmbeddingUnavailableError,
  resolvePoolSize,
  type EmbeddingBackendFactory,
} from '../../../src/server/knowledge/ranking/embedding-pool.js';
import { modelThread } from '../../../src/server/knowledge/ranking/model-thread.js';
import { poolEncoder } from '../../../src/server/knowledge/ranking/embeddings.js';
import { createAnswerEngine } from '../../../src/server/answers/index.js';
import { openSql } from '../../../src/server/store/sql.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { migrations } from '../../../src/server/schema.js';

const pools: EmbeddingPool[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const pool = (options: ConstructorParameters<typeof EmbeddingPool>[0]) => {
  const made = new EmbeddingPool(options);
  pools.push(made);
  return made;
};

/**
 * A deterministic backend: each call takes `ms` (a timer, so calls on several threads overlap),
 * records the texts in the order they reached a thread, and the most calls running at once; each
 * call waits for `state.gate` first (open unless a test closes it).
 */
function recordingBackend(ms = 1) {
  const state = { order: [] as string[], started: 0, running: 0, most: 0, gate: Promise.resolve() };
  const factory: EmbeddingBackendFactory = async () => {
    state.started++;
    return {
      async embed(texts) {
        state.order.push(...texts);
        state.most = Math.max(state.most, ++state.running);
        await state.gate;
        await new Promise((resolve) => setTimeout(resolve, ms));
        state.running--;
        return texts.map((t) => [t.length, 1, 0, 0]);
      },
      async close() {},
    };
  };
  return { factory, state };
}

describe('the embedding pool', () => {
  it("serves another organization's single query next, however long one organization's backlog", async () => {
    const { factory, state } = recordingBackend();
    const embeddings = pool({ size: 1, backend: factory });
    const backlog = Array.from({ length: 60 }, (_, i) => embeddings.embed([`a${i}`], { orgId: 'org-a', priority: 'query' }));
    const b = embeddings.embed(['b'], { orgId: 'org-b', priority: 'query' });
    await Promise.all([...backlog, b]);
    // First in, first out would serve it 61st; taking turns, it goes right after A's first.
    expect(state.order.indexOf('b')).toBe(1);
    expect(state.order.filter((t) => t.startsWith('a'))).toEqual(Array.from({ length: 60 }, (_, i) => `a${i}`));
  });

  it("takes turns while both organizations have work: A's one batch, then B's, and so on", async () => {
    const { factory, state } = recordingBackend();
    const embeddings = pool({ size: 1, backend: factory, batch: 1 });
    await Promise.all([
      embeddings.embed(['a0', 'a1', 'a2', 'a3'], { orgId: 'org-a' }),
      embeddings.embed(['b0', 'b1', 'b2'], { orgId: 'org-b' }),
    ]);
    expect(state.order).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it("puts a query ahead of an ingest's backlog, its own organization's or another's", async () => {
    const { factory, state } = recordingBackend();
    const embeddings = pool({ size: 1, backend: factory, batch: 4 });
    let open = () => {};
    state.gate = new Promise((resolve) => (open = resolve));
    const ingest = embeddings.embed(Array.from({ length: 40 }, (_, i) => `section ${i}`), { orgId: 'org-a', priority: 'bulk' });
    // Let the first batch reach the thread.
    await vi.waitFor(() => expect(state.order.length).toBeGreaterThan(0));
    const own = embeddings.embed(['question of A'], { orgId: 'org-a', priority: 'query' });
    const other = embeddings.embed(['question of B'], { orgId: 'org-b', priority: 'query' });
    open();
    const vectors = await Promise.all([ingest, own, other]);
    expect(state.order.slice(4, 6).sort()).toEqual(['question of A', 'question of B']);
    // Every text got its vector, in order.
    expect(vectors[0].map((v) => v[0])).toEqual(Array.from({ length: 40 }, (_, i) => `section ${i}`.length));
  });

  it("refuses a call over the organization's queue bound, and still takes another organization's", async () => {
    const { factory } = recordingBackend(5);
    const embeddings = pool({ size: 1, backend: factory, maxQueuedPerOrg: 3 });
    const queued = [1, 2, 3].map((i) => embeddings.embed([`a${i}`], { orgId: 'org-a' }));
    await expect(embeddings.embed(['a4'], { orgId: 'org-a' })).rejects.toBeInstanceOf(EmbeddingQueueFullError);
    await expect(embeddings.embed(['b'], { orgId: 'org-b' })).resolves.toHaveLength(1);
    await Promise.all(queued);
    // Once A's queue drained, A is served again.
    await expect(embeddings.embed(['a5'], { orgId: 'org-a' })).resolves.toHaveLength(1);
  });

  it('is sized to the cores unless told otherwise, and starts nothing before first use', async () => {
    expect(resolvePoolSize(undefined, {})).toBe(availableParallelism());
    expect(resolvePoolSize(undefined, { SUPPORT_CHAT_EMBEDDING_THREADS: '3' })).toBe(3);
    expect(resolvePoolSize(2, { SUPPORT_CHAT_EMBEDDING_THREADS: '3' })).toBe(2);
    expect(() => resolvePoolSize(undefined, { SUPPORT_CHAT_EMBEDDING_THREADS: 'many' })).toThrow(/SUPPORT_CHAT_EMBEDDING_THREADS must be a whole number/);
    expect(() => resolvePoolSize(0)).toThrow(RangeError);
    const { factory, state } = recordingBackend(20);
    const embeddings = pool({ size: 3, backend: factory, batch: 1 });
    expect(embeddings.status()).toEqual({ state: 'idle', threads: 0, size: 3 });
    expect(state.started).toBe(0);
    await embeddings.embed(['1', '2', '3', '4', '5', '6'], { orgId: 'org-a' });
    expect(state.started).toBe(3);
    expect(state.most).toBe(3);
    expect(embeddings.status()).toEqual({ state: 'ready', threads: 3, size: 3 });
  });

  it('warms one thread, and starts another only when a batch waits for one', async () => {
    const { factory, state } = recordingBackend(30);
    const embeddings = pool({ size: 3, backend: factory, batch: 1 });
    expect(await embeddings.warm()).toEqual({ state: 'ready', threads: 1, size: 3 });
    expect(state.started).toBe(1);
    // One batch at a time: the warm thread takes each.
    for (const text of ['a', 'b', 'c']) await embeddings.embed([text], { orgId: 'org-a' });
    expect(state.started).toBe(1);
    // Three batches at once: two more threads.
    await embeddings.embed(['1', '2', '3'], { orgId: 'org-a' });
    expect(state.started).toBe(3);
    expect(embeddings.status()).toEqual({ state: 'ready', threads: 3, size: 3 });
    // Never more than the pool's size, however many wait.
    await embeddings.embed(Array.from({ length: 12 }, (_, i) => `t${i}`), { orgId: 'org-b' });
    expect(state.started).toBe(3);
    expect(await embeddings.warm(3)).toEqual({ state: 'ready', threads: 3, size: 3 });
  });

  it('retries a backend that fails to start, with backoff, and serves once it starts', async () => {
    const { factory } = recordingBackend();
    let attempts = 0;
    const flaky: EmbeddingBackendFactory = async () => {
      if (++attempts < 3) throw new Error(`start ${attempts} failed`);
      return factory();
    };
    const embeddings = pool({ size: 1, backend: flaky, startAttempts: 3, retryDelayMs: 1 });
    await expect(embeddings.embed(['hello'])).resolves.toEqual([[5, 1, 0, 0]]);
    expect(attempts).toBe(3);
    expect(embeddings.status()).toEqual({ state: 'ready', threads: 1, size: 1 });
  });

  it('says it is down when the model thread cannot load, fails calls at once, and tries again later', async () => {
    // The real model thread, pointed at a model module that does not exist: the thread fails as it would without the package.
    const missing = join(tmpdir(), 'support-chat-no-such-model.cjs');
    const starts: number[] = [];
    const real = modelThread({ model: missing });
    const backend: EmbeddingBackendFactory = () => {
      starts.push(Date.now());
      return real();
    };
    const embeddings = pool({ size: 2, backend, startAttempts: 2, retryDelayMs: 50, retryAfterMs: 300 });
    await expect(embeddings.embed(['hello'], { orgId: 'acme' })).rejects.toBeInstanceOf(EmbeddingUnavailableError);
    const status = await embeddings.warm();
    expect(status).toMatchObject({ state: 'down', threads: 0, size: 2 });
    expect(status.error).toMatch(/could not be loaded: .*support-chat-no-such-model/);
    // One batch starts one thread: two attempts, the second after the backoff.
    expect(starts).toHaveLength(2);
    expect(Math.max(...starts) - Math.min(...starts)).toBeGreaterThanOrEqual(40);
    // While down, a call fails at once without starting anything.
    await expect(embeddings.embed(['again'])).rejects.toThrow(/sentence embeddings are unavailable: the embedding model could not be loaded/);
    expect(starts).toHaveLength(2);
    // Later, a call tries again.
    await new Promise((resolve) => setTimeout(resolve, 350));
    await expect(embeddings.embed(['later'])).rejects.toBeInstanceOf(EmbeddingUnavailableError);
    expect(starts).toHaveLength(4);
  }, 30_000);
});

describe('ingest through the pool', () => {
  it("embeds several files at once, one per thread, and stores every prose section's vector", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'support-chat-pool-ingest-'));
    dirs.push(dir);
    for (let i = 0; i < 8; i++) writeFileSync(join(dir, `page-${i}.md`), `# Page ${i}\n\nHow to set up part ${i}.\n\n## Details\n\nMore on part ${i}.\n`);
    const { factory, state } = recordingBackend(30);
    const embeddings = pool({ size: 2, backend: factory });
    const sql = await openSql({ dataDir: ':memory:' });
    try {
      await migrate(sql, migrations);
      const engine = createAnswerEngine({ sql, llm: null, embedder: poolEncoder(embeddings) });
      const report = await engine.ingest('acme', [dir]);
      expect(report.added).toBe(8);
      // Each file is one batch: only files embedded side by side keep both threads busy.
      expect(state.most).toBe(2);
      const stats = await engine.stats('acme');
      expect(stats.embedded).toBe(stats.prose);
      expect(stats.prose).toBeGreaterThanOrEqual(16);
    } finally {
      await sql.close();
    }
  });
});
