/** @module Insights: a reply that found no direct answer counts as unanswered, listed with the related pages it showed. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestEngine } from '../../helpers/test-engine.js';
import { testServer, type TestServer } from '../../helpers/server.js';

const GUIDE = { title: 'Keys — Rotate', url: 'https://docs.example.com/keys#rotate' };
const REFUNDS = { title: 'Refunds — Billing', url: 'https://docs.example.com/billing#refunds' };
const PLANS = { title: 'Plans — Billing', url: 'https://docs.example.com/billing#plans' };

let t: TestServer | undefined;
afterEach(async () => t?.server.close());

describe('uncertain replies in the insights report', () => {
  it('count as unanswered (content gaps), with the related pages shown; those pages are not counted as cited', async () => {
    let now = Date.parse('2026-11-20T11:00:00Z');
    const engine = createTestEngine((q) => {
      if (/money/i.test(q)) return { content: 'These pages look related.', sources: [REFUNDS, PLANS], isUncertain: true };
      if (/weather/i.test(q)) return { content: 'Nothing related.', sources: [], isUncertain: true };
      return { content: 'Here.', sources: [GUIDE] };
    });
    t = await testServer({ engine, now: () => (now += 1000) });
    await t.server.sql.run("INSERT INTO kb_documents (org_id, doc_key, root, rel_path, hash, title, updated_at) VALUES ('acme', 'billing', 'r', 'billing', '', 'Billing', '')");
    await t.server.sql.run("INSERT INTO kb_sections (org_id, doc_key, ord, kind, title, context, url, body, code, lang) VALUES ('acme', 'billing', 0, 'prose', 'Billing', '', ?, '', '', '')", [REFUNDS.url]);
    const token = await t.token('acme');
    for (const message of ['How do I rotate keys?', 'Can I get my money back?', 'What is the weather tomorrow?']) {
      await t.call('POST', '/v0/chat', { token, body: { message } });
      await t.answer();
    }
    const report = (await t.call('GET', '/v0/insights?since=2026-11-20&until=2026-11-21', { token: await t.token('acme', ['insights:read']) })).body;
    expect(report.totals).toMatchObject({ questions: 3, answered: 1, unanswered: 2 });
    const examples = report.unanswered_groups.flatMap((g: { examples: unknown[] }) => g.examples);
    expect(examples).toEqual(
      expect.arrayContaining([
        { question: 'Can I get my money back?', asked_at: expect.any(String), related: [REFUNDS, PLANS] },
        { question: 'What is the weather tomorrow?', asked_at: expect.any(String), related: [] },
      ]),
    );
    expect(report.top_sources).toEqual([{ ...GUIDE, citations: 1 }]);
    // Billing was only shown as related: it is still a page no answer cited.
    expect(report.uncited_pages).toEqual([{ title: 'Billing', url: REFUNDS.url }]);
  });
});
