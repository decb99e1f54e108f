/**
 * @module The answer as it is written, as a reactive controller: reads the proxy's event stream
 * (`GET {endpoint}/chat/:id/events`) with fetch and `eventsource-parser` (not EventSource, so the
 * visitor's token and cookie go with it), shows the text in one streaming message of its own, and
 * hands the finished conversation over. The host renders that message once when the text starts and
 * once when it ends; each delta in between is rendered into it alone, so earlier messages are never
 * touched. A dropped connection, or a tab back from the background or back online, resumes after the
 * last event seen (`last_event_id`); a stream that is unavailable, or held back on its way (no byte
 * within `FIRST_BYTE_MS`: a buffering reverse proxy), gives way to polling for good.
 */
import { html, nothing, render, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { Conversation } from '../../protocol/index.js';
import { backoffDelay } from '../../protocol/retry.js';
import type { ProxyClient } from '../client.js';
import { pause } from '../poller.js';
import { loadEventStreamParser } from '../render-markdown.js';
import type { Strings } from '../strings.js';

/** A stream that sends no byte this soon is held back on its way (a buffering proxy): polling takes over, ms. */
export const FIRST_BYTE_MS = 3_000;
/** The server sends a keepalive at least every 15 s: this long with nothing is a dead connection, ms. */
const IDLE_MS = 40_000;
/** Reconnections in a row that bring no event before polling takes over. */
const MAX_FRUITLESS = 4;
/** The follow-the-bottom tolerance, px: within it, the reader is at the bottom. */
const AT_BOTTOM_PX = 48;
/** How a connection ended (numbers, not names: they cost no bytes in the bundle). */
const DONE = 0;
const PROGRESS = 1;
const DROPPED = 2;
const RECONNECT = 3;
const UNAVAILABLE = 4;
/** The stream has nothing more (204: the last event seen was the turn's last): the conversation is read instead. */
const SETTLED = 5;
type Outcome = typeof DONE | typeof PROGRESS | typeof DROPPED | typeof RECONNECT | typeof UNAVAILABLE | typeof SETTLED;

/** Longest event the parser holds (an event carries at most a conversation), characters. */
const MAX_EVENT_CHARS = 4_000_000;

export interface StreamCallbacks {
  /** The terminal event: the whole conversation, completed or failed. */
  onConversation(conversation: Conversation): void;
  /** No stream for this answer: poll for it instead. */
  onUnavailable(id: string): void;
}

/**
 * Where the streamed text can be cut: before it, whole blocks (rendered as Markdown); after it, the
 * paragraph being written (shown as plain text until it ends, so half-written Markdown does not
 * flicker). A blank line outside a code fence ends a block. Scans each character once over the stream.
 */
export class BlockCutter {
  /** End of the text's whole blocks. */
  cut = 0;
  /** Start of the line being written. */
  private _line = 0;
  /** Where the search for its end goes on (what came before holds no line break). */
  private _searched = 0;
  private _fenced = false;
  private _blank = false;

  /** Reads the text up to its last complete line (the text only grows); returns `cut`. */
  feed(text: string): number {
    for (let end = text.indexOf('\n', this._searched); end >= 0; end = text.indexOf('\n', this._searched)) {
      const line = text.slice(this._line, end).trim();
      if (line.startsWith('```') || line.startsWith('~~~')) this._fenced = !this._fenced;
      else if (!line && !this._fenced && !this._blank) this.cut = end + 1;
      this._blank = !line;
      this._line = this._searched = end + 1;
    }
    this._searched = text.length;
    return this.cut;
  }
}

export class AnswerStream implements ReactiveController {
  /** The answer written so far ('' before its first delta). */
  text = '';
  /** The stream was unavailable or held back: this page polls from now on. */
  unavailable = false;
  /** A stream has brought events on this page: a later slow start is a bad connection, not a buffering proxy. */
  private _proven = false;

  private _lastEventId: string | undefined;
  private _run: AbortController | undefined;
  /** The current connection: aborted to reconnect (`reconnect`) or because no byte came (`held`). */
  private _connection: AbortController | undefined;
  private _cutter = new BlockCutter();
  private _blocks: { source: string; view: unknown } = { source: '', view: nothing };
  private readonly _reconnect = () => {
    if (!document.hidden && navigator.onLine) this._connection?.abort('reconnect');
  };

  /**
   * `markdown` renders whole blocks of the answer as the element renders answers; `list` is the
   * scrolling message list; `content` the streaming message's content element, once rendered.
   */
  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _client: () => ProxyClient,
    private readonly _callbacks: StreamCallbacks,
    private readonly _markdown: (source: string) => unknown,
    private readonly _list: () => HTMLElement | null,
  ) {
    _host.addController(this);
  }

  hostConnected(): void {
    document.addEventListener('visibilitychange', this._reconnect);
    window.addEventListener('online', this._reconnect);
  }

  hostDisconnected(): void {
    this.stop();
    document.removeEventListener('visibilitychange', this._reconnect);
    window.removeEventListener('online', this._reconnect);
  }

  hostUpdated(): void {
    // The streaming message was just rendered (or rendered again): its text goes in.
    if (this.text) this._paint();
  }

  /** Streams the answer of conversation `id` (replacing any stream); false when this page polls instead. */
  start(id: string): boolean {
    this.stop();
    if (this.unavailable || typeof ReadableStream === 'undefined') return false;
    const run = new AbortController();
    this._run = run;
    void this._loop(id, run.signal).finally(() => {
      if (this._run === run) this._run = undefined;
    });
    return true;
  }

  /** Stops streaming and forgets the text (the host renders the conversation without it). */
  stop(): void {
    this._run?.abort();
    this._run = undefined;
    this._lastEventId = undefined;
    this._cutter = new BlockCutter();
    this._blocks = { source: '', view: nothing };
    if (this.text) {
      this.text = '';
      this._host.requestUpdate();
    }
  }

  /** The streaming message, once its text has begun; null before (the host shows "working" then). */
  render(t: Strings): TemplateResult | null {
    if (!this.text) return null;
    // The content is rendered by `_paint`, never by the host: the host's renders leave it alone.
    return html`<article class="message streaming" part="message" data-role="assistant" data-streaming>
      <span class="visually-hidden">${t.assistant}:</span>
      <div class="content" dir="auto"></div>
    </article>`;
  }

  private async _loop(id: string, signal: AbortSignal): Promise<void> {
    let fruitless = 0;
    while (!signal.aborted) {
      const outcome = await this._connect(id, signal);
      if (signal.aborted || outcome === DONE) return;
      if (outcome === UNAVAILABLE || outcome === SETTLED) {
        this.unavailable ||= outcome === UNAVAILABLE;
        this._run = undefined;
        this._callbacks.onUnavailable(id);
        return;
      }
      if (outcome === RECONNECT) continue;
      // Dropped: again after the last event seen, with backoff while nothing gets through.
      fruitless = outcome === PROGRESS ? 0 : fruitless + 1;
      if (fruitless >= MAX_FRUITLESS) {
        this._run = undefined;
        this._callbacks.onUnavailable(id);
        return;
      }
      await pause(backoffDelay(fruitless, { baseMs: 500, maxMs: 8_000, jitter: 0.2 }), signal);
    }
  }

  /** One connection: read until the terminal event ('done'), or until it drops (with or without news). */
  private async _connect(id: string, signal: AbortSignal): Promise<Outcome> {
    // The parser comes with the on-demand Markdown module; a page that cannot load it polls.
    const createParser = await loadEventStreamParser();
    if (!createParser) return UNAVAILABLE;
    if (signal.aborted) return DONE;
    const connection = new AbortController();
    this._connection = connection;
    const abort = () => connection.abort();
    signal.addEventListener('abort', abort, { once: true });
    let timer = setTimeout(() => connection.abort('held'), FIRST_BYTE_MS);
    let news = false;
    let done = false;
    const parser = createParser({
      maxBufferSize: MAX_EVENT_CHARS,
      onEvent: (event) => {
        if (event.id) this._lastEventId = event.id;
        news = this._proven = true;
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        if (event.event === 'delta') {
          const text = (data as { text?: unknown } | null)?.text;
          if (typeof text === 'string') this._append(text);
        } else if ((event.event === 'completed' || event.event === 'failed') && data && typeof data === 'object') {
          done = true;
          this._callbacks.onConversation(data as Conversation);
          this.stop();
        }
      },
    });
    try {
      const response = await this._client().events(id, this._lastEventId, connection.signal);
      if (response.status === 204) return SETTLED;
      if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        response.body?.cancel().catch(() => undefined);
        // Busy, or a proxy without streams: the answer is polled for. (A 404 is the poll's to report.)
        return response.status >= 500 && response.status !== 501 ? DROPPED : UNAVAILABLE;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done: ended, value } = await reader.read();
        clearTimeout(timer);
        if (ended) break;
        timer = setTimeout(() => connection.abort('reconnect'), IDLE_MS);
        parser.feed(decoder.decode(value, { stream: true }));
        if (done) {
          reader.cancel().catch(() => undefined);
          return DONE;
        }
      }
      return news ? PROGRESS : DROPPED;
    } catch {
      if (signal.aborted) return DONE;
      const reason: unknown = connection.signal.reason;
      if (reason === 'held') return this._proven ? DROPPED : UNAVAILABLE;
      if (reason === 'reconnect') return RECONNECT;
      return news ? PROGRESS : DROPPED;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      if (this._connection === connection) this._connection = undefined;
    }
  }

  private _append(delta: string): void {
    if (!delta) return;
    const first = !this.text;
    this.text += delta;
    // The streaming message appears with the first text (one render of the host); after that, only it changes.
    if (first) this._host.requestUpdate();
    else this._paint();
  }

  /** Renders the text into the streaming message: whole blocks as Markdown, the block being written as plain text. */
  private _paint(): void {
    const list = this._list();
    const article = list?.querySelector<HTMLElement>('[data-streaming]');
    const content = article?.querySelector<HTMLElement>('.content');
    if (!list || !article || !content) return;
    const follow = list.scrollHeight - list.scrollTop - list.clientHeight < AT_BOTTOM_PX;
    const cut = this._cutter.feed(this.text);
    const source = this.text.slice(0, cut);
    if (source !== this._blocks.source) this._blocks = { source, view: source ? this._markdown(source) : nothing };
    const tail = this.text.slice(cut).trim();
    render(html`${this._blocks.view}${tail ? html`<p class="writing">${tail}</p>` : nothing}`, content);
    // Follows the end while the reader is there, but never past the answer's top: it is read from its start.
    if (follow) list.scrollTop = Math.max(list.scrollTop, Math.min(list.scrollHeight - list.clientHeight, article.offsetTop - 8));
  }
}
