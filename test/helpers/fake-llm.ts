/**
 * @module A local OpenAI-compatible chat-completions server, strict about the request shape:
 * it rejects requests the real API would reject, and answers in the documented response shape —
 * with `stream: true`, as OpenAI streams: `data: {chat.completion.chunk}` events (the role first,
 * then the content piece by piece, then an empty delta with `finish_reason`), then `data: [DONE]`.
 */
import { createServer, type Server } from 'node:http';

/** A streamed reply that breaks: the connection is cut after this many content chunks. */
export interface BrokenReply {
  reply: string;
  breakAfterChunks: number;
}

export interface FakeLlm {
  baseUrl: string;
  requests: { model: string; messages: { role: string; content: string }[]; stream?: boolean }[];
  /** Replies to give, in order; a number is an HTTP status to fail with; 'hang' never answers. */
  script: (string | number | 'hang' | BrokenReply)[];
  /** How long each reply takes, in ms (a model's response time; streamed, the time to its first chunk). @default 0 */
  delayMs: number;
  /** Streamed: characters per content chunk (a token is about four). @default 4 */
  chunkChars: number;
  /** Streamed: the wait between two chunks, in ms (a model writing slowly). @default 0 */
  chunkDelayMs: number;
  /** Whether `stream: true` is honoured; false answers it with one whole completion, as a provider without streaming does. @default true */
  streams: boolean;
  /** Streamed: performance.now() when the reply to `requests[i]` wrote its first content chunk, at index i. */
  firstChunkAt: number[];
  close(): Promise<void>;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'developer']);
const ALLOWED = new Set(['model', 'messages', 'temperature', 'max_tokens', 'top_p', 'stream', 'stop', 'n', 'user']);

export async function fakeLlm(apiKey = 'test-key'): Promise<FakeLlm> {
  const llm: FakeLlm = { baseUrl: '', requests: [], script: [], delayMs: 0, chunkChars: 4, chunkDelayMs: 0, streams: true, firstChunkAt: [], close: async () => undefined };
  const fail = (res: import('node:http').ServerResponse, status: number, message: string, type = 'invalid_request_error') => {
    res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) });
    res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return fail(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
      if (req.headers.authorization !== `Bearer ${apiKey}`) return fail(res, 401, 'Incorrect API key provided', 'invalid_api_key');
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return fail(res, 400, 'We could not parse the JSON body of your request.');
      }
      for (const key of Object.keys(body)) if (!ALLOWED.has(key)) return fail(res, 400, `Unrecognized request argument supplied: ${key}`);
      if (typeof body.model !== 'string' || !body.model) return fail(res, 400, "you must provide a model parameter");
      const messages = body.messages;
      if (!Array.isArray(messages) || messages.length === 0) return fail(res, 400, "'messages' must be a non-empty array");
      for (const m of messages as Record<string, unknown>[]) {
        if (!ROLES.has(m.role as string)) return fail(res, 400, `Invalid value for 'messages.role': ${String(m.role)}`);
        if (typeof m.content !== 'string') return fail(res, 400, "Invalid type for 'messages.content'");
      }
      llm.requests.push(body as FakeLlm['requests'][number]);
      const next = llm.script.shift() ?? 'I could not find that in the documentation.';
      if (next === 'hang') return;
      if (typeof next === 'number') return fail(res, next, 'The server had an error while processing your request.', 'server_error');
      if (body.stream !== undefined && typeof body.stream !== 'boolean') return fail(res, 400, "Invalid type for 'stream': expected a boolean");
      if (body.stream === true && llm.streams) {
        const broken = typeof next === 'object' ? next.breakAfterChunks : Infinity;
        const text = typeof next === 'object' ? next.reply : next;
        const index = llm.requests.length - 1;
        setTimeout(() => streamReply(res, { index, model: body.model as string, text, broken }), llm.delayMs);
        return;
      }
      if (typeof next === 'object') return fail(res, 500, 'A broken reply is only for streamed requests');
      const reply = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${llm.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: next }, logprobs: null, finish_reason: 'stop' }],
            usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
          }),
        );
      };
      if (llm.delayMs > 0) setTimeout(reply, llm.delayMs);
      else reply();
    });
  });
  /** Writes `text` as OpenAI's stream does, chunk by chunk, cut after `broken` content chunks. */
  function streamReply(res: import('node:http').ServerResponse, reply: { index: number; model: string; text: string; broken: number }) {
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, string>, finish: string | null) =>
      `data: ${JSON.stringify({ id: `chatcmpl-${reply.index + 1}`, object: 'chat.completion.chunk', created, model: reply.model, system_fingerprint: null, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: '' }, null));
    const pieces: string[] = [];
    for (let i = 0; i < reply.text.length; i += llm.chunkChars) pieces.push(reply.text.slice(i, i + llm.chunkChars));
    let sent = 0;
    const next = () => {
      if (res.destroyed) return;
      if (sent === reply.broken) return res.destroy();
      if (sent === pieces.length) {
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
        return;
      }
      if (sent === 0) llm.firstChunkAt[reply.index] = performance.now();
      res.write(chunk({ content: pieces[sent++]! }, null));
      if (llm.chunkDelayMs > 0) setTimeout(next, llm.chunkDelayMs);
      else setImmediate(next);
    };
    next();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  llm.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
  llm.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return llm;
}
