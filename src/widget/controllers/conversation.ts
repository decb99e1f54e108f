/**
 * @module The conversation as a reactive controller: its data (messages, queue, escalation),
 * persistence in localStorage, following other tabs, streaming answers (or polling for them), and
 * sending, driven by one state (`ConversationState`: the phase, and how the answer is followed)
 * that only `_to()` changes. The element renders this state and turns its events into UI.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Conversation, ConversationStatus, Message } from '../../protocol/index.js';
import { ApiError, NetworkError, newKey, pageContext, ProxyClient, type TimeoutError } from '../client.js';
import { ConversationPoller } from '../poller.js';
import { AnswerStream } from './stream.js';
import { clear, load, loadQueue, save, saveQueue, storageKey, type Outgoing, type Rating, type SavedState } from '../storage.js';

export type Escalation = SavedState['escalation'];

/** How an answer is followed: its event stream, or polls (when there is no stream). */
export type Following = 'stream' | 'poll';

/**
 * Where the conversation stands; every change goes through `_to()`:
 *
 *   idle ──send──▶ sending ──accepted──▶ waiting ──answer done (stream, poll or other tab)──▶ idle
 *     ▲               │                     ▲
 *     └────failed─────┘          reload or other tab with an answer processing
 *
 * - `idle`: nothing on its way; `status` is how the last answer ended ('idle' before any), and
 *   `following` is set while a conversation is read (continued from the list, or resumed).
 * - `sending`: a message is going out.
 * - `waiting`: its answer is being written, followed by stream or poll; `following` is null once
 *   following stopped (a timeout or an error: `resume()` follows again).
 *
 * Entering `idle` from `waiting` is the one place where a queued message goes out (and `settled`
 * waiters are freed once the element has rendered it); `flush()` (the browser came back online)
 * asks the same question. A message that failed to send leaves the queue alone.
 */
export type ConversationState =
  | { readonly phase: 'idle'; readonly status: 'idle' | 'completed' | 'failed'; readonly following: Following | null }
  | { readonly phase: 'sending' }
  | { readonly phase: 'waiting'; readonly following: Following | null };

const IDLE: ConversationState = { phase: 'idle', status: 'idle', following: null };

export interface ConversationOptions {
  endpoint: string;
  storageKey: string;
  noPersist: boolean;
  pollTimeout: number;
  /** Whether the browser is online now (messages wait while it is not). */
  online: boolean;
  /** Whether the panel is open, stored so a reload keeps it open. */
  open: boolean;
  /** Renders whole Markdown blocks of an answer being streamed, as answers are rendered. */
  markdown(source: string): unknown;
  /** The scrolling message list. */
  list(): HTMLElement | null;
}

export interface ConversationEvents {
  /** A message goes out. */
  sent(message: string, conversationId: string | null): void;
  /** The proxy accepted a message. */
  accepted(message: string): void;
  /** A message could not be sent (not for being offline: it is queued then). `retry` sends it again. */
  sendFailed(error: unknown, message: string): void;
  /** A poll brought news; `answer` is the answer that just completed, if any; `failed` if the answer failed. */
  updated(conversation: Conversation, answer: Message | null, failed: boolean): void;
  /** Polling stopped on an error (timeout or a final error). */
  pollFailed(error: ApiError | NetworkError | TimeoutError): void;
  /** A stored state was loaded (this tab's reload, or another tab's change). */
  restored(saved: SavedState): void;
}

export class ConversationController implements ReactiveController {
  messages: Message[] = [];
  conversationId: string | null = null;
  escalation: Escalation = null;
  /** Messages from this index on were sent after the conversation went to the team. */
  escalatedFrom: number | null = null;
  /**
   * Messages asked while an answer was on its way (or while offline), sent in order once they can be.
   * Kept for this tab across reloads, each with its key (see `loadQueue`).
   */
  queue: Outgoing[] = [];
  /** The visitor's rating of each answer, by message index; stored with the conversation. */
  ratings: Record<number, Rating> = {};

  private readonly _host: ReactiveControllerHost;
  private readonly _options: () => ConversationOptions;
  private readonly _events: ConversationEvents;
  /** The one state of the machine (see `ConversationState`); only `_to()` writes it. */
  private _state: ConversationState = IDLE;

  private _client: ProxyClient | null = null;
  /** A stored state is being loaded: storing it again meanwhile would echo it to the other tabs. */
  private _restoring = false;
  private _waiters: (() => void)[] = [];
  /** The last message that failed to send: asked again ("Try again", or the same text sent), it keeps its key. */
  private _failed: Outgoing | null = null;

  private readonly _onStorage = (event: StorageEvent) => {
    if (event.key === this._key && !this._options().noPersist) this.restore(true);
  };

  private readonly _poller: ConversationPoller;
  /** The answer as it is written; polling takes over when there is no stream. */
  readonly stream: AnswerStream;

