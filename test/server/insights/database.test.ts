/**
 * The insights schema, the feedback store and the report straight on the database, SQLite and
 * PostgreSQL alike: the triggers keep `insight_questions` as messages arrive, the migration backfills
 * conversations stored before it, and the report reads them.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { kbMigrations } from '../../../src/server/knowledge/index.js';
import { FeedbackStore } from '../../../src/server/insights/feedback.js';
import { insightsMigrations } from '../../../src/server/insights/migrations.js';
import { insightsReport } from '../../../src/server/insights/report.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { coreMigrations } from '../../../src/server/store/migrations.js';
import { visitorMigrations } from '../../../src/server/store/visitor-migrations.js';
import { channelMigrations } from '../../../src/server/insights/channels.js';
import { searchMigrations } from '../../../src/server/insights/searches.js';
import type { Sql } from '../../../src/server/store/sql.js';
import { testDatabases } from '../../helpers/database.js';

const database = testDatabases();

const AT = '2026-11-19T10:00:00.000Z';
const PERIOD = { orgId: 'acme', since: new Date('2026-11-19T00:00:00Z'), until: new Date('2026-11-20T00:00:00Z') };
const KEYS = '[{"title":"Keys","url":"https://docs.example.com/keys"}]';

async function conversation(sql: Sql, id: string, orgId = 'acme', at = AT): Promise<void> {
  await sql.run("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES (?, ?, 'processing', ?, ?)", [id, orgId, at, at]);
}

async function message(sql: Sql, id: string, seq: number, role: 'user' | 'assistant', content: string, sources = '[]', at = AT): Promise<void> {
  await sql.run('INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, ?, ?, ?, ?, ?)', [id, seq, role, content, sources, at]);
}

const questions = (sql: Sql) =>
  sql.all<{ conversation_id: string; seq: number; org_id: string; asked_at: string; outcome: string; sources: string | null }>(
    `SELECT q.conversation_id, q.seq, q.org_id, q.asked_at, q.outcome, l.sources
     FROM insight_questions q LEFT JOIN insight_source_lists l ON l.id = q.source_list ORDER BY q.conversation_id, q.seq`,
  );

describe('insight_questions, kept by triggers', () => {
  it('records each question as it is asked, then its outcome: answered with its sources, unanswered, failed, escalated', async () => {
    const sql = await database();
    await conversation(sql, 'c1');
    await message(sql, 'c1', 1, 'user', 'Rotate keys?');
    expect(await questions(sql)).toEqual([{ conversation_id: 'c1', seq: 1, org_id: 'acme', asked_at: AT, outcome: 'pending', sources: null }]);
    await message(sql, 'c1', 2, 'assistant', 'Here.', KEYS);
    await message(sql, 'c1', 3, 'user', 'Teleport a zeppelin?');
    await message(sql, 'c1', 4, 'assistant', 'Not found.');
    await conversation(sql, 'c2');
    await message(sql, 'c2', 1, 'user', 'Anything?');
    await sql.run("UPDATE conversations SET status = 'failed' WHERE id = 'c2'");
    await conversation(sql, 'c3');
    await message(sql, 'c3', 1, 'user', 'Help!');
    await message(sql, 'c3', 2, 'assistant', 'Here too.', KEYS);
    await message(sql, 'c3', 3, 'user', 'A human, please');
    await sql.run("UPDATE conversations SET escalation_state = 'pending' WHERE id = 'c3'");
    expect((await questions(sql)).at(-1)!.outcome).toBe('pending');
    await sql.run("UPDATE conversations SET escalation_state = 'done' WHERE id = 'c3'");
    expect((await questions(sql)).map((q) => [q.conversation_id, q.seq, q.outcome, q.sources])).toEqual([
      ['c1', 1, 'answered', KEYS],
      ['c1', 3, 'unanswered', null],
      ['c2', 1, 'failed', null],
      ['c3', 1, 'answered', KEYS],
      ['c3', 3, 'escalated', null],
    ]);
    // One list of sources, stored once however many answers cite it.
    expect(await sql.all('SELECT sources FROM insight_source_lists')).toEqual([{ sources: KEYS }]);
    // Deleting a conversation deletes its questions.
    await sql.run("DELETE FROM conversations WHERE id = 'c1'");
    expect((await questions(sql)).map((q) => q.conversation_id)).toEqual(['c2', 'c3', 'c3']);
  });

  it('interns a list of sources longer than an index entry can hold', async () => {
    const sql = await database();
    // Titles and addresses that do not compress: about 10 KB.
    const long = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ title: `Section ${i} ${randomBytes(50).toString('hex')}`, url: `https://docs.example.com/${i}-${randomBytes(30).toString('hex')}` })));
    for (const id of ['c1', 'c2']) {
      await conversation(sql, id);
      await message(sql, id, 1, 'user', 'Everything?');
      await message(sql, id, 2, 'assistant', 'All of it.', long);
    }
    expect((await questions(sql)).map((q) => [q.outcome, q.sources === long])).toEqual([
      ['answered', true],
      ['answered', true],
    ]);
    expect((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM insight_source_lists'))!.n).toBe(1);
  });
});

describe('the insights migration', () => {
  it('backfills conversations stored before it, and later turns are kept by its triggers', async () => {
    const sql = await database({ migrations: [...coreMigrations, ...kbMigrations] });
    await sql.run("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES ('c1', 'acme', 'completed', ?, ?), ('c2', 'acme', 'failed', ?, ?)", [AT, AT, AT, AT]);
    await sql.run("INSERT INTO conversations (id, org_id, status, created_at, updated_at, escalation_state) VALUES ('c3', 'acme', 'completed', ?, ?, 'done')", [AT, AT]);
    await sql.run(
      `INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES
       ('c1', 1, 'user', 'Rotate keys?', '[]', ?), ('c1', 2, 'assistant', 'Here.', '[{"title":"Keys","url":"https://docs.example.com/keys"}]', ?),
       ('c1', 3, 'user', 'Teleport a zeppelin?', '[]', ?), ('c1', 4, 'assistant', 'Not found.', '[]', ?),
       ('c2', 1, 'user', 'Anything?', '[]', ?),
       ('c3', 1, 'user', 'Help!', '[]', ?), ('c3', 2, 'assistant', 'Not found.', '[]', ?)`,
      [AT, AT, AT, AT, AT, AT, AT],
    );
    await migrate(sql, [...insightsMigrations, ...searchMigrations, ...visitorMigrations, ...channelMigrations]);
    expect((await insightsReport(sql, PERIOD)).totals).toMatchObject({ conversations: 3, questions: 4, answered: 1, unanswered: 1, escalated: 1, failed: 1, pending: 0 });
    expect((await insightsReport(sql, PERIOD)).top_sources).toEqual([{ title: 'Keys', url: 'https://docs.example.com/keys', citations: 1 }]);
    // A retry of the failed conversation, answered: the triggers record it.
    await sql.run("UPDATE conversations SET status = 'processing' WHERE id = 'c2'");
    await message(sql, 'c2', 2, 'user', 'Anything now?');
    expect((await insightsReport(sql, PERIOD)).totals).toMatchObject({ questions: 5, pending: 1 });
    await message(sql, 'c2', 3, 'assistant', 'Yes.', KEYS);
    await sql.run("UPDATE conversations SET status = 'completed' WHERE id = 'c2'");
    expect((await insightsReport(sql, PERIOD)).totals).toMatchObject({ questions: 5, answered: 2, unanswered: 1, escalated: 1, failed: 1, pending: 0 });
    expect((await insightsReport(sql, PERIOD)).top_sources[0]!.citations).toBe(2);
  });
});

describe('the feedback store', () => {
  it('rates the last answer by default, an earlier one by index, replaces a rating, and says why it cannot', async () => {
    const sql = await database();
    const feedback = new FeedbackStore(sql, () => Date.parse(AT));
    await conversation(sql, 'c1');
    expect(await feedback.record({ orgId: 'acme', conversationId: 'c1', rating: 'up' })).toEqual({ ok: false, reason: 'no_answer' });
    await message(sql, 'c1', 1, 'user', 'Rotate keys?');
    await message(sql, 'c1', 2, 'assistant', 'Here.', KEYS);
    await message(sql, 'c1', 3, 'user', 'Revoke them?');
    await message(sql, 'c1', 4, 'assistant', 'Like this.');
    expect(await feedback.record({ orgId: 'acme', conversationId: 'c1', rating: 'up' })).toEqual({ ok: true, messageSeq: 4 });
    expect(await feedback.record({ orgId: 'acme', conversationId: 'c1', rating: 'up', messageIndex: 1 })).toEqual({ ok: true, messageSeq: 2 });
    expect(await feedback.record({ orgId: 'acme', conversationId: 'c1', rating: 'down', comment: 'Out of date', messageIndex: 1 })).toEqual({ ok: true, messageSeq: 2 });
    expect(await feedback.record({ orgId: 'acme', conversationId: 'c1', rating: 'up', messageIndex: 0 })).toEqual({ ok: false, reason: 'not_an_answer' });
    expect(await feedback.record({ orgId: 'acme', conversationId: 'c1', rating: 'up', messageIndex: 9 })).toEqual({ ok: false, reason: 'not_an_answer' });
    expect(await feedback.record({ orgId: 'globex', conversationId: 'c1', rating: 'up' })).toEqual({ ok: false, reason: 'not_found' });
    expect(await sql.all('SELECT message_seq, rating, comment FROM feedback ORDER BY message_seq')).toEqual([
      { message_seq: 2, rating: 'down', comment: 'Out of date' },
      { message_seq: 4, rating: 'up', comment: null },
    ]);
  });

  it('keeps every rating of many recorded at once', async () => {
    const sql = await database();
    const feedback = new FeedbackStore(sql);
    await conversation(sql, 'c1');
    for (let seq = 1; seq <= 20; seq += 2) {
      await message(sql, 'c1', seq, 'user', `Question ${seq}`);
      await message(sql, 'c1', seq + 1, 'assistant', `Answer ${seq}`);
    }
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => feedback.record({ orgId: 'acme', conversationId: 'c1', rating: i % 2 ? 'up' : 'down', messageIndex: 2 * i + 1 })));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM feedback'))!.n).toBe(10);
  });
});

describe('the insights report', () => {
  it('counts per day, groups unanswered questions, lists thumbs-down answers, and masks email addresses', async () => {
    const sql = await database();
    const feedback = new FeedbackStore(sql, () => Date.parse('2026-11-18T09:00:00Z'));
    const days = ['2026-11-16T08:00:00.000Z', '2026-11-17T23:59:59.999Z', '2026-11-18T00:00:00.000Z'];
    for (const [i, at] of days.entries()) {
      await conversation(sql, `c${i}`, 'acme', at);
      await message(sql, `c${i}`, 1, 'user', `How do I reset my password? I am ada${i}@example.com`, '[]', at);
      await message(sql, `c${i}`, 2, 'assistant', 'Not found.', '[]', at);
    }
    await conversation(sql, 'c9', 'acme', days[2]);
    await message(sql, 'c9', 1, 'user', 'Rotate keys?', '[]', days[2]);
    await message(sql, 'c9', 2, 'assistant', 'Here.', KEYS, days[2]);
    await conversation(sql, 'other', 'globex', days[2]);
    await message(sql, 'other', 1, 'user', 'Not theirs', '[]', days[2]);
    // After the period's end (noon of its last day).
    await conversation(sql, 'late', 'acme', '2026-11-18T18:00:00.000Z');
    await message(sql, 'late', 1, 'user', 'How do I reset my password late at night?', '[]', '2026-11-18T18:00:00.000Z');
    await message(sql, 'late', 2, 'assistant', 'Not found.', '[]', '2026-11-18T18:00:00.000Z');
    await feedback.record({ orgId: 'acme', conversationId: 'c2', rating: 'down', comment: 'Wrong, write to bob@example.com' });
    await feedback.record({ orgId: 'acme', conversationId: 'c9', rating: 'up' });

    const report = await insightsReport(sql, { orgId: 'acme', since: new Date('2026-11-16T12:00:00Z'), until: new Date('2026-11-18T12:00:00Z') });
    expect(report.days.map((d) => [d.date, d.conversations, d.questions, d.answered, d.unanswered, d.thumbs_up, d.thumbs_down])).toEqual([
      // The first day counts from `since` (12:00): its 08:00 conversation is before the period.
      ['2026-11-16', 0, 0, 0, 0, 0, 0],
      ['2026-11-17', 1, 1, 0, 1, 0, 0],
      ['2026-11-18', 2, 2, 1, 1, 1, 1],
    ]);
    expect(report.totals).toMatchObject({ conversations: 3, questions: 3, answered: 1, unanswered: 2, thumbs_up: 1, thumbs_down: 1 });
    expect(report.unanswered_groups).toHaveLength(1);
    expect(report.unanswered_groups[0]).toMatchObject({ count: 2, latest_at: days[2] });
    // The same question once, however many asked it.
    expect(report.unanswered_groups[0]!.examples.map((e) => e.question)).toEqual(['How do I reset my password? I am [email]']);
    expect(report.thumbs_down).toEqual([
      { conversation_id: 'c2', message_index: 1, question: 'How do I reset my password? I am [email]', answer: 'Not found.', comment: 'Wrong, write to [email]', sources: [], rated_at: '2026-11-18T09:00:00.000Z' },
    ]);
    expect(report.top_sources).toEqual([{ title: 'Keys', url: 'https://docs.example.com/keys', citations: 1 }]);
  });
});
