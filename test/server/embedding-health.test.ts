/**
 * The embedding backend never fails silently: a server whose model cannot start retries it, then
 * logs an error line at start and reports it in `GET /v0/health`, while search still answers by
 * words; a server whose model starts says so there too.
 */
import { describe, expect, it, vi } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnswerEngine } from '../../src/server/answers/index.js';
import { EmbeddingPool, type EmbeddingBackendFactory } from '../../src/server/knowledge/ranking/embedding-pool.js';
import { poolEncoder } from '../../src/server/knowledge/ranking/embeddings.js';
import { modelThread } from '../../src/server/knowledge/ranking/model-thread.js';
import type { LogFields } from '../../src/server/log.js';
import { testServer } from '../helpers/server.js';

/** A logger keeping its lines, by level. */
function keptLogger() {
  const lines: (LogFields & { level: string })[] = [];
  return {
    lines,
    logger: {
      info: (fields: LogFields) => lines.push({ level: 'info', ...fields }),
      warn: (fields: LogFields) => lines.push({ level: 'warn', ...fields }),
      error: (fields: LogFields) => lines.push({ level: 'error', ...fields }),
    },
  };
}

describe('GET /v0/health and the start log', () => {
  it('reports embeddings down, with why, after the retries, and search still answers by words', async () => {
    let attempts = 0;
    // The real model thread, pointed at a model module that does not exist.
    const missing = modelThread({ model: join(tmpdir(), 'support-chat-missing-model.cjs') });
    const backend: EmbeddingBackendFactory = () => {
      attempts++;
      return missing();
    };
    const pool = new EmbeddingPool({ size: 1, backend, startAttempts: 3, retryDelayMs: 10 });
    const { lines, logger } = keptLogger();
    const api = await testServer({ startWorker: true, logger, engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: poolEncoder(pool) }) });
    try {
      await vi.waitFor(() => expect(lines.filter((l) => l.level === 'error')).toHaveLength(1), { timeout: 20_000, interval: 50 });
      expect(attempts).toBe(3);
      const [line] = lines.filter((l) => l.level === 'error');
      expect(line!.msg).toMatch(/sentence embeddings are unavailable: search and answers rank by words alone/);
      expect(String(line!.error)).toMatch(/could not be loaded/);
      const token = await api.token('acme', ['chat:read']);
      const health = await api.call('GET', '/v0/health', { token });
      expect(health.status).toBe(200);
      expect(health.body.embeddings).toMatchObject({ state: 'down', threads: 0, size: 1 });
      expect(health.body.embeddings.error).toMatch(/could not be loaded/);
      const search = await api.call('GET', '/v0/search?q=refunds', { token });
      expect(search.status).toBe(200);
      // Without a token, no health.
      expect((await api.call('GET', '/v0/health')).status).toBe(401);
    } finally {
      await pool.close();
    }
  }, 30_000);

  it('reports embeddings ready once a thread started (the others start when batches wait), and off without an embedder', async () => {
    const pool = new EmbeddingPool({ size: 2, backend: async () => ({ embed: async (texts) => texts.map(() => [1, 0]), close: async () => {} }) });
    const { lines, logger } = keptLogger();
    const api = await testServer({ startWorker: true, logger, engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: poolEncoder(pool) }) });
    try {
      await vi.waitFor(() => expect(lines.some((l) => l.msg === 'sentence embeddings ready')).toBe(true));
      const health = await api.call('GET', '/v0/health', { token: await api.token() });
      expect(health.body).toEqual({ embeddings: { state: 'ready', threads: 1, size: 2 } });
    } finally {
      await pool.close();
    }
    const none = await testServer({ engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: null }) });
    expect((await none.call('GET', '/v0/health', { token: await none.token() })).body).toEqual({ embeddings: { state: 'off', threads: 0, size: 0 } });
  });
});
