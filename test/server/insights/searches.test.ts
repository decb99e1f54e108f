/**
 * Searches in the insights report: each `GET /v0/search` counted by organization, day and
 * normalized query, the queries searched most and those that found nothing reported for the
 * period (and only the organization's own), and the log bounded per day whatever visitors type.
 */
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnswerEngine, type KnowledgeBase } from '../../../src/server/answers/index.js';
import { MAX_QUERIES_PER_DAY, normalizeQuery, SearchLog, searchInsights } from '../../../src/server/insights/searches.js';
import { migrations } from '../../../src/server/schema.js';
import { openTestSql } from '../../helpers/database.js';
import { testServer, type TestServer } from '../../helpers/server.js';

const PRODUCTS = resolve(import.meta.dirname, '../../fixtures/products');
const servers: TestServer[] = [];
afterEach(async () => {
  for (const t of servers.splice(0)) await t.server.close();
});

describe('searches in the insights report', () => {
  it('reports the queries searched most and those that found nothing, per organization and period', async () => {
    let now = Date.parse('2026-11-20T10:00:00Z');
    const t = await testServer({ engine: (sql) => createAnswerEngine({ sql, llm: null, embedder: null }), now: () => now });
    servers.push(t);
    await (t.server.engine as unknown as KnowledgeBase).ingest('acme', [PRODUCTS], { baseUrl: 'https://docs.acme.example/' });
    const acme = await t.token('acme', ['chat:read']);
    const other = await t.token('other', ['chat:read']);
    const search = async (token: string, q: string, pageUrl?: string) => {
      const query = new URLSearchParams({ q, ...(pageUrl ? { page_url: pageUrl } : {}) });
      const response = await t.call('GET', `/v0/search?${query}`, { token });
      expect(response.status).toBe(200);
      return (response.body.results as unknown[]).length;
    };

    expect(await search(acme, 'refund')).toBeGreaterThan(0);
    expect(await search(acme, '  Refund ')).toBeGreaterThan(0);
    expect(await search(acme, 'REFUND')).toBeGreaterThan(0);
    expect(await search(acme, 'invoice')).toBeGreaterThan(0);
    expect(await search(acme, 'zqxv flurb', 'https://docs.acme.example/pricing')).toBe(0);
    now += 3_600_000;
    expect(await search(acme, 'Zqxv  flurb', 'https://docs.acme.example/billing')).toBe(0);
    expect(await search(acme, 'jane@zzyzx.invalid qqzzv')).toBe(0);
    // Another organization's searches are its own.
    await search(other, 'other org secret');
    // The next day, outside the period asked for below.
    now += 86_400_000;
    await search(acme, 'tomorrow only');

    const reader = await t.token('acme', ['insights:read']);
    const report = await t.call('GET', '/v0/insights?since=2026-11-20T00:00:00Z&until=2026-11-21T00:00:00Z', { token: reader });
    expect(report.status).toBe(200);
    const searches = report.body.searches as Record<string, unknown>;
    expect(searches.totals).toEqual({ searches: 7, zero_result_searches: 3 });
    expect(searches.search_query_count).toBe(4);
    expect(searches.top_searches).toEqual([
      { query: 'refund', searches: 3, zero_results: 0, last_results: expect.any(Number) },
      { query: 'zqxv flurb', searches: 2, zero_results: 2, last_results: 0 },
      { query: 'invoice', searches: 1, zero_results: 0, last_results: expect.any(Number) },
      { query: '[email] qqzzv', searches: 1, zero_results: 1, last_results: 0 },
    ]);
    expect(searches.zero_result_searches).toEqual([
      { query: 'zqxv flurb', searches: 2, last_at: '2026-11-20T11:00:00.000Z', last_page_url: 'https://docs.acme.example/billing' },
      { query: '[email] qqzzv', searches: 1, last_at: '2026-11-20T11:00:00.000Z', last_page_url: null },
    ]);
    expect(JSON.stringify(report.body)).not.toContain('other org');
    expect(JSON.stringify(report.body)).not.toContain('jane@');
  });

  it('keeps at most MAX_QUERIES_PER_DAY queries a day per organization, counting the rest together', async () => {
    const sql = await openTestSql({ migrations, now: () => Date.parse('2026-11-20T10:00:00Z') });
    try {
      const log = new SearchLog(sql, () => Date.parse('2026-11-20T10:00:00Z'));
      for (let i = 0; i < MAX_QUERIES_PER_DAY + 5; i++) await log.record({ orgId: 'acme', query: `query ${i}`, results: i % 2 });
      await log.record({ orgId: 'acme', query: 'query 0', results: 0 });
      const rows = await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM insight_searches');
      expect(Number(rows!.n)).toBe(MAX_QUERIES_PER_DAY + 1);
      const report = await searchInsights(sql, { orgId: 'acme', since: new Date('2026-11-20T00:00:00Z'), until: new Date('2026-11-21T00:00:00Z'), limit: 3 });
      expect(report.totals.searches).toBe(MAX_QUERIES_PER_DAY + 6);
      expect(report.search_query_count).toBe(MAX_QUERIES_PER_DAY);
      expect(report.top_searches[0]).toEqual({ query: 'query 0', searches: 2, zero_results: 2, last_results: 0 });
    } finally {
      await sql.close();
    }
  });

  it('normalizes a query: NFKC, lowercase, blanks collapsed, clipped to 200 characters', () => {
    expect(normalizeQuery('  Ｒｅｆｕｎｄ\t\nPolicy  ')).toBe('refund policy');
    expect(normalizeQuery(' \n ')).toBe('');
    expect(normalizeQuery('a '.repeat(400))).toHaveLength(199);
  });
});
