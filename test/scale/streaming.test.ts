/**
 * Streamed answers across processes: two `serve --role api` processes stream a turn that a
 * `serve --role worker` process writes (the stand-in LLM streaming slowly), through the turn's
 * Redis Stream and the Redis bus, on PostgreSQL. A stream left halfway resumes on the other API
 * process with no event twice and none lost. Runs when PostgreSQL and Redis answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { dropSchema, freshScaleDatabaseUrl, missingServices, runCommand, startCluster, type Cluster } from '../helpers/cluster.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { joinedDeltas, openEvents } from '../helpers/sse-reader.js';

const kb = resolve(import.meta.dirname, '../fixtures/kb/docs');
const QUESTION = 'What is the rate limit per token?';
const REPLY = 'Each token may send 120 requests per minute [1]. Each organization may send 600 requests per minute [1], across every token.';

const missing = await missingServices();
if (missing) console.warn(`scale streaming tests skipped: ${missing}`);

describe.runIf(!missing)('a turn written by a worker process, streamed by API processes', () => {
  let cluster: Cluster;
  let llm: FakeLlm;
  let bearer: string;
  const databaseUrl = freshScaleDatabaseUrl();

  beforeAll(async () => {
    llm = await fakeLlm();
    const extra = { SUPPORT_CHAT_LLM_BASE_URL: llm.baseUrl, SUPPORT_CHAT_LLM_API_KEY: 'test-key', SUPPORT_CHAT_LLM_MODEL: 'test-model' };
    cluster = await startCluster({ databaseUrl, apis: 2, workers: 1, env: extra });
    const org = `stream-${randomUUID().slice(0, 8)}`;
    runCommand(['kb', 'ingest', kb, '--org', org], cluster.env);
    bearer = (JSON.parse(runCommand(['token', 'create', '--org', org, '--name', 'scale', '--scopes', 'chat:read,chat:write', '--json'], cluster.env)) as { token: string }).token;
  }, 180_000);

  afterAll(async () => {
    await cluster?.close();
    await llm?.close();
    await dropSchema(databaseUrl);
  });

  const auth = () => ({ authorization: `Bearer ${bearer}` });

  it('streams deltas before completion from another process, and resumes on another API process', async () => {
    const [first, second] = cluster.apis.map((p) => p.url!);
    llm.chunkDelayMs = 25;
    llm.script.push(REPLY);
    const sent = await fetch(`${first}/v0/chat`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ message: QUESTION }) });
    const { conversation_id: id } = (await sent.json()) as { conversation_id: string };
    const stream = await openEvents(`${first}/v0/chat/${id}/events`, auth());
    expect(stream.status).toBe(200);
    // Three deltas in, the client drops and comes back on the other API process.
    await stream.until((e) => e.event === 'delta' && stream.events.filter((d) => d.event === 'delta').length >= 3, 30_000);
    stream.close();
    const kept = [...stream.events];
    const polled = (await (await fetch(`${second}/v0/chat/${id}`, { headers: auth() })).json()) as { status: string };
    expect(polled.status).toBe('processing');
    const resumed = await openEvents(`${second}/v0/chat/${id}/events`, { ...auth(), 'last-event-id': kept.at(-1)!.id! });
    const terminal = await resumed.until((e) => e.event === 'completed', 30_000);
    await resumed.ended;
    const ids = [...kept, ...resumed.events].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.map((i) => Number(i!.split('-')[1]))).toEqual(ids.map((_, n) => n + 1));
    const content = (JSON.parse(terminal.data) as { messages: { content: string }[] }).messages.at(-1)!.content;
    expect(content).toBe(REPLY);
    expect(joinedDeltas([...kept, ...resumed.events])).toBe(REPLY);
    // A late subscriber on the first process, after the turn ended, gets the whole turn.
    const late = await openEvents(`${first}/v0/chat/${id}/events`, auth());
    await late.ended;
    expect(late.events.map((e) => e.id)).toEqual(ids);
  }, 60_000);
});
