/** @module The widget's client for the proxy routes, and its typed errors. */
import { isErrorBody, type Conversation, type ConversationSummary, type EscalationResult, type SendMessageResult, type VisitorInfo } from '../protocol/index.js';
import { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError } from '../protocol/client-errors.js';
import { PAGE_TITLE_MAX_LENGTH, PAGE_URL_MAX_LENGTH, SELECTION_MAX_LENGTH } from '../protocol/limits.js';
import { parseRetryAfter } from '../protocol/retry.js';
import type { VisitorToken } from './identity-token.js';

export { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError };
export type { VisitorInfo };

type RouteInit = { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal };

const isAbort = (e: unknown) => e instanceof DOMException && e.name === 'AbortError';

/** `GET {basePath}/chat`: the visitor's conversations, newest first. */
export interface ConversationList {
  conversations: ConversationSummary[];
}


/** `GET {basePath}/search`: one ranked section; `highlights` are `[start, end)` UTF-16 offsets of matched words in `excerpt`. */
export interface SearchResult {
  url: string;
  title: string;
  section: string | null;
  excerpt: string;
  highlights: [number, number][];
}

/** The first `max` code points of `text` (an emoji counts one; a pair is never cut in two). */
export const codePoints = (text: string, max: number): string => [...text.slice(0, 2 * max)].slice(0, max).join('');

/** Where the visitor is: this page's URL when it is an http(s) one the proxy accepts, else undefined. */
function pageUrl(): string | undefined {
  const url = location.href;
  return /^https?:/.test(url) && url.length <= PAGE_URL_MAX_LENGTH ? url : undefined;
}

/** Where a message is asked from: this page's URL and title, and text the visitor selected on it. */
export interface PageContext {
  page_url: string;
  page_title: string;
  selection?: string;
}

/** Where the visitor is now, with their `selection`; undefined on a page the proxy would not accept. Absent fields are left out (JSON drops undefined); the text is cut to the proxy's bounds. */
export function pageContext(selection?: string): PageContext | undefined {
  const page_url = pageUrl();
  return page_url ? { page_url, page_title: codePoints(document.title, PAGE_TITLE_MAX_LENGTH), selection: selection ? codePoints(selection, SELECTION_MAX_LENGTH) : undefined } : undefined;
}

/** A message's key: 16 random bytes in hex (`getRandomValues`, which unlike `randomUUID` works on http pages too). */
export const newKey = (): string => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

export class ProxyClient {
  private readonly _base: string;
  /** The visitor token (`identityToken`), sent with every request. */
  token?: VisitorToken;

  constructor(readonly endpoint: string) {
    this._base = endpoint.replace(/\/+$/, '');
  }

  /** One fetch of a proxy route, with the visitor's cookie and `bearer`; a failure to connect is a NetworkError. */
  private async _fetchOnce(method: 'GET' | 'POST', path: string, init: RouteInit, bearer: string | null): Promise<Response> {
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

  /**
   * One fetch of a proxy route with the visitor token; when the token is refused (expired), once
   * more with a fresh one. A 401 comes from the proxy's identify stage, before anything went
   * upstream, so even a POST is safe to repeat.
   */
  private async _fetch(method: 'GET' | 'POST', path: string, init: RouteInit): Promise<Response> {
    const bearer = (await this.token?.current()) ?? null;
    const response = await this._fetchOnce(method, path, init, bearer);
    if (response.status !== 401 || !bearer) return response;
    const fresh = await this.token!.refresh(bearer);
    return fresh ? this._fetchOnce(method, path, init, fresh) : response;
  }

  private async _request<T>(method: 'GET' | 'POST', path: string, init: RouteInit = {}): Promise<{ data: T; response: Response }> {
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

  /**
   * Sends `message` with its `key` (the same for every attempt of one message, so a resend is the
   * same turn) and where it was asked from (`context`, see `pageContext`).
   */
  async send(message: string, conversationId: string | undefined, key: string, context?: PageContext, signal?: AbortSignal): Promise<SendMessageResult> {
    return (await this._request<SendMessageResult>('POST', '/chat', { body: { message, conversation_id: conversationId, context }, headers: { 'idempotency-key': key }, signal })).data;
  }

  /** Searches the docs: ranked sections for `q` (at most `limit`), the page the visitor is on weighed first. */
  async search(q: string, limit: number, signal: AbortSignal): Promise<SearchResult[]> {
    const query = new URLSearchParams({ q, limit: String(limit) });
    const page_url = pageUrl();
    if (page_url) query.set('page_url', page_url);
    return (await this._request<{ results: SearchResult[] }>('GET', `/search?${query}`, { signal })).data.results;
  }

  /** The visitor's conversations, newest first (signed in: from any device). */
  async list(): Promise<ConversationList> {
    return (await this._request<ConversationList>('GET', '/chat')).data;
  }

  /** Who the proxy says the visitor is. */
  async visitor(): Promise<VisitorInfo> {
    return (await this._request<VisitorInfo>('GET', '/visitor')).data;
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
    // A field the site knows (a signed-in visitor's) is left out: the proxy fills it in.
    const body = { name: customer.name || undefined, email: customer.email || undefined, note: customer.note || undefined };
    return (await this._request<EscalationResult>('POST', `/chat/${encodeURIComponent(id)}/escalate`, { body, signal })).data;
  }

  /** Rates the answer at `message_index` (an index into the conversation's messages); a later rating replaces it. */
  async feedback(id: string, body: { rating: 'up' | 'down'; message_index: number; comment?: string }): Promise<void> {
    await this._request('POST', `/chat/${encodeURIComponent(id)}/feedback`, { body });
  }
}
