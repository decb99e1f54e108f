/**
 * A scaled-out deployment as an operator runs it: three `support-chat-kit serve --role api` processes
 * behind a round-robin balancer, two `--role worker` processes, PostgreSQL and Redis, an LLM and a
 * helpdesk webhook configured through the environment. Runs when PostgreSQL and Redis answer
 * (SUPPORT_CHAT_TEST_DATABASE_URL, SUPPORT_CHAT_TEST_REDIS_URL), and says so when it is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { clusterEnv, dropSchema, freshScaleDatabaseUrl, missingServices, runCommand, startCluster, type Cluster } from '../helpers/cluster.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { awayFromWindowEnd } from '../helpers/redis.js';
import { webhookReceiver, type Receiver } from '../helpers/server.js';

const kb = resolve(import.meta.dirname, '../fixtures/kb/docs');
const QUESTION = 'What is the rate limit per token?';
const ANSWER = 'Each token may send 120 requests per minute [1].';
/** Short, so a dead worker's job is taken over quickly; the workers renew it while they work. */
const LEASE_MS = 3_000;

const missing = await missingServices();
if (missing) console.warn(`scale tests skipped: ${missing}`);

interface Conversation {
  id: string;
  status: string;
  messages: { role: string; content: string }[];
  /** When the worker completed the answer (it writes the answer and this in one transaction). */
  updated_at: string;
}

