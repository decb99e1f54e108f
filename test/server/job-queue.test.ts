/**
 * The answer job queue on either database (SQLite here, PostgreSQL in the node-postgres project):
 * racing workers never share a job, a lease runs out on the database's clock, and a worker that lost
 * its lease can store nothing.
 */
import { describe, expect, it } from 'vitest';
import { JobQueue, type Job } from '../../src/server/conversations/jobs/queue.js';
import { ConversationStore } from '../../src/server/store/conversations.js';
import { testDatabases } from '../helpers/database.js';

const database = testDatabases();

async function setup() {
  const sql = await database();
  return { sql, queue: new JobQueue(sql), conversations: new ConversationStore(sql) };
}

const answer = { content: 'Here is how.', sources: [] };

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
    const first = (await queue.claim('worker-a', 200, 3))!;
    expect(first.attempts).toBe(1);
    expect(await queue.claim('worker-b', 200, 3)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = (await queue.claim('worker-b', 30_000, 3))!;
    expect(second).toMatchObject({ id: first.id, attempts: 2 });
    expect(await queue.renew(first, 'worker-a', 30_000)).toBe(false);
    expect(await queue.complete(first, 'worker-a', answer)).toBe(false);
    expect(await queue.complete(second, 'worker-b', answer)).toBe(true);
    expect(await sql.all("SELECT role FROM messages ORDER BY seq")).toEqual([{ role: 'user' }, { role: 'assistant' }]);
  });

  it('does not store an answer once the lease ran out, even when nobody took the job over yet', async () => {
    const { queue, conversations } = await setup();
    await conversations.send('acme', 'Slow question', undefined, 20);
    const job = (await queue.claim('worker-a', 150, 3))!;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await queue.complete(job, 'worker-a', answer)).toBe(false);
  });

  it('fails the conversation of a job left running after its last attempt', async () => {
    const { queue, conversations } = await setup();
    const sent = await conversations.send('acme', 'Doomed question', undefined, 20);
    if (!sent.ok) throw new Error('not sent');
    await queue.claim('worker-a', 100, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await queue.claim('worker-b', 30_000, 1)).toBeNull();
    expect(await queue.failExhausted(1)).toEqual([sent.conversationId]);
    expect((await conversations.get('acme', sent.conversationId))!.status).toBe('failed');
    expect(await queue.failExhausted(1)).toEqual([]);
  });
});
