/**
 * `GET /v0/chat/{id}/events` over real HTTP, with an engine that does not stream (the worker then
 * streams its answer sentence by sentence): the terminal event, resume, keepalive, a client that
 * leaves, and the same refusals as `GET /v0/chat/{id}`. On SQLite, and on PostgreSQL in the
 * node-postgres project. The LLM's streaming is in streaming-llm.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startServer, type ServerOptions } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import type { Scope } from '../../src/protocol/index.js';
import { createTestEngine, type TestEngine } from '../helpers/test-engine.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { joinedDeltas, openEvents } from '../helpers/sse-reader.js';
import { servedValidator } from '../helpers/openapi.js';
import { createParser } from 'eventsource-parser';
import { redisAvailable, TEST_REDIS_URL } from '../helpers/redis.js';
import { LocalBus } from '../../src/server/bus/index.js';
import { MAX_TURN_EVENTS, MemoryTurnLog, TurnStreams, turnKey } from '../../src/server/streams/index.js';

const redis = await redisAvailable();

const ANSWER = 'Open Settings. Then choose Security! Is that all? Yes: press Reset.';

/** Lets the held engine answer, now and from now on (its job may not have started yet). */
function letGo(engine: TestEngine): void {
  engine.hold = false;
  engine.release();
}

