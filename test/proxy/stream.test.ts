/**
 * @module `GET {basePath}/chat/:id/events` through the real proxy, served by Node's http server
 * (`nodeListener`) over real HTTP, from the v0 stand-in (test/helpers/fake-upstream.ts) that streams
 * per the contract: headers, nothing buffered, Last-Event-ID, the upstream closed when the visitor
 * leaves, the per-visitor limit, and ownership.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import express from 'express';
import { Hono } from 'hono';
import { serve as serveHono } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSupportProxy, expressMiddleware, nodeListener, type SupportProxyOptions } from '../../src/proxy/index.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { rawRequest } from '../helpers/raw-http.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
let up: FakeUpstream;
let server: Server | undefined;
let base = '';

beforeEach(async () => {
  up = await fakeUpstream();
  // A turn in progress while the test reads it.
  up.streamIntervalMs = 30;
});
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  }
  await up.close();
});

/** Serves the proxy with Node's http server (or mounted in Express, or in Hono on @hono/node-server). */
async function serve(options: Partial<SupportProxyOptions> = {}, on: 'node' | 'express' | 'hono' = 'node'): Promise<void> {
  const proxy = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, timeoutMs: 2_000, ...options });
  if (on === 'hono') {
    const app = new Hono();
    app.all('/api/support/*', (c) => proxy(c.req.raw));
    const port = await new Promise<number>((resolve) => {
      server = serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as unknown as Server;
    });
    base = `http://127.0.0.1:${port}/api/support`;
    return;
  }
  if (on === 'express') {
    const app = express();
    app.all('/api/support/*path', expressMiddleware(proxy));
    server = createServer(app);
  } else server = createServer(nodeListener(proxy));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/support`;
}

/** A visitor with its own cookie, over HTTP. */
function visitor(headers: Record<string, string> = {}) {
  let cookie = '';
  const call = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(cookie ? { cookie } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return response;
  };
  return {
    call,
    cookie: () => cookie,
    async start(): Promise<string> {
      const response = await call('POST', '/chat', { body: { message: 'How do I reset my password?' } });
      expect(response.status).toBe(202);
      return ((await response.json()) as { conversation_id: string }).conversation_id;
    },
  };
}

/** Reads an event stream's chunks as they arrive, with what had happened upstream when each came. */
async function readChunks(response: Response, onChunk: (text: string) => void = () => undefined): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let all = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return all;
    all += value;
    onChunk(value);
  }
}

/** The `id:` and `event:` lines of a stream's text, in order. */
function eventsOf(text: string): { id: string; event: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('id:'))
    .map((block) => {
      const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
      return { id: fields.id!, event: fields.event!, data: fields.data! };
    });
}

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the events route', () => {
  it('relays the stream with headers that stop caching, transforming and buffering, and nothing of the upstream', async () => {
    await serve();
    // Slow enough that the turn is still being written when the stream opens, however busy the machine.
    up.streamIntervalMs = 300;
    const v = visitor();
    const id = await v.start();
    const response = await v.call('GET', `/chat/${id}/events`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(response.headers.get('x-internal')).toBeNull();
    const text = await readChunks(response);
    const events = eventsOf(text);
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'completed']);
    expect(events.map((e) => (e.event === 'delta' ? (JSON.parse(e.data) as { text: string }).text : '')).join('')).toBe('Hello, this is the answer.');
    expect(text).not.toContain(up.token);
    expect(up.calls.at(-1)!.headers.accept).toBe('text/event-stream');
  });

  it.each(['node', 'express', 'hono'] as const)('sends each event on as it arrives (%s): each reaches the visitor while the upstream is still writing', async (on) => {
    await serve({}, on);
    up.streamIntervalMs = 250;
    up.streamDeltas = ['One.', ' Two.', ' Three.', ' Four.'];
    const v = visitor();
    const id = await v.start();
    const response = await v.call('GET', `/chat/${id}/events`);
    const openWhenSeen: boolean[] = [];
    await readChunks(response, (chunk) => {
      if (chunk.includes('event: delta')) openWhenSeen.push(up.streams[0]!.ended === 'open');
    });
    // Every delta but none held back: each came while the upstream stream was still open.
    expect(openWhenSeen.length).toBeGreaterThanOrEqual(2);
    expect(openWhenSeen.every(Boolean)).toBe(true);
    expect(up.streams[0]!.ended).toBe('done');
  });

  it('forwards Last-Event-ID (header or last_event_id) so the stream resumes exactly after it, and refuses a malformed one', async () => {
    await serve();
    const v = visitor();
    const id = await v.start();
    const byHeader = eventsOf(await readChunks(await v.call('GET', `/chat/${id}/events`, { headers: { 'last-event-id': '2' } })));
    expect(byHeader.map((e) => e.id)).toEqual(['3', '4']);
    expect(up.streams.at(-1)!.lastEventId).toBe('2');
    const byQuery = eventsOf(await readChunks(await v.call('GET', `/chat/${id}/events?last_event_id=3`)));
    expect(byQuery.map((e) => e.id)).toEqual(['4']);
    expect(up.streams.at(-1)!.lastEventId).toBe('3');
    // After the settled turn's terminal event: 204, nothing more.
    const settled = await v.call('GET', `/chat/${id}/events`, { headers: { 'last-event-id': '4' } });
    expect(settled.status).toBe(204);
    expect(await settled.text()).toBe('');
    expect(settled.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const streams = up.streams.length;
    for (const bad of ['x'.repeat(200), 'a\u00e9b']) {
      const response = await v.call('GET', `/chat/${id}/events?last_event_id=${encodeURIComponent(bad)}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: { code: 'bad_request', message: 'Last-Event-ID must be an event id of this stream' } });
    }
    expect(up.streams.length).toBe(streams);
  });

  it('closes the upstream request when the visitor leaves mid-answer', async () => {
    await serve();
    up.streamIntervalMs = 200;
    up.streamDeltas = Array.from({ length: 20 }, (_, i) => `part ${i}. `);
    const v = visitor();
    const id = await v.start();
    const leave = new AbortController();
    const response = await v.call('GET', `/chat/${id}/events`, { signal: leave.signal });
    const reader = response.body!.getReader();
    await reader.read();
    expect(up.streams[0]!.ended).toBe('open');
    leave.abort();
    await until(() => up.streams[0]!.ended === 'closed');
  });

  it('holds a visitor to visitorLimits.streams open at once: one more is a clear 429, others are not affected, and a closed stream frees its place', async () => {
    await serve({ visitorLimits: { streams: 2 } });
    up.streamIntervalMs = 400;
    up.streamDeltas = Array.from({ length: 20 }, (_, i) => `part ${i}. `);
    const alice = visitor();
    const bob = visitor();
    const id = await alice.start();
    const bobs = await bob.start();
    const first = new AbortController();
    const a1 = await alice.call('GET', `/chat/${id}/events`, { signal: first.signal });
    const a2 = await alice.call('GET', `/chat/${id}/events`);
    expect([a1.status, a2.status]).toEqual([200, 200]);
    const refused = await alice.call('GET', `/chat/${id}/events`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ error: { code: 'rate_limited', message: 'Too many answer streams open at once (at most 2)', retryable: true } });
    expect(up.streams).toHaveLength(2);
    const b1 = await bob.call('GET', `/chat/${bobs}/events`);
    expect(b1.status).toBe(200);
    await b1.body!.cancel();
    first.abort();
    await until(() => up.streams[0]!.ended === 'closed');
    const again = await alice.call('GET', `/chat/${id}/events`);
    expect(again.status).toBe(200);
    await again.body!.cancel();
    await a2.body!.cancel();
  });

  it('frees the place of a stream whose visitor stopped reading on a slow link and dropped: after 4 such drops a fifth stream opens at once', async () => {
    const responses: ServerResponse[] = [];
    const proxy = nodeListener(createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, timeoutMs: 2_000 }));
    server = createServer((req, res) => {
      responses.push(res);
      proxy(req, res);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/support`;
    // Big events, quickly: more than the sockets' buffers hold, so the proxy's writes back up.
    up.streamIntervalMs = 2;
    up.streamDeltas = Array.from({ length: 400 }, () => 'x'.repeat(32 * 1024));
    const v = visitor();
    const id = await v.start();
    const head = `GET /api/support/chat/${id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${v.cookie()}\r\n\r\n`;
    for (let drop = 0; drop < 4; drop++) {
      const seen = responses.length;
      const slow = rawRequest(base, head);
      expect(await slow.status).toBe(200);
      // The client stops reading: its receive buffer fills, then the proxy's writes wait for 'drain'.
      slow.socket.pause();
      await until(() => responses[seen]?.writableNeedDrain === true, 10_000);
      const res = responses[seen]!;
      const closed = new Promise((resolve) => res.once('close', resolve));
      slow.socket.resetAndDestroy();
      await closed;
    }
    up.streamDeltas = ['Hello.'];
    const fifth = await v.call('GET', `/chat/${id}/events`);
    expect(fifth.status).toBe(200);
    await fifth.body!.cancel();
    // Every dropped upstream stream was closed too, not left open behind the proxy.
    await until(() => up.streams.slice(0, 4).every((s) => s.ended !== 'open'));
  });

  it("answers 404 to anyone but the conversation's visitor, a signed-in visitor of another id included, without asking upstream", async () => {
    await serve({ identify: (request) => (request.headers.get('x-user') ? { id: request.headers.get('x-user')! } : null) });
    const alice = visitor();
    const id = await alice.start();
    const signedIn = visitor({ 'x-user': 'user-1' });
    const known = await signedIn.start();
    const calls = up.calls.length;
    for (const [who, conversation] of [
      [visitor(), id],
      [visitor({ 'x-user': 'user-2' }), known],
      [alice, known],
      [visitor(), 'not-a-conversation-id'],
    ] as const) {
      const response = await who.call('GET', `/chat/${conversation}/events`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
    }
    expect(up.calls.length).toBe(calls);
    expect((await signedIn.call('GET', `/chat/${known}/events`)).status).toBe(200);
  });

  it('relays an upstream that is not streaming as the error it is, and a conversation already answered as its one terminal event', async () => {
    await serve();
    const v = visitor();
    const id = await v.start();
    up.failNext = [503, 503, 503];
    const failed = await v.call('GET', `/chat/${id}/events`);
    expect(failed.status).toBe(503);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('internal_error');
    const done = eventsOf(await readChunks(await v.call('GET', `/chat/${id}/events`)));
    expect(done.at(-1)!.event).toBe('completed');
  });
});
