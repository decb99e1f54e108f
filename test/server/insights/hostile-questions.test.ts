/**
 * Planted questions cannot freeze the insights report: a hundred unanswered `x` × 15,995 + digits
 * (each cost the old email-masking pattern about 200 ms) and a thousand questions sharing 1,500
 * terms (grouping them cost seconds) are reported while the event loop keeps turning.
 */
import { describe, expect, it } from 'vitest';
import { masked } from '../../../src/server/insights/report.js';
import { MAX_QUESTION_TERMS, questionTerms } from '../../../src/server/insights/groups.js';
import { longestTurn } from '../../helpers/main-thread-cpu.js';
import { testServer, type TestServer } from '../../helpers/server.js';

/** The pattern the report masked addresses with before: quadratic on a long run of address characters. */
const QUADRATIC_EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

const ASKED_AT = '2026-11-20T10:00:00.000Z';

/** Stores unanswered questions as the chat would have (one conversation each; the database's triggers record them for the report). */
async function plant(t: TestServer, texts: string[]): Promise<void> {
  await t.server.sql.transaction(async (tx) => {
    for (const [i, text] of texts.entries()) {
      const id = `c${i}`;
      await tx.run("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES (?, 'acme', 'completed', ?, ?)", [id, ASKED_AT, ASKED_AT]);
      await tx.run("INSERT INTO messages (conversation_id, seq, role, content, created_at) VALUES (?, 0, 'user', ?, ?)", [id, text, ASKED_AT]);
      await tx.run("INSERT INTO messages (conversation_id, seq, role, content, created_at) VALUES (?, 1, 'assistant', 'Not found.', ?)", [id, ASKED_AT]);
    }
  });
}

describe('email masking', () => {
  it('masks what the earlier pattern masked', () => {
    for (const text of ['write to ann.lee+support@example.co.uk today', 'a@b@c.com', 'x@y', 'é@ü.de, bob@sub.example.com.', '-a-@-b-.-c-', 'mail me: @x.com or x@.com']) {
      expect(masked(text), text).toBe(text.replace(QUADRATIC_EMAIL, '[email]'));
    }
  });

  it('reads a text that is one long run of address characters once', async () => {
    const hostile = ['x'.repeat(15_995) + '12345', 'a@'.repeat(8_000), `${'a.'.repeat(8_000)}@`, `${'a'.repeat(15_000)}@${'b'.repeat(999)}`, `@${'a-'.repeat(8_000)}`];
    const { longestMs } = await longestTurn(async () => {
      for (const text of hostile) for (let i = 0; i < 10; i++) masked(text);
    });
    expect(longestMs).toBeLessThan(100);
  });
});

describe('planted questions', () => {
  it('compares at most MAX_QUESTION_TERMS terms of a question', () => {
    const text = Array.from({ length: 1_500 }, (_, i) => `term${i}x`).join(' ');
    expect(questionTerms(text).size).toBe(MAX_QUESTION_TERMS);
  });

  it('are reported without holding the event loop', async () => {
    const t = await testServer();
    const shared = Array.from({ length: 1_500 }, (_, i) => `w${i.toString(36)}q`);
    await plant(t, [
      ...Array.from({ length: 100 }, (_, i) => `${'x'.repeat(15_995)}${String(10_000 + i)}`),
      // Each shares most of its terms with every other, in an order of its own: none groups with the first alone.
      ...Array.from({ length: 1_000 }, (_, i) => [...shared.slice(i % 1_500), ...shared.slice(0, i % 1_500)].join(' ')),
    ]);
    const reader = await t.token('acme', ['insights:read']);
    const { result, longestMs, turns } = await longestTurn(() => t.call('GET', '/v0/insights?since=2026-11-19&until=2026-11-21', { token: reader }));
    expect(result.status).toBe(200);
    expect(result.body.unanswered_grouped).toBe(1_000);
    expect(turns).toBeGreaterThan(10);
    // Measured 90–120 ms in full runs on a quiet machine, 200 ms on a loaded one (one turn outside
    // the grouping, which itself yields every 25 questions): bounded here at 400, against seconds
    // before the fix.
    expect(longestMs).toBeLessThan(400);
  }, 60_000);
});
