/** @module The widget's events: one prefix, typed details, bubbling and composed. */
import type { ErrorCode, Message, Source } from '../protocol/index.js';
import { ApiError, NetworkError, TimeoutError, type SearchResult } from './client.js';
import type { Strings } from './strings.js';

export interface SupportChatErrorDetail {
  code: ErrorCode | 'network_error' | 'timeout';
  message: string;
  retryable: boolean;
  status: number | null;
}

export interface SupportChatEventMap {
  'support-chat-open': CustomEvent<Record<string, never>>;
  'support-chat-close': CustomEvent<Record<string, never>>;
  'support-chat-send': CustomEvent<{ message: string; conversationId: string | null }>;
  'support-chat-answer': CustomEvent<{ conversationId: string; message: Message }>;
  'support-chat-source-click': CustomEvent<{ source: Source }>;
  'support-chat-escalate': CustomEvent<{ conversationId: string; ticketId: string | null; ticketUrl: string | null }>;
  'support-chat-error': CustomEvent<SupportChatErrorDetail>;
  'support-chat-feedback': CustomEvent<{ conversationId: string; messageIndex: number; rating: 'up' | 'down'; comment: string | null }>;
  /** Results arrived for what the visitor typed in the search field. */
  'support-chat-search': CustomEvent<{ query: string; results: SearchResult[] }>;
  /** A search result is being opened; cancelable (the page's router may take it). */
  'support-chat-result-click': CustomEvent<{ result: SearchResult; query: string }>;
  /**
   * The widget is about to open a page of this site (a search result, a source link); cancelable:
   * a listener that calls `preventDefault()` (a docs site's router) opens it itself.
   */
  'support-chat-navigate': CustomEvent<{ url: string }>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface GlobalEventHandlersEventMap extends SupportChatEventMap {}
}

/**
 * Before the widget opens `url`: a page of this site fires `support-chat-navigate` on `host`.
 * Whether the widget opens it itself: false when a listener cancelled the event (and took it).
 */
export function navigate(host: EventTarget, url: string): boolean {
  return new URL(url, location.href).origin !== location.origin || host.dispatchEvent(new CustomEvent('support-chat-navigate', { detail: { url }, bubbles: true, composed: true, cancelable: true }));
}

/** The `support-chat-error` detail for any error, with a readable message in the widget's language. */
export function errorDetail(error: unknown, t: Strings): SupportChatErrorDetail {
  if (error instanceof ApiError) {
    const message = error.status === 401 && t.signIn ? t.signIn : error.status === 429 ? t.errorRateLimited : error.status === 400 ? `${t.errorInput} ${error.message}` : error.status >= 500 ? t.errorGeneric : error.message;
    return { code: error.code, message, retryable: error.retryable, status: error.status || null };
  }
  if (error instanceof TimeoutError) return { code: 'timeout', message: t.errorTimeout, retryable: true, status: null };
  if (error instanceof NetworkError) return { code: 'network_error', message: t.errorNetwork, retryable: true, status: null };
  return { code: 'internal_error', message: t.errorGeneric, retryable: true, status: null };
}
