/**
 * The answer job queue on either database (SQLite here, PostgreSQL in the node-postgres project):
 * racing workers never share a job, a lease runs out on the database's clock, and a worker that lost
 * its lease can store nothing, and one organization's backlog never holds another's answers behind it.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Sql } from '../../src/server/store/sql.js';
import { JobQueue, type Job } from '../../src/server/conversations/jobs/queue.js';
import { ConversationStore } from '../../src/server/store/conversations.js';
import { testDatabases } from '../helpers/database.js';

const database = testDatabases();

async function setup() {
  const sql = await database();
  return { sql, queue: new JobQueue(sql), conversations: new ConversationStore(sql) };
}

const answer = { content: 'Here is how.', sources: [] };

/**
 * Resolves once the job's lease has run out on the database's clock (the condition the queue
 * itself reads), however long a busy machine took to get here.
 */
async function leaseRunOut(sql: Sql, job: Job): Promise<void> {
  await vi.waitFor(
    async () => expect((await sql.get<{ out: number | boolean }>('SELECT CASE WHEN lease_until < clock_ms() THEN 1 ELSE 0 END AS out FROM jobs WHERE id = ?', [job.id]))?.out).toBe(1),
    { timeout: 10_000, interval: 20 },
  );
}

describe('the answer job queue', () => {
  it('gives each of 10 jobs to exactly one of 30 racing claims', async () => {
    const { queue, conversations } = await setup();
    for (let i = 0; i < 10; i++) await conversations.send('acme', `question ${i}`, undefined, 20);
    const claimed = await Promise.all(Array.from({ length: 30 }, (_, i) => queue.claim(`worker-${i}`, 30_000, 3)));
    const jobs = claimed.filter((job): job is Job => job !== null);
    expect(jobs).toHaveLength(10);
    expect(new Set(jobs.map((job) => job.id)).size).toBe(10);
  });

  it('lets another worker take a job whose lease ran out, and the first one then stores nothing', async () => {
    const { sql, queue, conversations } = await setup();
    const sent = await conversations.send('acme', 'How do I embed it?', undefined, 20);
    expect(sent.ok).toBe(true);
    const first = (await queue.claim('worker-a', 1_000, 3))!;
    expect(first.attempts).toBe(1);
    expect(await queue.claim('worker-b', 1_000, 3)).toBeNull();
    await leaseRunOut(sql, first);
    const second = (await queue.claim('worker-b', 30_000, 3))!;
    expect(second).toMatchObject({ id: first.id, attempts: 2 });
    expect(await queue.renew(first, 'worker-a', 30_000)).toBe(false);
    expect(await queue.complete(first, 'worker-a', answer)).toBe(false);
    expect(await queue.complete(second, 'worker-b', answer)).toBe(true);
    expect(await sql.all("SELECT role FROM messages ORDER BY seq")).toEqual([{ role: 'user' }, { role: 'assistant' }]);
  });

  it('does not store an answer once the lease ran out, even when nobody took the job over yet', async () => {
    const { sql, queue, conversations } = await setup();
    await conversations.send('acme', 'Slow question', undefined, 20);
    const job = (await queue.claim('worker-a', 150, 3))!;
    await leaseRunOut(sql, job);
    expect(await queue.complete(job, 'worker-a', answer)).toBe(false);
  });

  it('fails the conversation of a job left running after its last attempt', async () => {
    const { sql, queue, conversations } = await setup();
    const sent = await conversations.send('acme', 'Doomed question', undefined, 20);
    if (!sent.ok) throw new Error('not sent');
    await leaseRunOut(sql, (await queue.claim('worker-a', 100, 1))!);
    expect(await queue.claim('worker-b', 30_000, 1)).toBeNull();
    expect(await queue.failExhausted(1)).toEqual([sent.conversationId]);
    expect((await conversations.get('acme', sent.conversationId))!.status).toBe('failed');
    expect(await queue.failExhausted(1)).toEqual([]);
  });

  it("takes an organization's next question before another organization's backlog of 100", async () => {
    const { queue, conversations } = await setup();
    for (let i = 0; i < 100; i++) await conversations.send('org-b', `long question ${i}`, undefined, 200);
    // Four workers busy with B's questions.
    const running = await Promise.all(Array.from({ length: 4 }, (_, i) => queue.claim(`worker-${i}`, 30_000, 3)));
    expect(running.map((job) => job?.orgId)).toEqual(['org-b', 'org-b', 'org-b', 'org-b']);
    const asked = await conversations.send('org-a', 'How do I reset my password?', undefined, 20);
    if (!asked.ok) throw new Error('not sent');
    // The next free worker takes A's question, not the 96 of B's queued before it.
    const next = (await queue.claim('worker-5', 30_000, 3))!;
    expect(next).toMatchObject({ orgId: 'org-a', conversationId: asked.conversationId });
    // With A served, B's backlog goes on.
    expect((await queue.claim('worker-6', 30_000, 3))!.orgId).toBe('org-b');
  });

  it('alternates between organizations that both have a backlog, and then takes whatever is left', async () => {
    const { queue, conversations } = await setup();
    for (let i = 0; i < 6; i++) await conversations.send('org-b', `question ${i}`, undefined, 200);
    for (let i = 0; i < 6; i++) await conversations.send('org-a', `question ${i}`, undefined, 200);
    const orgs: string[] = [];
    for (let i = 0; i < 8; i++) orgs.push((await queue.claim(`worker-${i}`, 30_000, 3))!.orgId);
    expect(orgs).toEqual(['org-b', 'org-a', 'org-b', 'org-a', 'org-b', 'org-a', 'org-b', 'org-a']);
    // Every job is still taken, however many of its organization's already run.
    const rest = await Promise.all(Array.from({ length: 6 }, (_, i) => queue.claim(`worker-${8 + i}`, 30_000, 3)));
    expect(rest.filter((job) => job !== null).map((job) => job!.orgId).sort()).toEqual(['org-a', 'org-a', 'org-b', 'org-b']);
  });
});
