/** @module An OpenAI-compatible chat-completions client, whole or streamed: timeout, retries with backoff, `Retry-After`. */
import { createParser } from 'eventsource-parser';
import { parseRetryAfter, withRetries } from '../../protocol/index.js';

export interface LlmConfig {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** How long the provider may take to answer, and (streamed) between two chunks. @default 20000 */
  timeoutMs?: number;
  /** Retries after the first attempt, on 408, 429, 5xx and network errors (streamed: before the first token only). @default 2 */
  retries?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export class LlmError extends Error {
  override name = 'LlmError';
}

/** The LLM configuration from SUPPORT_CHAT_LLM_*; null when not configured. */
export function llmConfigFromEnv(env: NodeJS.ProcessEnv, fetchImpl?: typeof fetch): LlmConfig | null {
  const baseUrl = env.SUPPORT_CHAT_LLM_BASE_URL;
  const model = env.SUPPORT_CHAT_LLM_MODEL;
  if (!baseUrl || !model) return null;
  return { baseUrl, apiKey: env.SUPPORT_CHAT_LLM_API_KEY ?? '', model, fetch: fetchImpl };
}

/**
 * Largest SSE event the provider may send, in characters (one chunk is a few hundred). The parser
 * checks what it holds between reads, which an event that arrives whole in one read never reaches;
 * `onEvent` checks each event itself, so the limit does not depend on how the network cut the body.
 */
const MAX_EVENT_CHARS = 256 * 1024;

const tooLarge = () => new LlmError(`provider sent an event over ${MAX_EVENT_CHARS} characters`);

interface CompletionOptions {
  signal?: AbortSignal;
  maxTokens?: number;
}

/** One completion's text. Throws LlmError when every attempt failed. */
export async function complete(config: LlmConfig, messages: ChatMessage[], options: CompletionOptions = {}): Promise<string> {
  return request(config, messages, options, false, completionText);
}

/** The text of a whole (not streamed) chat completion: `choices[0].message.content`. */
async function completionText(response: Response): Promise<string> {
  const data = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = data.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || !content.trim()) throw new LlmError('provider returned no content');
  return content.trim();
}

/**
 * One completion streamed (`stream: true`): `onText` is called with each piece of text as the
 * provider sends it (SSE chunks `choices[0].delta.content`, then `[DONE]`), and the whole text is
 * returned; a provider that answers a whole completion instead (no streaming) is one piece. Attempts are retried until the first piece; after it, a broken stream is an LlmError
 * (what was passed on cannot be taken back). `timeoutMs` bounds the wait for the response and for
 * each chunk after it.
 */
export async function streamCompletion(config: LlmConfig, messages: ChatMessage[], options: CompletionOptions & { onText(text: string): void }): Promise<string> {
  let received = false;
  return request(config, messages, options, true, async (response, restartTimer) => {
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      // A provider that does not stream (it ignores `stream: true`) answers one whole completion: passed on at once.
      const whole = await completionText(response);
      received = true;
      options.onText(whole);
      return whole;
    }
    let text = '';
    let done = false;
    const parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent(event) {
        if (done) return;
        if (event.data.length > MAX_EVENT_CHARS) throw tooLarge();
        if (event.data === '[DONE]') {
          done = true;
          return;
        }
        const chunk = JSON.parse(event.data) as { choices?: { delta?: { content?: unknown } }[]; error?: { message?: unknown } };
        if (chunk.error) throw new LlmError(`provider failed mid-stream: ${String(chunk.error.message ?? 'unknown error')}`);
        const piece = chunk.choices?.[0]?.delta?.content;
        if (typeof piece !== 'string' || piece === '') return;
        text += piece;
        received = true;
        options.onText(piece);
      },
      onError(error) {
        // Unknown fields and bad `retry` values are ignored, as the SSE spec says; an event past the size limit is not.
        if (error.type === 'max-buffer-size-exceeded') throw tooLarge();
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
        restartTimer();
        parser.feed(decoder.decode(bytes, { stream: true }));
        if (done) break;
      }
    } catch (error) {
      if (!received || options.signal?.aborted) throw error;
      throw new LlmError(`provider stream broke after the first token: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!done) {
      if (received) throw new LlmError('provider stream ended before [DONE], after the first token');
      throw new Error('provider stream ended before [DONE]');
    }
    if (!text.trim()) throw new LlmError('provider returned no content');
    return text;
  });
}

/**
 * The one request path of both: the provider's URL and headers, the timeout (restarted by
 * `read` as the body arrives), retries on 408, 429, 5xx and network errors with `Retry-After`
 * honoured (10 s at most). An LlmError thrown by `read` is final (a stream broken after its first
 * token is one).
 */
async function request<T>(
  config: LlmConfig,
  messages: ChatMessage[],
  options: CompletionOptions,
  stream: boolean,
  read: (response: Response, restartTimer: () => void) => Promise<T>,
): Promise<T> {
  const doFetch = config.fetch ?? globalThis.fetch;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const retries = config.retries ?? 2;
  const timeoutMs = config.timeoutMs ?? 20_000;
  // The protocol's one retry loop: backoff with jitter, `Retry-After` in seconds or as a date (at most 10 s here).
  return withRetries<T>(
    async () => {
      const timeout = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const restartTimer = () => {
        clearTimeout(timer);
        timer = setTimeout(() => timeout.abort(new DOMException(`no answer from the provider within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
      };
      restartTimer();
      const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
      try {
        const body: Record<string, unknown> = { model: config.model, messages, temperature: 0.2, max_tokens: options.maxTokens ?? 600 };
        if (stream) body.stream = true;
        const response = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${config.apiKey}` },
          body: JSON.stringify(body),
          signal,
        });
        if (response.ok) return { retry: false, value: await read(response, restartTimer) };
        const failure = new LlmError(`provider answered ${response.status}`);
        await response.body?.cancel().catch(() => undefined);
        const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
        if (!retryable) throw failure;
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        return { retry: true, error: failure, retryAfter: retryAfter === undefined ? undefined : Math.min(10, retryAfter) };
      } catch (error) {
        if (error instanceof LlmError) throw error;
        if (options.signal?.aborted) throw options.signal.reason;
        return { retry: true, error: new LlmError(error instanceof Error ? error.message : String(error)) };
      } finally {
        clearTimeout(timer);
      }
    },
    { retries, baseDelayMs: 375, signal: options.signal },
  );
}
