/**
 * @module One client's `text/event-stream` of a conversation's turn: the turn's events after the
 * one the client has, as they are written, then one terminal event (`completed` or `failed`, with
 * the conversation as `GET /v0/chat/{id}` returns it), and the end. A comment keeps the connection
 * alive while nothing else is sent.
 *
 * Event IDs are `<turn>-<seq>`: the turn (the conversation's n-th user message) and the event's
 * place in it. Resuming after an ID of the current turn sends what follows it; an ID of another
 * turn, or one past the turn's end, starts the current turn from its first event.
 */
import type { ConversationRecord, ConversationStore } from '../store/conversations.js';
import { turnKey, type TurnStreams } from './index.js';
import type { TurnEvent } from './log.js';

/** Events read from the log at once. */
const READ_BATCH = 500;

/** A position in a conversation's events: the turn, and the last event of it the client has (0: none). */
export interface EventPosition {
  turn: number;
  seq: number;
}

/**
 * The `Last-Event-ID` (header, else the `last_event_id` query parameter) as a position; undefined
 * when absent; null when malformed (answered 400).
 */
export function parseLastEventId(value: string | null): EventPosition | null | undefined {
  if (value === null) return undefined;
  const dash = value.indexOf('-');
  const turn = value.slice(0, dash);
  const seq = value.slice(dash + 1);
  if (dash < 1 || !isCount(turn) || !isCount(seq)) return null;
  return { turn: Number(turn), seq: Number(seq) };
}

/** 1 to 6 digits, no leading zero. */
function isCount(text: string): boolean {
  if (text.length === 0 || text.length > 6 || text[0] === '0') return false;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 48 || text.charCodeAt(i) > 57) return false;
  return true;
}

export interface EventStreamOptions {
  streams: TurnStreams;
  conversations: ConversationStore;
  /** Tells when a conversation's turn settles (the conversations' lifecycle does). */
  lifecycle: { onSettled(conversationId: string, listener: () => void): () => void };
  orgId: string;
  conversation: ConversationRecord;
  /** The conversation's current turn. */
  turn: number;
  /** The last event the client has, of `turn`; 0 for none. */
  after: number;
  /** Aborted when the client leaves or the server closes. */
  signal: AbortSignal;
}

/** One SSE event as text. `data` is JSON (one line). */
function frame(id: string, event: string, data: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
}

/** The SSE event of a stored turn event. */
function toFrame(turn: number, event: TurnEvent): string {
  return frame(`${turn}-${event.seq}`, event.type, event.data);
}

/**
 * The stream's text, chunk by chunk; it ends after the terminal event, when the conversation is
 * deleted, or when `signal` aborts. Generation never waits on it: the worker writes the log
 * whether anyone reads it.
 */
export async function* eventStream(options: EventStreamOptions): AsyncGenerator<string, void, undefined> {
  const { streams, conversations, lifecycle, orgId, turn, signal } = options;
  const { keepaliveMs } = streams;
  // Spread over ±50%: streams opened together do not all re-read at the same moment.
  const recheckMs = streams.recheckMs * (0.5 + Math.random());
  const key = turnKey(options.conversation.id, turn);
  let after = options.after;
  let record: ConversationRecord | null = options.conversation;

  // Woken by the log's hints, the conversation settling, the client leaving, or a timer.
  let poked = true;
  let wake: (() => void) | undefined;
  const poke = () => {
    poked = true;
    wake?.();
  };
  const unwatch = streams.watch(key, poke);
  const unsettled = lifecycle.onSettled(options.conversation.id, () => {
    recheck = true;
    poke();
  });
  signal.addEventListener('abort', poke);
  let recheck = false;
  let lastWrite = Date.now();
  let lastCheck = Date.now();
  try {
    // The first byte at once: a client (or a proxy) knows the stream is open before the first event.
    yield ': stream\n\n';
    // An id past the turn's last event and the terminal one after it (`1-999999`) is not one this
    // stream sent: the turn starts over, so every id sent is one the server takes back.
    if (after > 0 && after > (await lastSeq(streams, key, after)) + 1) after = 0;
    for (;;) {
      if (signal.aborted) return;
      if (poked) {
        poked = false;
        let events: TurnEvent[] = [];
        try {
          events = await streams.log.read(key, after, READ_BATCH);
        } catch (error) {
          streams.report(key, error);
        }
        if (events.length === READ_BATCH) poked = true;
        let chunk = '';
        let ended: TurnEvent | undefined;
        for (const event of events) {
          if (event.type === 'end') {
            ended = event;
            break;
          }
          chunk += toFrame(turn, event);
          after = event.seq;
        }
        if (chunk) {
          lastWrite = Date.now();
          yield chunk;
        }
        if (ended || recheck || record.status !== 'processing') {
          recheck = false;
          lastCheck = Date.now();
          record = await conversations.get(orgId, record.id);
          // Deleted (a data-subject request): nothing more to send.
          if (!record) return;
          if (record.status !== 'processing') {
            // The turn's end in the log names the terminal event; without it (the log expired, the
            // job failed outside a worker), the terminal event follows the last one the client has.
            let seq = ended?.seq;
            if (seq === undefined) {
              if ((await lastSeq(streams, key)) > after) {
                // Events written after the read above (the turn settled in between): sent first.
                poked = true;
                recheck = true;
                continue;
              }
              seq = after + 1;
            }
            yield frame(`${turn}-${seq}`, record.status === 'failed' ? 'failed' : 'completed', await conversations.toWireJson(record));
            return;
          }
        }
        continue;
      }
      const now = Date.now();
      if (now - lastWrite >= keepaliveMs) {
        lastWrite = now;
        yield ': keepalive\n\n';
        continue;
      }
      if (now - lastCheck >= recheckMs) {
        lastCheck = now;
        recheck = true;
        poked = true;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(keepaliveMs - (now - lastWrite), recheckMs - (now - lastCheck)));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    unwatch();
    unsettled();
    signal.removeEventListener('abort', poke);
  }
}

/** The sequence number of the turn's last event; `unknown` when the log cannot be read. */
async function lastSeq(streams: TurnStreams, key: string, unknown = 0): Promise<number> {
  try {
    return await streams.log.last(key);
  } catch {
    return unknown;
  }
}

/** The SSE response's headers: no caching, no transformation, no buffering by a proxy in front. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});
