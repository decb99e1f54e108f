/** @module The widget's events: one prefix, typed details, bubbling and composed. */
import type { ErrorCode, Message, Source } from '../protocol/index.js';

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
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface GlobalEventHandlersEventMap extends SupportChatEventMap {}
}
