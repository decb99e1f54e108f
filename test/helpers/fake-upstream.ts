/**
 * @module A local v0-shaped upstream for proxy tests, with controllable failures and a log of what it
 * received. Every request the proxy sends it, and every answer it gives, is checked against the
 * server's OpenAPI document (with ajv): `close()` fails the test when one did not fit.
 *
 * `GET /v0/chat/{id}/events` follows the streaming contract (docs/server.md, issue 30): a
 * conversation started here streams `streamDeltas` one every `streamIntervalMs` from when its
 * message arrived (whether or not anyone listens), then `completed` with the Conversation whose
 * answer is the deltas joined; every event has an increasing `id:`, `Last-Event-ID` resumes exactly
 * after it (204 after the settled turn's terminal event), `: keepalive` goes out every `keepaliveMs`
 * while nothing else does, and a conversation not processing gets its terminal event at once.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { localValidator } from './openapi.js';

export interface UpstreamCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeUpstream {
  url: string;
  token: string;
  calls: UpstreamCall[];
  /** Statuses to fail the next requests with (then normal behaviour). */
  failNext: number[];
  /** Delay before answering, ms. */
  delayMs: number;
  /** Honour `Prefer: wait` (answer with Preference-Applied). */
  longPoll: boolean;
  /** Status of conversations as GET reports them. */
  status: 'processing' | 'completed';
  /** What did not fit the OpenAPI document: requests the proxy sent, answers this stand-in gave. */
  violations: string[];
  /** The deltas of each answer, streamed in order. */
  streamDeltas: string[];
  /** Time between a turn's events, ms (0: all at once). */
  streamIntervalMs: number;
  /** Time between keepalive comments while nothing else is sent, ms. */
  keepaliveMs: number;
  /** Event streams served: how each ended (`done` after the terminal event, `closed` when the client went first). */
  streams: { id: string; lastEventId: string | undefined; ended: 'open' | 'done' | 'closed' }[];
  close(): Promise<void>;
}

