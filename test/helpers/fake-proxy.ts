/**
 * @module A local HTTP server implementing the proxy routes the widget calls, with controllable
 * timing and errors. Each test uses its own namespace (`/t/<id>`), so tests never share state.
 * Request bodies are checked with the protocol's schemas, as the real proxy checks them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HttpError, parseJsonObject } from '../../src/protocol/index.js';
import { FeedbackRequest, parseBody, readEscalationContact, SendMessageRequest } from '../../src/protocol/schemas/index.js';

export interface ProxyBehaviour {
  /** How long an answer takes after the message is sent, ms. */
  answerDelayMs: number;
  /** The assistant's Markdown reply. */
  answer: string;
  sources: { title: string; url: string }[];
  /** The reply's `is_uncertain`: related pages (or nothing) rather than an answer. */
  uncertain: boolean;
  /** Honour `Prefer: wait` with `Preference-Applied`. */
  longPoll: boolean;
  /** Fail the next requests with these statuses; 0 drops the connection. */
  failNext: number[];
  /** Fail the next polls (GET requests only) with these statuses. */
  failPolls: number[];
  /** `Retry-After` sent with a 429, seconds. */
  retryAfter: number;
  /** Status of the escalation endpoint (200, 409, 500…). */
  escalateStatus: number;
  /** How many escalation requests are answered 409 retryable ("in progress", with Retry-After) before the ticket. */
  escalateInProgress: number;
  /** The integration the escalation result names (the proxy's configured one). */
  escalateIntegration: string;
  /** Final status of answers. */
  finalStatus: 'completed' | 'failed';
  /**
   * What `GET /search` answers, in the shape of the proxy's `{"results": [...]}`; null: results made
   * from the query (two pages, the query's words highlighted), so a test sees which query answered.
   */
  searchResults: unknown[] | null;
  /** How long `GET /search` takes, ms. */
  searchDelayMs: number;
}

interface Namespace {
  behaviour: ProxyBehaviour;
  conversations: Map<string, { messages: { role: string; content: string; sources: unknown[]; is_uncertain?: boolean }[]; readyAt: number; status: string; held: Set<() => void> }>;
  log: { method: string; path: string; prefer: string | null; body: string; key: string | null; aborted?: true }[];
}

const defaults = (): ProxyBehaviour => ({
  answerDelayMs: 300,
  answer: 'Use the **reset** link.\n\n- Open Settings\n- Choose Security\n\n```sh\nacme reset --all\n```',
  sources: [{ title: 'Reset your password', url: 'https://docs.example.com/reset' }],
  uncertain: false,
  longPoll: false,
  failNext: [],
  failPolls: [],
  retryAfter: 1,
  escalateStatus: 200,
  escalateInProgress: 0,
  escalateIntegration: 'webhook',
  finalStatus: 'completed',
  searchResults: null,
  searchDelayMs: 0,
});

/** Results for `q` as the search route ranks them: two sections of one page and one of another, `q` marked in each excerpt. */
function resultsFor(q: string): unknown[] {
  const excerpt = (before: string) => ({ excerpt: `${before}${q} in a few steps.`, highlights: [[before.length, before.length + q.length]] });
  return [
    { url: 'https://docs.example.com/account#reset', title: 'Account', section: `Reset: ${q}`, ...excerpt('How to ') },
    { url: 'https://docs.example.com/install', title: 'Install', section: null, ...excerpt('Install ') },
    { url: 'https://docs.example.com/account#delete', title: 'Account', section: 'Delete', ...excerpt('Remove ') },
  ];
}

