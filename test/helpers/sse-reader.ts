/**
 * @module Reading a `text/event-stream` over real HTTP in tests, parsed by eventsource-parser: the
 * events and comments as they arrive, when each arrived, and a way to leave mid-stream.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent extends EventSourceMessage {
  /** performance.now() when it was parsed. */
  at: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body as text, for a response that is not a stream (an error). */
  text: string;
  events: SseEvent[];
  comments: { text: string; at: number }[];
  /** Resolves with the first event (from the start) that `match` accepts, once it has arrived. */
  until(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream (or the client left). */
  ended: Promise<void>;
  /** Leaves: the connection is closed. */
  close(): void;
}

/** GET `url` as an event stream. */
export async function openEvents(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: SseStream['comments'] = [];
  let notify: () => void = () => undefined;
  const stream: SseStream = {
    status: response.status,
    headers: response.headers,
    text: '',
    events,
    comments,
    until(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.event))}`)), timeoutMs);
        const check = () => {
          const found = events.find(match);
          if (found) {
            clearTimeout(timer);
            resolve(found);
            return true;
          }
          return false;
        };
        if (check()) return;
        const previous = notify;
        notify = () => {
          previous();
          check();
        };
      });
    },
    ended: Promise.resolve(),
    close: () => controller.abort(),
  };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.text = await response.text();
    return stream;
  }
  const parser = createParser({
    onEvent(event) {
      events.push({ ...event, at: performance.now() });
      notify();
    },
    onComment(comment) {
      comments.push({ text: comment, at: performance.now() });
    },
  });
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return stream;
}

/** The text of a stream's delta events, joined. */
export function joinedDeltas(events: readonly EventSourceMessage[]): string {
  return events
    .filter((e) => e.event === 'delta')
    .map((e) => (JSON.parse(e.data) as { text: string }).text)
    .join('');
}