export async function fakeUpstream(token = 'sc_live_upstream_secret_token_value'): Promise<FakeUpstream> {
  const up: FakeUpstream = {
    url: '',
    token,
    calls: [],
    failNext: [],
    delayMs: 0,
    longPoll: true,
    status: 'completed',
    violations: [],
    streamDeltas: ['Hello', ', this is', ' the answer.'],
    streamIntervalMs: 0,
    keepaliveMs: 15_000,
    streams: [],
    close: async () => undefined,
  };
  const validator = localValidator();
  let next = 0;
  /** Conversations started here: their messages, and their latest turn (when it started, its deltas). */
  const conversations = new Map<string, { messages: Record<string, unknown>[]; turn: { started: number; deltas: string[] }; answered: boolean }>();
  const turnEnd = (turn: { started: number; deltas: string[] }) => turn.started + (turn.deltas.length + 1) * up.streamIntervalMs;
  /** A conversation as GET shows it now: its latest answer is in once its turn has ended. */
  const conversation = (id: string) => {
    const known = conversations.get(id);
    if (known && !known.answered && turnEnd(known.turn) <= Date.now()) {
      known.answered = true;
      known.messages.push({ role: 'assistant', content: known.turn.deltas.join(''), sources: [], is_uncertain: false });
    }
    return {
      id,
      status: known ? (known.answered ? 'completed' : 'processing') : up.status,
      messages: known ? [...known.messages] : [{ role: 'user', content: 'q', sources: [] }],
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      up.calls.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      const url = `http://upstream${req.url!}`;
      const headerList = new Headers(Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value] as [string, string]] : [])));
      for (const error of validator.requestErrors(req.method!, url, headerList, body)) up.violations.push(`request ${req.method} ${req.url}: ${error}`);
      const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
        const described = validator.operation(req.method!, new URL(url).pathname)?.op.responses[String(status)];
        const content = described && (validator.resolve(described).content as Record<string, { schema: Record<string, unknown> }> | undefined);
        if (content) for (const error of validator.errors(data, content['application/json']!.schema)) up.violations.push(`answer ${status} to ${req.method} ${req.url}: ${error}`);
        setTimeout(() => {
          res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '100', 'x-ratelimit-reset': '1900000000', 'x-internal': 'secret-infra', ...headers });
          res.end(JSON.stringify(data));
        }, up.delayMs);
      };
      if (req.headers.authorization !== `Bearer ${up.token}`) return send(401, { error: { code: 'unauthorized', message: 'Invalid or expired API token' } });
      const fail = up.failNext.shift();
      if (fail === 429) return send(429, { error: { code: 'rate_limited', message: 'Too many requests', retryable: true } }, { 'retry-after': '30' });
      if (fail === 0) return req.socket.destroy();
      if (fail) return send(fail, { error: { code: 'internal_error', message: 'An internal error occurred', retryable: true } });
      const chat = /^\/v0\/chat\/([\w-]+)$/.exec(req.url!);
      const events = /^\/v0\/chat\/([\w-]+)\/events$/.exec(req.url!);
      if (req.method === 'GET' && events) return streamEvents(events[1]!, req.headers['last-event-id'], res);
      const escalate = /^\/v0\/chat\/([\w-]+)\/escalate$/.exec(req.url!);
      if (req.method === 'POST' && req.url === '/v0/chat') {
        const parsed = JSON.parse(body) as { conversation_id?: string; message: string };
        const id = parsed.conversation_id ?? `conv_${++next}`;
        const known = conversations.get(id);
        if (known) conversation(id);
        const messages = [...(known?.messages ?? []), { role: 'user', content: parsed.message, sources: [] }];
        conversations.set(id, { messages, turn: { started: Date.now(), deltas: [...up.streamDeltas] }, answered: false });
        return send(202, { conversation_id: id, status: 'processing' });
      }
      if (req.method === 'GET' && chat) {
        const wait = /wait=(\d+)/.exec(String(req.headers.prefer ?? ''));
        const headers: Record<string, string> = up.longPoll && wait ? { 'preference-applied': `wait=${wait[1]}` } : {};
        return send(200, conversation(chat[1]!), headers);
      }
      if (req.method === 'POST' && escalate) {
        const parsed = JSON.parse(body) as { integration: string };
        return send(200, { success: true, integration: parsed.integration, ticket_id: 'tkt_1', ticket_url: 'https://helpdesk.example.com/t/1' });
      }
      return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
    });
  });
  /**
   * The events of a conversation's latest turn, each with the time it is due: deltas, then
   * `completed`. A conversation not processing has only its terminal event (at once).
   */
  function turnEvents(id: string): { at: number; event: string; data: unknown }[] {
    const known = conversations.get(id);
    if (!known || turnEnd(known.turn) <= Date.now()) {
      const events = known ? known.turn.deltas.map(() => ({ at: 0, event: 'skipped', data: null })) : [];
      return [...events, { at: 0, event: 'completed', data: conversation(id) }];
    }
    const { turn } = known;
    const events: { at: number; event: string; data: unknown }[] = turn.deltas.map((text, i) => ({ at: turn.started + (i + 1) * up.streamIntervalMs, event: 'delta', data: { text } }));
    events.push({ at: turnEnd(turn), event: 'completed', data: null });
    return events;
  }

  function streamEvents(id: string, lastEventId: string | string[] | undefined, res: import('node:http').ServerResponse): void {
    const after = typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) : 0;
    const record = { id, lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined, ended: 'open' as 'open' | 'done' | 'closed' };
    up.streams.push(record);
    const events = turnEvents(id);
    // The client has the settled turn's terminal event: nothing more to send.
    if (after >= events.length && events.at(-1)!.at <= Date.now()) {
      record.ended = 'done';
      res.writeHead(204, { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '100', 'x-ratelimit-reset': '1900000000' });
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '100', 'x-ratelimit-reset': '1900000000' });
    let index = after;
    let timer: NodeJS.Timeout | undefined;
    let keepalive = setInterval(() => res.write(': keepalive\n\n'), up.keepaliveMs);
    const tick = () => {
      while (index < events.length && events[index]!.at <= Date.now()) {
        const { event, data } = events[index]!;
        index++;
        // A finished turn's deltas are not sent again: its terminal event (same id as ever) carries the answer.
        if (event === 'skipped') continue;
        res.write(`id: ${index}\nevent: ${event}\ndata: ${JSON.stringify(data ?? conversation(id))}\n\n`);
        clearInterval(keepalive);
        keepalive = setInterval(() => res.write(': keepalive\n\n'), up.keepaliveMs);
      }
      if (index >= events.length) {
        record.ended = 'done';
        clearInterval(keepalive);
        res.end();
        return;
      }
      timer = setTimeout(tick, Math.max(0, events[index]!.at - Date.now()));
    };
    res.on('close', () => {
      if (record.ended === 'open') record.ended = 'closed';
      clearTimeout(timer);
      clearInterval(keepalive);
    });
    tick();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  up.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  up.close = async () => {
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    if (up.violations.length > 0) throw new Error(`not as the OpenAPI document describes:\n${up.violations.join('\n')}`);
  };
  return up;
}