export async function startFakeProxy(): Promise<{ url: string; close(): Promise<void> }> {
  const spaces = new Map<string, Namespace>();
  let ids = 0;
  const space = (name: string) => {
    let ns = spaces.get(name);
    if (!ns) spaces.set(name, (ns = { behaviour: defaults(), conversations: new Map(), log: [] }));
    return ns;
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin ?? '*';
    const cors = {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': 'content-type, prefer, idempotency-key',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-expose-headers': 'Retry-After, Preference-Applied, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    };
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...cors, ...headers });
      res.end(body === null ? '' : JSON.stringify(body));
    };
    if (req.method === 'OPTIONS') return send(204, null);
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const match = /^\/t\/([\w-]+)(\/.*)$/.exec(req.url ?? '');
      if (!match) return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
      const ns = space(match[1]!);
      const path = match[2]!;
      if (path === '/__control') {
        const { completeNow, ...behaviour } = JSON.parse(raw || '{}') as Partial<ProxyBehaviour> & { completeNow?: boolean };
        // Answers still being written are ready at the next poll, and a long poll held now answers at once.
        if (completeNow)
          for (const conversation of ns.conversations.values()) {
            conversation.readyAt = 0;
            for (const answer of [...conversation.held]) answer();
          }
        Object.assign(ns.behaviour, behaviour);
        return send(200, ns.behaviour);
      }
      if (path === '/__log') return send(200, ns.log);
      // Who the visitor is: anonymous, as the real proxy answers without `identify` (the known-visitor
      // tests use the real proxy, test/widget/identity-setup.ts). Outside the log and the failures,
      // which are about the conversation's requests.
      if (req.method === 'GET' && path === '/visitor') return send(200, { known: false });
      // A proxy from before answer streams: no events route (404, as any unknown route), so the widget
      // polls, which is what these tests are about. Streams are tested through the real proxy (test/e2e/stream*.test.ts).
      if (/^\/chat\/[\w-]+\/events$/.test(path)) return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
      ns.log.push({ method: req.method!, path, prefer: (req.headers.prefer as string) ?? null, body: raw, key: (req.headers['idempotency-key'] as string) ?? null });
      const b = ns.behaviour;
      const fail = b.failNext.shift() ?? (req.method === 'GET' ? b.failPolls.shift() : undefined);
      if (fail === 0) return req.socket.destroy();
      if (fail === 429) return send(429, { error: { code: 'rate_limited', message: 'Too many requests', retryable: true } }, { 'retry-after': String(b.retryAfter) });
      if (fail) return send(fail, { error: { code: fail >= 500 ? 'internal_error' : 'bad_request', message: fail >= 500 ? 'An internal error occurred' : 'Bad request', ...(fail >= 500 ? { retryable: true } : {}) } });

      /** The body checked as the real proxy checks it; its error answered in the spec's shape. */
      const read = <T,>(check: (body: Record<string, unknown>) => T): T | undefined => {
        try {
          return check(parseJsonObject(raw));
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          send(error.status, error.toBody());
          return undefined;
        }
      };
      if (req.method === 'POST' && path === '/chat') {
        const body = read((b) => parseBody(SendMessageRequest, b));
        if (!body) return;
        // As the real proxy: an id it does not know (or that is not this visitor's) is a 404, never a new conversation.
        if (body.conversation_id && !ns.conversations.has(body.conversation_id)) return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
        const id = body.conversation_id || `conv_${++ids}`;
        const conversation = ns.conversations.get(id) ?? { messages: [], readyAt: 0, status: 'processing', held: new Set<() => void>() };
        conversation.messages.push({ role: 'user', content: body.message, sources: [] });
        conversation.readyAt = Date.now() + b.answerDelayMs;
        conversation.status = 'processing';
        ns.conversations.set(id, conversation);
        return send(202, { conversation_id: id, status: 'processing' });
      }
      if (req.method === 'GET' && path.startsWith('/search?')) {
        // As the proxy: `q` is 1–500 characters once trimmed, `limit` 1–20; the results come in rank order.
        const params = new URLSearchParams(path.slice('/search?'.length));
        const q = (params.get('q') ?? '').trim();
        const limit = Number(params.get('limit') ?? 8);
        if (!q || [...q].length > 500) return send(400, { error: { code: 'bad_request', message: '"q" must be 1 to 500 characters' } });
        if (!Number.isInteger(limit) || limit < 1 || limit > 20) return send(400, { error: { code: 'bad_request', message: '"limit" must be an integer from 1 to 20' } });
        const results = (b.searchResults ?? resultsFor(q)).slice(0, limit);
        // A search the widget gave up on (a stale one it aborted) is logged as such.
        const entry = ns.log.at(-1)!;
        res.on('close', () => {
          if (!res.writableFinished) entry.aborted = true;
        });
        setTimeout(() => !res.destroyed && send(200, { results }), b.searchDelayMs).unref();
        return;
      }
      const get = /^\/chat\/([\w-]+)$/.exec(path);
      if (req.method === 'GET' && get) {
        const conversation = ns.conversations.get(get[1]!);
        if (!conversation) return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
        const respond = (headers: Record<string, string> = {}) => {
          if (conversation.status === 'processing' && Date.now() >= conversation.readyAt) {
            conversation.status = b.finalStatus;
            if (b.finalStatus === 'completed') conversation.messages.push({ role: 'assistant', content: b.answer, sources: b.sources, is_uncertain: b.uncertain });
          }
          send(200, { id: get[1], status: conversation.status, messages: conversation.messages, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }, headers);
        };
        const wait = /wait=(\d+)/.exec(String(req.headers.prefer ?? ''));
        if (b.longPoll && wait) {
          // As the real server: the poll is held until the answer is ready or the wait is over. A
          // timer can fire a millisecond before `Date.now()` reaches its time: it is then set again.
          const deadline = Date.now() + Number(wait[1]) * 1000;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const answer = () => {
            clearTimeout(timer);
            conversation.held.delete(answer);
            respond({ 'preference-applied': `wait=${wait[1]}` });
          };
          const hold = () => {
            const left = conversation.status === 'processing' ? Math.min(deadline, conversation.readyAt) - Date.now() : 0;
            if (left <= 0) return answer();
            // A poll still held when the tests end does not keep the process alive.
            timer = setTimeout(hold, left).unref();
          };
          conversation.held.add(answer);
          hold();
          return;
        }
        return respond();
      }
      const escalate = /^\/chat\/([\w-]+)\/escalate$/.exec(path);
      if (req.method === 'POST' && escalate) {
        const conversation = ns.conversations.get(escalate[1]!);
        if (!conversation) return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
        if (!read(readEscalationContact)) return;
        if (conversation.status === 'processing' && Date.now() < conversation.readyAt) return send(409, { error: { code: 'conflict', message: 'Conversation is still processing' } });
        if (b.escalateInProgress > 0) {
          b.escalateInProgress--;
          return send(409, { error: { code: 'conflict', message: 'Escalation in progress', retryable: true } }, { 'retry-after': '1' });
        }
        if (b.escalateStatus === 409) return send(409, { error: { code: 'conflict', message: 'Conversation has already been escalated' } });
        if (b.escalateStatus !== 200) return send(b.escalateStatus, { error: { code: 'internal_error', message: 'An internal error occurred', retryable: true } });
        return send(200, { success: true, integration: b.escalateIntegration, ticket_id: 'tkt_42', ticket_url: 'https://helpdesk.example.com/tickets/tkt_42' });
      }
      const feedback = /^\/chat\/([\w-]+)\/feedback$/.exec(path);
      if (req.method === 'POST' && feedback) {
        // As the real proxy: a conversation this visitor does not own is 404 before the body is read.
        const conversation = ns.conversations.get(feedback[1]!);
        if (!conversation) return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
        const body = read((b) => parseBody(FeedbackRequest, b));
        if (!body) return;
        const index = body.message_index;
        const bad = (message: string) => send(400, { error: { code: 'bad_request', message } });
        // As the server: the rated message must be an answer of this conversation (default: the last one).
        if (!conversation.messages.some((m) => m.role === 'assistant')) return send(409, { error: { code: 'conflict', message: 'The conversation has no answer to rate yet' } });
        if (typeof index === 'number' && conversation.messages[index]?.role !== 'assistant') return bad('"message_index" must be the index of an assistant message in the conversation');
        return send(200, { success: true });
      }
      return send(404, { error: { code: 'not_found', message: 'Resource not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