  constructor(host: ReactiveControllerHost, options: () => ConversationOptions, events: ConversationEvents) {
    this._host = host;
    this._options = options;
    this._events = events;
    host.addController(this);
    this._poller = new ConversationPoller(
      host,
      () => this.client,
      {
        onUpdate: (c) => this._apply(c),
        onError: (e) => {
          this._following(null);
          events.pollFailed(e);
        },
        onTransient: () => undefined,
      },
      () => ({ timeoutMs: options().pollTimeout }),
    );
    this.stream = new AnswerStream(
      host,
      () => this.client,
      { onConversation: (c) => this._apply(c), onUnavailable: (id) => this._poll(id) },
      (source) => options().markdown(source),
      () => options().list(),
    );
  }

  /** Follows the answer of conversation `id`: streamed when the proxy can, else polled. */
  private _watch(id: string): void {
    this._poller.stop();
    const following: Following = this.stream.start(id) ? 'stream' : 'poll';
    if (following === 'poll') this._poller.start(id);
    const state = this._state;
    this._to(state.phase === 'idle' ? { ...state, following } : { phase: 'waiting', following });
  }

  /** The stream of `id` gave way: its answer is polled for. */
  private _poll(id: string): void {
    this._poller.start(id);
    this._following('poll');
  }

  /** How the answer is followed now (null: no longer), in whatever phase the conversation is. */
  private _following(following: Following | null): void {
    const state = this._state;
    if (state.phase !== 'sending') this._to({ ...state, following });
  }

  private _unwatch(): void {
    this._poller.stop();
    this.stream.stop();
  }

  /** The proxy client for the current endpoint. */
  get client(): ProxyClient {
    const { endpoint } = this._options();
    if (!this._client || this._client.endpoint !== endpoint) this._client = new ProxyClient(endpoint);
    return this._client;
  }

  private get _key(): string {
    const o = this._options();
    return storageKey(o.storageKey, o.endpoint);
  }

  /** Where the conversation stands (read-only; see `ConversationState`). */
  get state(): ConversationState {
    return this._state;
  }

  /** The conversation's status as the API names it: 'processing' while a message is sent or answered. */
  get status(): ConversationStatus | 'idle' {
    return this._state.phase === 'idle' ? this._state.status : 'processing';
  }

  /** A message is being sent. */
  get sending(): boolean {
    return this._state.phase === 'sending';
  }

  /** A message is being sent or its answer is on its way. */
  get busy(): boolean {
    return this._state.phase !== 'idle';
  }

  /**
   * The one writer of the state, and what a change sets off: the streams and polls of an answer
   * no longer followed stop; the next queued message goes out once an answer is done (after the
   * current event has been handled).
   */
  private _to(next: ConversationState): void {
    const from = this._state;
    this._state = next;
    this._host.requestUpdate();
    if (from.phase !== 'sending' && from.following !== null && (next.phase === 'sending' || next.following === null)) this._unwatch();
    if (next.phase === 'idle' && from.phase !== 'sending') queueMicrotask(() => this.flush());
  }

  /** The state that the conversation's status calls for, unless a message is being sent. */
  private _follow(status: ConversationStatus | 'idle'): void {
    const state = this._state;
    if (state.phase === 'sending') return;
    if (status !== 'processing') this._to({ phase: 'idle', status, following: null });
    else if (state.phase !== 'waiting') this._to({ phase: 'waiting', following: state.following });
  }

  hostConnected(): void {
    window.addEventListener('storage', this._onStorage);
  }

  hostDisconnected(): void {
    window.removeEventListener('storage', this._onStorage);
  }

  hostUpdated(): void {
    if (this._waiters.length && !this.busy) for (const resolve of this._waiters.splice(0)) resolve();
  }

  /**
   * Sends `message` now, or queues it (visibly) while an answer is on its way or the browser is
   * offline. Never loses it. `selection` (text the visitor selected on the page) goes with it.
   */
  ask(message: string, selection?: string): void {
    const outgoing = this._outgoing(message, selection);
    if (this.busy || !this._options().online || this.queue.length) {
      this.queue = [...this.queue, outgoing];
      // Added to the stored queue, which still has a message being sent from it until the proxy has that one.
      if (!this._options().noPersist) saveQueue(this._key, [...loadQueue(this._key), outgoing]);
      this._host.requestUpdate();
      this.flush();
      return;
    }
    void this._send(outgoing);
  }

  /** A new message, with its key and page; the one that failed when it is asked again, with its own. */
  private _outgoing(text: string, selection?: string): Outgoing {
    const failed = this._failed;
    this._failed = null;
    return failed?.text === text ? failed : { text, key: newKey(), context: pageContext(selection) };
  }

  /** Sends `message` (with the page `selection`, if any) at once; resolves when the proxy has accepted it (or it failed). */
  send(message: string, selection?: string): Promise<void> {
    return this._send(this._outgoing(message, selection));
  }

