/**
 * Streamed answers written by an LLM (the local OpenAI-compatible stand-in, streaming slowly when
 * asked), through the real server over HTTP: deltas before completion, final as streamed
 * (citations renumbered as they appear, the not-answered marker never sent), retries before the
 * first token, `failed` after it, a late subscriber, keepalive while the provider stalls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { startServer, type ServerOptions } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createAnswerEngine, NOT_ANSWERED, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { fakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { joinedDeltas, openEvents } from '../helpers/sse-reader.js';

const KB = resolve(import.meta.dirname, '../fixtures/kb/docs');
const QUESTION = 'What is the rate limit per token?';

let api: Awaited<ReturnType<typeof startServer>> | undefined;
let llm: FakeLlm | undefined;
afterEach(async () => {
  await api?.close();
  await llm?.close();
  api = undefined;
  llm = undefined;
});

/** The provider's response as one read: the body the stand-in sent, read whole before it is passed on. */
const inOneRead: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const body = new Uint8Array(await response.arrayBuffer());
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(body);
      controller.close();
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
};

async function serve(options: ServerOptions = {}, llmFetch?: typeof fetch) {
  llm = await fakeLlm();
  const config = { baseUrl: llm.baseUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 2_000, retries: 2, fetch: llmFetch };
  api = await startServer({
    dataDir: ':memory:',
    databaseUrl: freshDatabaseUrl(),
    port: 0,
    engine: (sql) => createAnswerEngine({ sql, llm: config, embedder: null }),
    logger: silentLogger,
    env: {},
    ...options,
  });
  await (api.server.engine as AnswerEngine & KnowledgeBase).ingest('acme', [KB]);
  const { token } = await api.server.tokens.create({ orgId: 'acme', name: 'test', scopes: ['chat:read', 'chat:write'] });
  const headers = { authorization: `Bearer ${token}` };
  const url = api.url;
  return {
    llm,
    async send(message = QUESTION) {
      const response = await fetch(`${url}/v0/chat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
      return ((await response.json()) as { conversation_id: string }).conversation_id;
    },
    async get(id: string) {
      return (await (await fetch(`${url}/v0/chat/${id}`, { headers })).json()) as { status: string; messages: { role: string; content: string; sources: unknown[] }[] };
    },
    events: (id: string) => openEvents(`${url}/v0/chat/${id}/events`, headers),
  };
}

describe('streamed LLM answers', () => {
  it('sends deltas while the model writes, final as streamed: citations renumbered as they appear', async () => {
    const s = await serve();
    // Two characters a chunk: citations arrive split across chunks.
    s.llm.chunkChars = 2;
    s.llm.chunkDelayMs = 15;
    s.llm.script = ['Each token may send 120 requests per minute [9]. The limit applies per organization too [1] , and [12]; [1x] stays.'];
    const id = await s.send();
    const stream = await s.events(id);
    const first = await stream.until((e) => e.event === 'delta');
    // The first text is out while the model is still writing.
    expect((await s.get(id)).status).toBe('processing');
    const terminal = await stream.until((e) => e.event === 'completed');
    expect(terminal.at - first.at).toBeGreaterThan(300);
    const conversation = JSON.parse(terminal.data) as Awaited<ReturnType<typeof s.get>>;
    const content = conversation.messages.at(-1)!.content;
    expect(joinedDeltas(stream.events)).toBe(content);
    expect(content).toBe('Each token may send 120 requests per minute. The limit applies per organization too [1], and; [1x] stays.');
    expect(conversation.messages.at(-1)!.sources).toHaveLength(1);
    expect(stream.events.filter((e) => e.event === 'delta').length).toBeGreaterThan(5);
    expect(stream.events.filter((e) => e.event === 'status').map((e) => JSON.parse(e.data).status)).toEqual(['retrieving', 'writing']);
    expect(s.llm.requests[0]!.stream).toBe(true);
  });

  it('never streams the not-answered marker, and the reply is uncertain', async () => {
    const s = await serve();
    s.llm.chunkChars = 3;
    s.llm.script = [`${NOT_ANSWERED} I could not find a direct answer in the documentation [1]; the pages listed may help.`];
    const id = await s.send();
    const stream = await s.events(id);
    const terminal = await stream.until((e) => e.event === 'completed');
    const message = (JSON.parse(terminal.data) as Awaited<ReturnType<typeof s.get>>).messages.at(-1)!;
    for (const delta of stream.events.filter((e) => e.event === 'delta')) expect(delta.data).not.toContain('[[');
    expect(joinedDeltas(stream.events)).toBe(message.content);
    expect(message.content).toBe('I could not find a direct answer in the documentation; the pages listed may help.');
    expect(message).toMatchObject({ is_uncertain: true });
  });

  it('retries the provider before its first token, and streams the answer that follows', async () => {
    const s = await serve();
    s.llm.script = [503, 'Each token may send 120 requests per minute [1].'];
    const id = await s.send();
    const stream = await s.events(id);
    const terminal = await stream.until((e) => e.event === 'completed');
    expect(s.llm.requests).toHaveLength(2);
    expect(joinedDeltas(stream.events)).toBe('Each token may send 120 requests per minute [1].');
    expect(JSON.parse(terminal.data).messages.at(-1).content).toBe('Each token may send 120 requests per minute [1].');
  });

  it('takes a whole completion from a provider that does not stream, in one request', async () => {
    const s = await serve();
    s.llm.streams = false;
    s.llm.script = ['Each token may send 120 requests per minute [1].'];
    const id = await s.send();
    const stream = await s.events(id);
    const terminal = await stream.until((e) => e.event === 'completed');
    expect(s.llm.requests).toHaveLength(1);
    expect(s.llm.requests[0]!.stream).toBe(true);
    expect(JSON.parse(terminal.data).messages.at(-1).content).toBe('Each token may send 120 requests per minute [1].');
    expect(joinedDeltas(stream.events)).toBe('Each token may send 120 requests per minute [1].');
  });

  it('fails the turn, once, when the provider breaks after its first token', async () => {
    const s = await serve();
    s.llm.chunkChars = 5;
    s.llm.script = [{ reply: 'Each token may send 120 requests per minute [1].', breakAfterChunks: 3 }, 'A second attempt must not be made.'];
    const id = await s.send();
    const stream = await s.events(id);
    const failed = await stream.until((e) => e.event === 'failed');
    await stream.ended;
    // The blank after the last word is held until a word follows it, which never came.
    expect(joinedDeltas(stream.events)).toBe('Each token may');
    expect(JSON.parse(failed.data).status).toBe('failed');
    expect((await s.get(id)).status).toBe('failed');
    expect(s.llm.requests).toHaveLength(1);
  });

  it('falls back to the local answer, streamed, when the provider fails before its first token', async () => {
    const s = await serve();
    s.llm.script = [500, 500, 500];
    const id = await s.send();
    const stream = await s.events(id);
    const terminal = await stream.until((e) => e.event === 'completed');
    const content = JSON.parse(terminal.data).messages.at(-1).content as string;
    expect(content).toContain('120');
    expect(joinedDeltas(stream.events)).toBe(content);
  });

  // Read as the network cuts it, the event outgrows the parser's buffer; read in one piece, it
  // arrives whole, and only a check of each event refuses it.
  it.each([
    ['as the network cuts it', undefined],
    ['in one read', inOneRead],
  ])('refuses a provider event over its size limit, %s (one request, then the local answer)', async (_, llmFetch) => {
    const s = await serve({}, llmFetch);
    s.llm.chunkChars = 400_000;
    s.llm.script = ['x'.repeat(300_000)];
    const id = await s.send();
    const stream = await s.events(id);
    const terminal = await stream.until((e) => e.event === 'completed');
    const content = JSON.parse(terminal.data).messages.at(-1).content as string;
    expect(content.includes('xxxx'), 'the oversized event was passed on').toBe(false);
    expect(content).toContain('120');
    expect(s.llm.requests).toHaveLength(1);
    expect(joinedDeltas(stream.events)).toBe(content);
  });

  it('gives a late subscriber the text so far, then the rest', async () => {
    const s = await serve();
    s.llm.chunkDelayMs = 20;
    s.llm.script = ['Each token may send 120 requests per minute [1]. Each organization may send 600 requests per minute [1].'];
    const id = await s.send();
    while (s.llm.firstChunkAt.length === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 150));
    const late = await s.events(id);
    const first = await late.until((e) => e.event === 'delta');
    // Several chunks were written before it subscribed: its first delta events hold them.
    expect(JSON.parse(first.data).text.length).toBeGreaterThan(0);
    const terminal = await late.until((e) => e.event === 'completed');
    expect(late.events[0]!.id).toBe('1-1');
    expect(joinedDeltas(late.events)).toBe(JSON.parse(terminal.data).messages.at(-1).content);
  });

  it('keeps the stream alive while the provider stalls before its first token', async () => {
    const s = await serve({ streams: { keepaliveMs: 100 } });
    s.llm.delayMs = 700;
    s.llm.script = ['Each token may send 120 requests per minute [1].'];
    const id = await s.send();
    const stream = await s.events(id);
    const first = await stream.until((e) => e.event === 'delta');
    expect(stream.comments.filter((c) => c.text.trim() === 'keepalive' && c.at < first.at).length).toBeGreaterThanOrEqual(3);
    await stream.until((e) => e.event === 'completed');
  });
});
