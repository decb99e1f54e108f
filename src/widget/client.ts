/** @module The widget's client for the proxy routes, and its typed errors. */
import { isErrorBody, type Conversation, type ConversationSummary, type EscalationResult, type SendMessageResult } from '../protocol/index.js';
import { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError } from '../protocol/client-errors.js';
import { parseRetryAfter } from '../protocol/retry.js';

export { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError };

const isAbort = (e: unknown) => e instanceof DOMException && e.name === 'AbortError';

/** The visitor token the widget sends (`identityToken`): a string, or a function called before each request (it returns its token until that expires, then a fresh one). */
export type IdentityToken = string | (() => string | null | undefined | Promise<string | null | undefined>);

/** `GET {basePath}/chat`: the visitor's conversations, and what the site knows of them. */
export interface ConversationList {
  conversations: ConversationSummary[];
  visitor?: { name?: string; email?: string };
}

export class ProxyClient {
  private readonly _base: string;
  /** The `identityToken` property, read for every request. */
  identity?: () => IdentityToken | null | undefined;

  constructor(readonly endpoint: string) {
    this._base = endpoint.replace(/\/+$/, '');
  }

  /** One fetch of a proxy route, with the visitor's cookie and token; a failure to connect is a NetworkError. */
  private async _fetch(method: 'GET' | 'POST', path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response> {
    const source = this.identity?.();
    const bearer = typeof source === 'function' ? await source() : source;
    try {
      return await fetch(`${this._base}${path}`, {
        method,
        credentials: 'include',
        headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...init.headers },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        signal: init.signal,
      });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new NetworkError('The support service could not be reached', { cause: error });
    }
  }

  private async _request<T>(method: 'GET' | 'POST', path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<{ data: T; response: Response }> {
    const response = await this._fetch(method, path, init);
    let data: unknown = null;
    try {
      data = await response.json();
    } catch (error) {
      if (isAbort(error)) throw error;
    }
    if (!response.ok) {
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (isErrorBody(data)) {
        const retryable = data.error.retryable ?? (response.status === 429 || response.status >= 500);
        throw new ApiError(response.status, data.error.code, data.error.message, retryable, retryAfter);
      }
      throw new ApiError(response.status, response.status >= 500 ? 'internal_error' : 'bad_request', `Unexpected answer (${response.status})`, response.status >= 500, retryAfter);
    }
    return { data: data as T, response };
  }

  async send(message: string, conversationId: string | undefined, signal?: AbortSignal): Promise<SendMessageResult> {
    // Absent fields are left out (JSON drops undefined).
    return (await this._request<SendMessageResult>('POST', '/chat', { body: { message, conversation_id: conversationId }, signal })).data;
  }

  /** The visitor's conversations, newest first (signed in: from any device). */
  async list(): Promise<ConversationList> {
    return (await this._request<ConversationList>('GET', '/chat')).data;
  }

  /** Reads a conversation; with `waitSeconds` it asks the proxy to long-poll, and says whether it did. */
  async get(id: string, options: { waitSeconds?: number; signal?: AbortSignal } = {}): Promise<{ conversation: Conversation; longPoll: boolean }> {
    const headers: Record<string, string> = options.waitSeconds ? { prefer: `wait=${options.waitSeconds}` } : {};
    const { data, response } = await this._request<Conversation>('GET', `/chat/${encodeURIComponent(id)}`, { headers, signal: options.signal });
    return { conversation: data, longPoll: response.headers.has('preference-applied') };
  }

  /**
   * Opens the answer's event stream (`GET {endpoint}/chat/:id/events`), resuming after `lastEventId`;
   * the Response as it arrived, its body still to be read (controllers/stream.ts).
   */
  events(id: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    // The query parameter rather than the `Last-Event-ID` header: a cross-origin reconnect then needs no preflight.
    const query = lastEventId ? `?last_event_id=${encodeURIComponent(lastEventId)}` : '';
    return this._fetch('GET', `/chat/${encodeURIComponent(id)}/events${query}`, { headers: { accept: 'text/event-stream' }, signal });
  }

  /** Escalates; `note` (optional, at most 2,000 characters) is relayed into the ticket. */
  async escalate(id: string, customer: { name: string; email: string; note?: string }, signal?: AbortSignal): Promise<EscalationResult> {
    const body = { name: customer.name, email: customer.email, note: customer.note || undefined };
    return (await this._request<EscalationResult>('POST', `/chat/${encodeURIComponent(id)}/escalate`, { body, signal })).data;
  }

  /** Rates the answer at `message_index` (an index into the conversation's messages); a later rating replaces it. */
  async feedback(id: string, body: { rating: 'up' | 'down'; message_index: number; comment?: string }): Promise<void> {
    await this._request('POST', `/chat/${encodeURIComponent(id)}/feedback`, { body });
  }
}