describe.runIf(!missing)('three API processes and two workers on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  let llm: FakeLlm;
  let receiver: Receiver;
  let db: pg.Client;
  let org: string;
  let env: NodeJS.ProcessEnv;
  const databaseUrl = freshScaleDatabaseUrl();

  beforeAll(async () => {
    llm = await fakeLlm();
    receiver = await webhookReceiver();
    const extra = {
      SUPPORT_CHAT_LLM_BASE_URL: llm.baseUrl,
      SUPPORT_CHAT_LLM_API_KEY: 'test-key',
      SUPPORT_CHAT_LLM_MODEL: 'test-model',
      SUPPORT_CHAT_WEBHOOK_URL: receiver.url,
      SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true',
      SUPPORT_CHAT_WEBHOOK_SECRET: 'scale-secret',
      SUPPORT_CHAT_JOB_LEASE_MS: String(LEASE_MS),
    };
    env = clusterEnv(databaseUrl, extra);
    org = `scale-${randomUUID().slice(0, 8)}`;
    runCommand(['kb', 'ingest', kb, '--org', org], env);
    cluster = await startCluster({ databaseUrl, env: extra });
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    db = new pg.Client({ connectionString: url.toString(), options: `-c search_path=${schema}` });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await cluster?.close();
    await llm?.close();
    await receiver?.close();
    await dropSchema(databaseUrl);
  });

  /** A new token of the test organization (each test its own, so each has its own 120 a minute). */
  function token(scopes = 'chat:read,chat:write,chat:escalate'): string {
    return (JSON.parse(runCommand(['token', 'create', '--org', org, '--name', 'scale', '--scopes', scopes, '--json'], env)) as { token: string }).token;
  }

  async function call(base: string, method: string, path: string, bearer: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, at: Date.now() };
  }

  async function ask(base: string, bearer: string): Promise<string> {
    const sent = await call(base, 'POST', '/v0/chat', bearer, { message: QUESTION });
    expect(sent.status).toBe(202);
    return sent.body.conversation_id as string;
  }

  /** Long-polls until the conversation has settled. */
  async function settle(base: string, bearer: string, id: string, ms = 30_000): Promise<Conversation> {
    const deadline = Date.now() + ms;
    for (;;) {
      const got = await call(base, 'GET', `/v0/chat/${id}`, bearer, undefined, { prefer: 'wait=5' });
      expect(got.status).toBe(200);
      const conversation = got.body as unknown as Conversation;
      if (conversation.status !== 'processing' || Date.now() > deadline) return conversation;
    }
  }

  it('lets exactly 120 of 1,000 concurrent requests on one token through, across the API processes', async () => {
    const bearer = token('chat:read');
    await awayFromWindowEnd(20);
    const before = [...cluster.balancer.sent];
    const statuses = await Promise.all(Array.from({ length: 1000 }, () => call(cluster.balancer.url, 'GET', '/v0/me', bearer).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses.filter((s) => s === 429)).toHaveLength(880);
    // Every API process took its share.
    expect(cluster.balancer.sent.map((n, i) => n - before[i]!)).toEqual([334, 333, 333]);
  });

  it('makes exactly one ticket when 50 escalations of one conversation race over the API processes', async () => {
    const bearer = token();
    llm.script.push(ANSWER);
    const id = await ask(cluster.balancer.url, bearer);
    expect((await settle(cluster.balancer.url, bearer, id)).status).toBe('completed');
    await awayFromWindowEnd(20);
    const delivered = receiver.deliveries.length;
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(cluster.balancer.url, 'POST', `/v0/chat/${id}/escalate`, bearer, { integration: 'webhook', name: 'Ada Lovelace', email: 'ada@example.com' }),
      ),
    );
    const statuses = results.map((r) => r.status);
    // The organization may escalate 30 times a minute: 20 are refused before they race.
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(statuses.filter((s) => s >= 200 && s < 300)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(29);
    // One ticket in the helpdesk.
    expect(receiver.deliveries.length - delivered).toBe(1);
    const escalated = results.find((r) => r.status < 300)!;
    expect(escalated.body).toMatchObject({ success: true, integration: 'webhook' });
  });

  it('wakes a long poll on one API process within 250 ms (p99) of a worker completing the answer', async () => {
    const bearer = token();
    const [a] = cluster.apis;
    const latencies: number[] = [];
    try {
      for (let i = 0; i < 40; i++) {
        // The answer takes 300 to 800 ms, so the long poll is waiting before the worker completes
        // it, at every phase of the poll's own re-reads of the database (every 500 ms): only a
        // wakeup from the worker answers within 250 ms every time.
        llm.delayMs = 300 + ((i * 97) % 500);
        llm.script.push(ANSWER);
        const id = await ask(a!.url!, bearer);
        const polled = await call(a!.url!, 'GET', `/v0/chat/${id}`, bearer, undefined, { prefer: 'wait=10' });
        const conversation = polled.body as unknown as Conversation;
        expect(conversation.status).toBe('completed');
        latencies.push(polled.at - Date.parse(conversation.updated_at));
      }
    } finally {
      llm.delayMs = 0;
    }
    latencies.sort((x, y) => x - y);
    const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1]!;
    console.log(`long poll wakeup across processes: p50 ${latencies[20]} ms, p99 ${p99} ms`);
    expect(p99).toBeLessThan(250);
  });

  it('completes a conversation whose worker is killed mid-answer: the other worker takes the job within the lease', async () => {
    const bearer = token();
    llm.script.push('hang');
    const asked = llm.requests.length;
    const id = await ask(cluster.balancer.url, bearer);
    const deadline = Date.now() + 15_000;
    while (llm.requests.length === asked) {
      if (Date.now() > deadline) throw new Error('no worker asked the LLM');
      await new Promise((r) => setTimeout(r, 20));
    }
    const { rows } = await db.query<{ lease_owner: string }>("SELECT lease_owner FROM jobs WHERE conversation_id = $1 AND state = 'running'", [id]);
    const pid = Number(rows[0]!.lease_owner.split(':')[1]);
    const working = cluster.workers.find((w) => w.child.pid === pid);
    expect(working).toBeDefined();
    llm.script.push(ANSWER);
    const killedAt = Date.now();
    await working!.stop('SIGKILL');
    const conversation = await settle(cluster.balancer.url, bearer, id);
    expect(conversation.status).toBe('completed');
    expect(conversation.messages.at(-1)!.content).toContain('120 requests per minute');
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 2_000);
    const job = await db.query<{ state: string; attempts: number }>('SELECT state, attempts::int AS attempts FROM jobs WHERE conversation_id = $1', [id]);
    expect(job.rows).toEqual([{ state: 'done', attempts: 2 }]);
  });
});
