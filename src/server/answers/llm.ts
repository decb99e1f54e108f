/** @module An OpenAI-compatible chat-completions client: timeout, retries with backoff, `Retry-After`. */
import { parseRetryAfter, withRetries } from '../../protocol/index.js';

export interface LlmConfig {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** @default 20000 */
  timeoutMs?: number;
  /** Retries after the first attempt, on 408, 429, 5xx and network errors. @default 2 */
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

/** One completion's text. Throws LlmError when every attempt failed. */
export async function complete(config: LlmConfig, messages: ChatMessage[], options: { signal?: AbortSignal; maxTokens?: number } = {}): Promise<string> {
  const doFetch = config.fetch ?? globalThis.fetch;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const retries = config.retries ?? 2;
  // The protocol's one retry loop: backoff with jitter, `Retry-After` in seconds or as a date (at most 10 s here).
  return withRetries<string>(
    async () => {
      const timeout = AbortSignal.timeout(config.timeoutMs ?? 20_000);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      try {
        const response = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${config.apiKey}` },
          body: JSON.stringify({ model: config.model, messages, temperature: 0.2, max_tokens: options.maxTokens ?? 600 }),
          signal,
        });
        if (response.ok) {
          const data = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
          const content = data.choices?.[0]?.message?.content;
          if (typeof content !== 'string' || !content.trim()) throw new LlmError('provider returned no content');
          return { retry: false, value: content.trim() };
        }
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
      }
    },
    { retries, baseDelayMs: 375, signal: options.signal },
  );
}
