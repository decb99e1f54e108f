/**
 * @module A local OpenAI-compatible chat-completions server, strict about the request shape:
 * it rejects requests the real API would reject, and answers in the documented response shape.
 */
import { createServer, type Server } from 'node:http';

export interface FakeLlm {
  baseUrl: string;
  requests: { model: string; messages: { role: string; content: string }[] }[];
  /** Replies to give, in order; a number is an HTTP status to fail with; 'hang' never answers. */
  script: (string | number | 'hang')[];
  /** How long each reply takes, in ms (a model's response time). @default 0 */
  delayMs: number;
  close(): Promise<void>;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'developer']);
const ALLOWED = new Set(['model', 'messages', 'temperature', 'max_tokens', 'top_p', 'stream', 'stop', 'n', 'user']);

export async function fakeLlm(apiKey = 'test-key'): Promise<FakeLlm> {
  const llm: FakeLlm = { baseUrl: '', requests: [], script: [], delayMs: 0, close: async () => undefined };
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
