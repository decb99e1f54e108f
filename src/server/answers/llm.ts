/** @module An OpenAI-compatible chat-completions client: timeout, retries with backoff, `Retry-After`. */

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

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

/** One completion's text. Throws LlmError when every attempt failed. */
export async function complete(config: LlmConfig, messages: ChatMessage[], options: { signal?: AbortSignal; maxTokens?: number } = {}): Promise<string> {
  const doFetch = config.fetch ?? globalThis.fetch;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const retries = config.retries ?? 2;
  let lastError = 'no attempt made';
  for (let attempt = 0; attempt <= retries; attempt++) {
    const timeout = AbortSignal.timeout(config.timeoutMs ?? 20_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let retryAfterMs = 0;
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
        return content.trim();
      }
      lastError = `provider answered ${response.status}`;
      await response.body?.cancel().catch(() => undefined);
      const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
      if (!retryable) throw new LlmError(lastError);
      const header = response.headers.get('retry-after');
      if (header && /^\d+$/.test(header)) retryAfterMs = Math.min(10_000, Number(header) * 1000);
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (attempt < retries) await sleep(retryAfterMs || 250 * 2 ** attempt * (1 + Math.random()), options.signal);
  }
  throw new LlmError(lastError);
}