let api: Awaited<ReturnType<typeof startServer>> | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function serve(options: ServerOptions = {}) {
  const engine = createTestEngine(() => ({ content: ANSWER, sources: [{ title: 'Security', url: 'https://docs.example.com/security' }] }));
  api = await startServer({ dataDir: ':memory:', databaseUrl: freshDatabaseUrl(), port: 0, engine, logger: silentLogger, env: {}, ...options });
  const server = api.server;
  const url = api.url;
  const token = async (orgId = 'acme', scopes: Scope[] = ['chat:read', 'chat:write']) => (await server.tokens.create({ orgId, name: 'test', scopes })).token;
  const acme = await token();
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  return {
    url,
    engine: (options.engine ?? engine) as TestEngine,
    server,
    token,
    acme,
    auth,
    async send(message: string, t = acme, conversationId?: string) {
      const response = await fetch(`${url}/v0/chat`, {
        method: 'POST',
        headers: { ...auth(t), 'content-type': 'application/json' },
        body: JSON.stringify({ message, conversation_id: conversationId }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { conversation_id: string }).conversation_id;
    },
    async get(id: string, t = acme) {
      return (await fetch(`${url}/v0/chat/${id}`, { headers: auth(t) })).text();
    },
    events(id: string, headers: Record<string, string> = {}, t = acme, query = '') {
      return openEvents(`${url}/v0/chat/${id}/events${query}`, { ...auth(t), ...headers });
    },
  };
}

/**
 * A stream left after the turn's first event and resumed after it while the answer is still being
 * written: the resumed stream has every later event, and nothing twice.
 */
async function resumeMidTurn(env: Record<string, string> = {}) {
  const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
  engine.hold = true;
  const s = await serve({ engine, env });
  const id = await s.send('How do I reset my password?');
  const first = await s.events(id);
  const status = await first.until((e) => e.event === 'status');
  first.close();
  const resumed = await s.events(id, { 'last-event-id': status.id! });
  letGo(engine);
  await resumed.until((e) => e.event === 'completed');
  expect(resumed.events.map((e) => e.id)).not.toContain(status.id);
  expect(joinedDeltas(resumed.events)).toBe(ANSWER);
  return { s, id, status, resumed };
}

describe('GET /v0/chat/{id}/events', () => {
  it('streams a turn as deltas then the conversation as GET returns it, with increasing ids', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.hold = true;
    const s = await serve({ engine });
    const id = await s.send('How do I reset my password?');
    const stream = await s.events(id);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.headers.get('x-ratelimit-limit')).not.toBeNull();
    await stream.until((e) => e.event === 'status');
    letGo(engine);
    const terminal = await stream.until((e) => e.event === 'completed');
    await stream.ended;
    expect(JSON.parse(terminal.data)).toEqual(JSON.parse(await s.get(id)));
    expect(stream.events.at(-1)).toBe(terminal);
    // The local answer arrives sentence by sentence; joined it is the final content exactly.
    expect(stream.events.filter((e) => e.event === 'delta').map((e) => JSON.parse(e.data).text)).toEqual(['Open Settings. ', 'Then choose Security! ', 'Is that all? ', 'Yes: press Reset.']);
    expect(joinedDeltas(stream.events)).toBe(ANSWER);
    expect(JSON.parse(terminal.data).messages.at(-1).content).toBe(ANSWER);
    const seqs = stream.events.map((e) => Number(e.id!.split('-')[1]));
    expect(stream.events.every((e) => e.id!.startsWith('1-'))).toBe(true);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // Every event's data is what the OpenAPI document says that event holds.
    const validator = await servedValidator(() => fetch(`${s.url}/v0/openapi.json`));
    const { op } = validator.operation('GET', `/v0/chat/${id}/events`)!;
    const described = (op.responses as Record<string, { content: Record<string, { 'x-events': Record<string, Record<string, unknown>> }> }>)['200']!.content['text/event-stream']!['x-events'];
    expect(Object.keys(described).sort()).toEqual(['completed', 'delta', 'failed', 'status']);
    for (const event of stream.events) expect(validator.errors(JSON.parse(event.data), described[event.event!]!), event.event).toEqual([]);
  });

  it('sends a settled conversation its terminal event at once, and a late subscriber the whole turn', async () => {
    const s = await serve();
    const id = await s.send('How do I reset my password?');
    const first = await s.events(id);
    await first.until((e) => e.event === 'completed');
    // Subscribing after the turn ended: the whole turn, from its first event.
    const late = await s.events(id);
    await late.ended;
    expect(late.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    expect(joinedDeltas(late.events)).toBe(ANSWER);
    // A client that has the terminal event is told to stop (EventSource stops reconnecting on 204).
    const done = await s.events(id, { 'last-event-id': first.events.at(-1)!.id! });
    expect(done.status).toBe(204);
  });

  it('streams through the fetch handler too (server.fetch), ending after the terminal event', async () => {
    const s = await serve();
    const id = await s.send('How do I reset my password?');
    await (await s.events(id)).ended;
    const response = await s.server.fetch(new Request(`http://api.test/v0/chat/${id}/events`, { headers: s.auth(s.acme) }), { remoteAddress: '203.0.113.9' });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events: string[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event.event!) });
    parser.feed(await response.text());
    expect(events.at(-1)).toBe('completed');
    expect(events.filter((e) => e === 'delta')).toHaveLength(4);
  });

  it('resumes after Last-Event-ID (header or query) with no event twice and none lost', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.hold = true;
    const s = await serve({ engine });
    const id = await s.send('How do I reset my password?');
    const whole = await s.events(id);
    letGo(engine);
    await whole.until((e) => e.event === 'completed');
    const ids = whole.events.map((e) => e.id!);
    for (const [at, how] of [[1, 'header'], [3, 'query']] as const) {
      const last = ids[at]!;
      const resumed = how === 'header' ? await s.events(id, { 'last-event-id': last }) : await s.events(id, {}, s.acme, `?last_event_id=${last}`);
      await resumed.ended;
      expect(resumed.events.map((e) => e.id)).toEqual(ids.slice(at + 1));
      expect(joinedDeltas([...whole.events.slice(0, at + 1), ...resumed.events])).toBe(ANSWER);
    }
  });

  it('resumes mid-turn while the answer is still being written', async () => {
    await resumeMidTurn();
  });

  it('never sends a terminal event id it would refuse: after an id past the turn (1-999999) the turn starts over', async () => {
    const s = await serve();
    const id = await s.send('How do I reset my password?');
    const first = await s.events(id);
    await first.until((e) => e.event === 'completed');
    const resumed = await s.events(id, { 'last-event-id': '1-999999' });
    await resumed.ended;
    expect(resumed.status).toBe(200);
    expect(resumed.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    // The terminal id sent back is taken: the client has the settled turn's last event.
    const back = await s.events(id, { 'last-event-id': resumed.events.at(-1)!.id! });
    expect(back.status).toBe(204);
  });

  it('answers a malformed Last-Event-ID 400 in the error shape', async () => {
    const s = await serve();
    const id = await s.send('How do I reset my password?');
    for (const bad of ['x', '1', '1-', '-1', '01-2', '1-2-3', '1-0x1', '9999999-1', '1'.repeat(10_000)]) {
      const response = await s.events(id, { 'last-event-id': bad });
      expect(response.status, bad).toBe(400);
      expect(JSON.parse(response.text).error.code).toBe('bad_request');
    }
  });

  it('sends a keepalive comment while the answer stalls, and only then', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.hold = true;
    const keepaliveMs = 100;
    const s = await serve({ engine, streams: { keepaliveMs } });
    const id = await s.send('How do I reset my password?');
    const opened = performance.now();
    const stream = await s.events(id);
    const keepalives = () => stream.comments.filter((c) => c.text.trim() === 'keepalive').length;
    await vi.waitFor(() => expect(keepalives()).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });
    // Never more often than one a `keepaliveMs`: the server's timers only ever run late, so the time
    // since the stream opened bounds how many it can have sent, however busy the machine.
    const sent = keepalives();
    expect(sent).toBeLessThanOrEqual(Math.floor((performance.now() - opened) / keepaliveMs) + 1);
    letGo(engine);
    await stream.ended;
    expect(stream.events.at(-1)!.event).toBe('completed');
  });

  it('completes the answer when the client leaves mid-answer', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.hold = true;
    const s = await serve({ engine });
    const id = await s.send('How do I reset my password?');
    const stream = await s.events(id);
    await stream.until((e) => e.event === 'status');
    stream.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.server.streams.open).toBe(0);
    letGo(engine);
    for (let i = 0; i < 100 && JSON.parse(await s.get(id)).status === 'processing'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.parse(await s.get(id)).messages.at(-1).content).toBe(ANSWER);
    // Back later: the whole turn and its end.
    const back = await s.events(id);
    await back.ended;
    expect(joinedDeltas(back.events)).toBe(ANSWER);
  });

  it('sends `failed` with the conversation when the answer fails', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.failures = 1;
    const s = await serve({ engine, maxAttempts: 1 });
    const id = await s.send('How do I reset my password?');
    const stream = await s.events(id);
    const failed = await stream.until((e) => e.event === 'failed');
    expect(JSON.parse(failed.data)).toEqual(JSON.parse(await s.get(id)));
    expect(JSON.parse(failed.data).status).toBe('failed');
  });

  it('streams the second turn under its own ids', async () => {
    const s = await serve();
    const id = await s.send('How do I reset my password?');
    const first = await s.events(id);
    await first.until((e) => e.event === 'completed');
    await s.send('And my email?', s.acme, id);
    const second = await s.events(id, { 'last-event-id': first.events.at(-1)!.id! });
    await second.until((e) => e.event === 'completed');
    expect(second.events.every((e) => e.id!.startsWith('2-'))).toBe(true);
    expect(joinedDeltas(second.events)).toBe(ANSWER);
  });

  it('ends the stream of a conversation deleted mid-answer, and deletes its events now', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.hold = true;
    const s = await serve({ engine });
    const id = await s.send('How do I reset my password?');
    const stream = await s.events(id);
    await stream.until((e) => e.event === 'status');
    expect(await s.server.streams.log.read(turnKey(id, 1), 0, 10)).toHaveLength(1);
    expect((await fetch(`${s.url}/v0/chat/${id}`, { method: 'DELETE', headers: s.auth(s.acme) })).status).toBe(204);
    await stream.ended;
    expect(stream.events.map((e) => e.event)).toEqual(['status']);
    expect(await s.server.streams.log.read(turnKey(id, 1), 0, 10)).toEqual([]);
    expect((await s.events(id)).status).toBe(404);
    letGo(engine);
  });

  it('refuses as GET /v0/chat/{id} does: 401, 403, 404 for another organization, 429', async () => {
    const s = await serve({ rateLimits: { perToken: 3 } });
    const id = await s.send('How do I reset my password?');
    expect((await openEvents(`${s.url}/v0/chat/${id}/events`)).status).toBe(401);
    expect((await s.events(id, {}, await s.token('acme', ['chat:write']))).status).toBe(403);
    const other = await s.token('globex');
    const refused = await s.events(id, {}, other);
    expect(refused.status).toBe(404);
    expect(refused.text).toBe(await (await fetch(`${s.url}/v0/chat/${id}`, { headers: s.auth(other) })).text());
    expect((await s.events('not-an-id')).status).toBe(404);
    const limited = await s.token();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const stream = await s.events(id, {}, limited);
      statuses.push(stream.status);
      stream.close();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('refuses streams past the organization limit with 429, and counts closed ones out', async () => {
    const engine = createTestEngine(() => ({ content: ANSWER, sources: [] }));
    engine.hold = true;
    const s = await serve({ engine, streams: { maxPerOrganization: 2 } });
    const id = await s.send('How do I reset my password?');
    const a = await s.events(id);
    const b = await s.events(id);
    const c = await s.events(id);
    expect([a.status, b.status, c.status]).toEqual([200, 200, 429]);
    expect(JSON.parse(c.text).error.code).toBe('rate_limited');
    a.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const d = await s.events(id);
    expect(d.status).toBe(200);
    letGo(engine);
    await Promise.all([b.ended, d.ended]);
    expect(s.server.streams.open).toBe(0);
  });
});