  private async _send(outgoing: Outgoing): Promise<void> {
    const { text: message, key, context } = outgoing;
    const previous = { messages: this.messages, state: this._state };
    this.messages = [...this.messages, { role: 'user', content: message, sources: [] }];
    this._to({ phase: 'sending' });
    this._events.sent(message, this.conversationId);
    try {
      let result;
      try {
        result = await this.client.send(message, this.conversationId ?? undefined, key, context);
      } catch (error) {
        // The proxy no longer knows this conversation (another browser, cleared cookies): start anew.
        if (error instanceof ApiError && error.status === 404 && this.conversationId) {
          this._forget();
          this.messages = [{ role: 'user', content: message, sources: [] }];
          result = await this.client.send(message, undefined, key, context);
        } else throw error;
      }
      if (result.conversation_id !== this.conversationId) this._forget();
      this.conversationId = result.conversation_id;
      this._to({ phase: 'waiting', following: null });
      this.persist();
      if (!this._options().noPersist) saveQueue(this._key, this.queue);
      this._watch(result.conversation_id);
      this._events.accepted(message);
    } catch (error) {
      this.messages = previous.messages;
      // Back where it was; a failed message is not sent again by itself (the visitor retries it).
      this._to(previous.state.phase === 'idle' ? { ...previous.state, following: null } : IDLE);
      // Offline: the message goes out when the browser is back (after a reload too), with its key.
      if (error instanceof NetworkError && !navigator.onLine) {
        this.queue = [outgoing, ...this.queue];
        const stored = this._options().noPersist ? null : loadQueue(this._key);
        if (stored && !stored.some((q) => q.key === key)) saveQueue(this._key, [outgoing, ...stored]);
      } else {
        this._failed = outgoing;
        this._events.sendFailed(error, message);
      }
    }
  }

  /** Sends the next queued message if nothing is on its way and the browser is online. */
  flush(): void {
    if (this.busy || !this._options().online || !this.queue.length) return;
    const [next, ...rest] = this.queue;
    this.queue = rest;
    void this._send(next!);
  }

  private _forget(): void {
    this.conversationId = null;
    this.escalation = null;
    this.escalatedFrom = null;
    this.ratings = {};
  }

  /** Rates the answer at `index` (replacing an earlier rating of it) and stores the choice once the proxy has it. */
  async rate(index: number, rating: Rating['rating'], comment?: string): Promise<void> {
    if (!this.conversationId) return;
    // An empty comment is left out (JSON drops undefined).
    await this.client.feedback(this.conversationId, { rating, message_index: index, comment: comment || undefined });
    this.ratings = { ...this.ratings, [index]: { rating, comment: comment || undefined } };
    this.persist();
    this._host.requestUpdate();
  }

  /** Follows the answer again after a timeout or an error. */
  resume(): void {
    if (this.conversationId) this._watch(this.conversationId);
  }

  /** Forgets the conversation (and its stored copy). */
  reset(): void {
    this._unwatch();
    this.messages = [];
    this.queue = [];
    this._failed = null;
    this._forget();
    if (!this._options().noPersist) clear(this._key);
    this._to(IDLE);
  }

  /** Resolves once no message is being sent and no answer is on its way (or `signal` aborts). */
  settled(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (!this.busy) return resolve();
      this._waiters.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** The conversation went to the team: later messages reach the ticket too. */
  escalated(escalation: NonNullable<Escalation>): void {
    this.escalation = escalation;
    this.escalatedFrom = this.messages.length;
    this.persist();
    this._host.requestUpdate();
  }

  private _apply(conversation: Conversation): void {
    const wasProcessing = this.status === 'processing';
    const before = this.messages.filter((m) => m.role === 'assistant').length;
    this.messages = conversation.messages;
    const answers = conversation.messages.filter((m) => m.role === 'assistant');
    const answer = conversation.status === 'completed' && wasProcessing && answers.length > before ? answers[answers.length - 1]! : null;
    this._follow(conversation.status);
    this.persist();
    this._events.updated(conversation, answer, conversation.status === 'failed' && wasProcessing);
  }

  /**
   * Loads the stored conversation, resumes an answer still processing when the page was left, and
   * (unless the change came from `otherTab`) this tab's pending messages, sent once they can be.
   */
  restore(otherTab = false): void {
    const o = this._options();
    if (o.noPersist || !o.endpoint) return;
    if (!otherTab) {
      // After a reload; messages already waiting in this page (the endpoint or key changed) stay.
      if (!this.queue.length) this.queue = loadQueue(this._key);
      queueMicrotask(() => this.flush());
    }
    const saved = load(this._key);
    if (!saved) return;
    this._restoring = true;
    this.messages = saved.messages;
    this.conversationId = saved.conversationId;
    this.escalation = saved.escalation;
    this.escalatedFrom = saved.escalatedFrom ?? null;
    this.ratings = saved.ratings ?? {};
    this._events.restored(saved);
    this._restoring = false;
    // Another tab has the answer: this one's stream or polls of it stop (`_to`, on leaving `waiting`).
    this._follow(saved.status);
    const state = this._state;
    if (saved.conversationId && state.phase === 'waiting' && state.following === null) this._watch(saved.conversationId);
  }

  /** Stores the conversation (unless `no-persist`). */
  persist(): void {
    const o = this._options();
    if (o.noPersist || !o.endpoint || this._restoring) return;
    save(this._key, { conversationId: this.conversationId, status: this.status, messages: this.messages, escalation: this.escalation, escalatedFrom: this.escalatedFrom, ratings: this.ratings, open: o.open });
  }
}
