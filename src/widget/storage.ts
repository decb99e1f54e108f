/**
 * @module The conversation kept in localStorage per `storage-key` and endpoint, bounded, shared between
 * tabs, with the tag of the visitor it belongs to; the messages waiting to be sent kept in
 * sessionStorage, for the tab that will send them.
 */
import type { ConversationStatus, Message } from '../protocol/index.js';
import type { PageContext } from './client.js';

/**
 * A message as the visitor asked it: its text, its key (made once, sent with every attempt, so a
 * resend is the same turn) and the page it was asked from (so every attempt has the same body).
 */
export interface Outgoing {
  text: string;
  key: string;
  context?: PageContext;
}

/** A visitor's rating of one answer, with the optional comment of a "down". */
export interface Rating {
  rating: 'up' | 'down';
  comment?: string;
}

/** A ticket the conversation went to. */
export interface Ticket {
  ticketId: string;
  ticketUrl: string;
  /** The integration answers the visitor by email (a helpdesk such as Plain or Pylon; a webhook or an issue tracker does not). */
  byEmail?: boolean;
}

export interface SavedState {
  conversationId: string | null;
  status: ConversationStatus | 'idle';
  messages: Message[];
  escalation: Ticket | 'already' | null;
  /** Messages from this index on were sent after escalating (and reached the ticket). */
  escalatedFrom?: number | null;
  /** The visitor's rating of answers, by message index. */
  ratings?: Record<number, Rating>;
  /** The panel was open (launcher mode), so a reload keeps it open. */
  open?: boolean;
}

const MAX_MESSAGES = 50;
const MAX_BYTES = 100_000;

export function storageKey(key: string, endpoint: string): string {
  return `support-chat:${key || 'default'}:${endpoint}`;
}

function store(session = false): Storage | null {
  try {
    return (session ? globalThis.sessionStorage : globalThis.localStorage) ?? null;
  } catch {
    return null;
  }
}

export function load(key: string): SavedState | null {
  try {
    const raw = store()?.getItem(key);
    if (!raw) return null;
    const data = JSON.parse(raw) as Partial<SavedState>;
    if (!Array.isArray(data.messages)) return null;
    const messages = data.messages.filter(
      (m): m is Message => !!m && (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && Array.isArray(m.sources),
    );
    return {
      conversationId: typeof data.conversationId === 'string' ? data.conversationId : null,
      status: data.status ?? 'idle',
      messages,
      escalation: data.escalation ?? null,
      escalatedFrom: typeof data.escalatedFrom === 'number' ? data.escalatedFrom : null,
      ratings: data.ratings && typeof data.ratings === 'object' ? data.ratings : {},
      open: data.open === true,
    };
  } catch {
    return null;
  }
}

/** Saves the newest messages that fit; storage errors (quota, private mode) are ignored. */
export function save(key: string, state: SavedState): void {
  const s = store();
  if (!s) return;
  let messages = state.messages.slice(-MAX_MESSAGES);
  let raw = JSON.stringify({ ...state, messages });
  while (raw.length > MAX_BYTES && messages.length > 1) {
    messages = messages.slice(Math.ceil(messages.length / 4));
    raw = JSON.stringify({ ...state, messages });
  }
  try {
    s.setItem(key, raw);
  } catch {
    try {
      s.removeItem(key);
    } catch {
      // Nothing more to do: the conversation lives in memory for this page.
    }
  }
}

export function clear(key: string): void {
  try {
    store()?.removeItem(key);
    store(true)?.removeItem(key);
  } catch {
    // Ignored, as in save().
  }
}

/**
 * This tab's messages waiting to be sent. A reload (or the next page in this tab) keeps them, each
 * with its key and page; another tab, which cannot know when this one sends them, never sees
 * them, so none is sent twice.
 */
export function loadQueue(key: string): Outgoing[] {
  try {
    const queue: unknown = JSON.parse(store(true)?.getItem(key) ?? '[]');
    return Array.isArray(queue) ? queue.filter((q: Partial<Outgoing> | null) => typeof q?.text === 'string' && typeof q.key === 'string') : [];
  } catch {
    return [];
  }
}

export function saveQueue(key: string, queue: Outgoing[]): void {
  try {
    if (queue.length) store(true)?.setItem(key, JSON.stringify(queue));
    else store(true)?.removeItem(key);
  } catch {
    // Ignored, as in save(): the queue lives in memory for this page.
  }
}

/** The tag of the signed-in visitor the stored conversation belongs to ('' anonymous, or nothing stored). */
export function loadVisitorTag(key: string): string {
  try {
    return store()?.getItem(`${key}:visitor`) ?? '';
  } catch {
    return '';
  }
}

export function saveVisitorTag(key: string, tag: string): void {
  try {
    if (tag) store()?.setItem(`${key}:visitor`, tag);
    else store()?.removeItem(`${key}:visitor`);
  } catch {
    // Ignored, as in save(): the tag lives in memory for this page.
  }
}