describe.runIf(redis)('GET /v0/chat/{id}/events with the turn in a Redis Stream', () => {
  it('streams, resumes and serves a late subscriber from Redis', async () => {
    const { s, id, status, resumed } = await resumeMidTurn({ SUPPORT_CHAT_REDIS_URL: TEST_REDIS_URL });
    const late = await s.events(id);
    await late.ended;
    expect(late.events.map((e) => e.id)).toEqual([status.id, ...resumed.events.map((e) => e.id)]);
    // Deleted on request: its events in Redis go with it.
    expect((await s.server.streams.log.read(turnKey(id, 1), 0, 100)).length).toBe(late.events.length);
    expect((await fetch(`${s.url}/v0/chat/${id}`, { method: 'DELETE', headers: s.auth(s.acme) })).status).toBe(204);
    expect(await s.server.streams.log.read(turnKey(id, 1), 0, 100)).toEqual([]);
  });
});

describe("a turn's event log", () => {
  it('keeps at most MAX_TURN_EVENTS events, the text past them in one last delta', async () => {
    const streams = new TurnStreams({ log: new MemoryTurnLog(), bus: new LocalBus(), logger: silentLogger });
    const writer = await streams.writer('conv_bounded', 1);
    const pieces = Array.from({ length: MAX_TURN_EVENTS + 500 }, (_, i) => `${i} `);
    for (const piece of pieces) writer.delta(piece, true);
    await writer.end();
    const events = await streams.log.read(turnKey('conv_bounded', 1), 0, MAX_TURN_EVENTS * 2);
    expect(events).toHaveLength(MAX_TURN_EVENTS);
    expect(events.at(-1)!.type).toBe('end');
    expect(joinedDeltas(events.map((e) => ({ event: e.type, data: e.data })))).toBe(pieces.join(''));
    await streams.close();
  });

  it('drops a turn its retention after its last event', async () => {
    const log = new MemoryTurnLog({ retentionMs: 50 });
    const streams = new TurnStreams({ log, bus: new LocalBus(), logger: silentLogger });
    const writer = await streams.writer('conv_kept', 1);
    writer.delta('Hello.');
    await writer.end();
    expect(log.size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(log.size).toBe(0);
    await streams.close();
  });
});
