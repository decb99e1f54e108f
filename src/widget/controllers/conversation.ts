/**
 * @module The conversation as a reactive controller: its state (messages, status, queue,
 * escalation), persistence in localStorage, following other tabs, polling for answers, and sending
 * (a `@lit/task`). The element renders this state and turns its events into UI.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { Task, TaskStatus } from '@lit/task';
import type { Conversation, ConversationStatus, Message } from '../../protocol/index.js';
import { ApiError, NetworkError, ProxyClient, type TimeoutError } from '../client.js';
import { ConversationPoller } from '../poller.js';
import { clear, load, save, storageKey, type SavedState } from '../storage.js';

export type Escalation = SavedState['escalation'];

export interface ConversationOptions {
  endpoint: string;
  storageKey: string;
  noPersist: boolean;
  pollTimeout: number;
  /** Whether the browser is online now (messages wait while it is not). */
  online: boolean;
  /** Whether the panel is open, stored so a reload keeps it open. */
  open: boolean;
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
  status: ConversationStatus | 'idle' = 'idle';
  escalation: Escalation = null;
  /** Messages from this index on were sent after the conversation went to the team. */
  escalatedFrom: number | null = null;
  /** Messages asked while an answer was on its way (or while offline), sent in order once they can be. */
  queue: string[] = [];

  readonly #host: ReactiveControllerHost;
  readonly #options: () => ConversationOptions;
  readonly #events: ConversationEvents;
  #client: ProxyClient | null = null;
  #restoring = false;
  #waiters: (() => void)[] = [];

  readonly #onStorage = (event: StorageEvent) => {
    if (event.key === this.#key && !this.#options().noPersist) this.restore();
  };

  readonly #poller: ConversationPoller;

  /** Sending one message: a task, so its state (pending) is the element's `sending`. */
  readonly #sending: Task<readonly [string], void>;

  constructor(host: ReactiveControllerHost, options: () => ConversationOptions, events: ConversationEvents) {
    this.#host = host;
    this.#options = options;
    this.#events = events;
    host.addController(this);
    this.#poller = new ConversationPoller(
      host,
      () => this.client,
      { onUpdate: (c) => this.#apply(c), onError: (e) => events.pollFailed(e), onTransient: () => undefined },
      () => ({ timeoutMs: options().pollTimeout }),
    );
    this.#sending = new Task(host, { autoRun: false, task: ([message]: readonly [string]) => this.#send(message) });
  }

  /** The proxy client for the current endpoint. */
  get client(): ProxyClient {
    const { endpoint } = this.#options();
    if (!this.#client || this.#client.endpoint !== endpoint) this.#client = new ProxyClient(endpoint);
    return this.#client;
  }

  get #key(): string {
    const o = this.#options();
    return storageKey(o.storageKey, o.endpoint);
  }

  /** A message is being sent. */
  get sending(): boolean {
    return this.#sending.status === TaskStatus.PENDING;
  }

  /** A message is being sent or its answer is on its way. */
  get busy(): boolean {
    return this.sending || this.status === 'processing';
  }

  hostConnected(): void {
    window.addEventListener('storage', this.#onStorage);
  }

  hostDisconnected(): void {
    window.removeEventListener('storage', this.#onStorage);
  }

  hostUpdated(): void {
    if (this.#waiters.length && !this.busy) for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Sends `message` now, or queues it (visibly) while an answer is on its way or the browser is offline. Never loses it. */
  ask(message: string): void {
    if (this.busy || !this.#options().online || this.queue.length) {
      this.queue = [...this.queue, message];
      this.#host.requestUpdate();
      this.flush();
      return;
    }
    void this.send(message);
  }

  /** Sends `message` at once; resolves when the proxy has accepted it (or it failed). */
  async send(message: string): Promise<void> {
    await this.#sending.run([message]);
  }

  /** Sends the next queued message once no answer is on its way and the browser is online. */
  flush(): void {
    if (this.busy || !this.#options().online || !this.queue.length) return;
    const [next, ...rest] = this.queue;
    this.queue = rest;
    void this.send(next!);
  }

  async #send(message: string): Promise<void> {
    const previous = { messages: this.messages, status: this.status };
    this.messages = [...this.messages, { role: 'user', content: message, sources: [] }];
    this.status = 'processing';
    this.#events.sent(message, this.conversationId);
    try {
      let result;
      try {
        result = await this.client.send(message, this.conversationId ?? undefined);
      } catch (error) {
        // The proxy no longer knows this conversation (another browser, cleared cookies): start anew.
        if (error instanceof ApiError && error.status === 404 && this.conversationId) {
          this.#forget();
          this.messages = [{ role: 'user', content: message, sources: [] }];
          result = await this.client.send(message, undefined);
        } else throw error;
      }
      if (result.conversation_id !== this.conversationId) this.#forget();
      this.conversationId = result.conversation_id;
      this.persist();
      this.#poller.start(result.conversation_id);
      this.#events.accepted(message);
    } catch (error) {
      this.messages = previous.messages;
      this.status = previous.status;
      // Offline: the message goes out when the browser is back.
      if (error instanceof NetworkError && !navigator.onLine) this.queue = [message, ...this.queue];
      else this.#events.sendFailed(error, message);
    }
  }

  #forget(): void {
    this.conversationId = null;
    this.escalation = null;
    this.escalatedFrom = null;
  }

  /** Polls again after a timeout or an error. */
  resume(): void {
    if (this.conversationId) this.#poller.start(this.conversationId);
  }

  /** Forgets the conversation (and its stored copy). */
  reset(): void {
    this.#poller.stop();
    this.messages = [];
    this.status = 'idle';
    this.queue = [];
    this.#forget();
    if (!this.#options().noPersist) clear(this.#key);
    this.#host.requestUpdate();
  }

  /** Resolves once no message is being sent and no answer is on its way (or `signal` aborts). */
  settled(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (!this.busy) return resolve();
      this.#waiters.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** The conversation went to the team: later messages reach the ticket too. */
  escalated(escalation: NonNullable<Escalation>): void {
    this.escalation = escalation;
    this.escalatedFrom = this.messages.length;
    this.persist();
    this.#host.requestUpdate();
  }

  #apply(conversation: Conversation): void {
    const wasProcessing = this.status === 'processing';
    const before = this.messages.filter((m) => m.role === 'assistant').length;
    this.messages = conversation.messages;
    this.status = conversation.status;
    const answers = conversation.messages.filter((m) => m.role === 'assistant');
    const answer = conversation.status === 'completed' && wasProcessing && answers.length > before ? answers[answers.length - 1]! : null;
    this.persist();
    this.#host.requestUpdate();
    this.#events.updated(conversation, answer, conversation.status === 'failed' && wasProcessing);
    if (conversation.status !== 'processing') queueMicrotask(() => this.flush());
  }

  /** Loads the stored conversation, and resumes an answer still processing when the page was left. */
  restore(): void {
    const o = this.#options();
    if (o.noPersist || !o.endpoint) return;
    const saved = load(this.#key);
    if (!saved) return;
    this.#restoring = true;
    this.messages = saved.messages;
    this.conversationId = saved.conversationId;
    this.status = saved.status;
    this.escalation = saved.escalation;
    this.escalatedFrom = saved.escalatedFrom ?? null;
    this.#events.restored(saved);
    this.#restoring = false;
    this.#host.requestUpdate();
    if (saved.conversationId && saved.status === 'processing' && !this.#poller.running) this.#poller.start(saved.conversationId);
  }

  /** Stores the conversation (unless `no-persist`). */
  persist(): void {
    const o = this.#options();
    if (o.noPersist || !o.endpoint || this.#restoring) return;
    save(this.#key, { conversationId: this.conversationId, status: this.status, messages: this.messages, escalation: this.escalation, escalatedFrom: this.escalatedFrom, open: o.open });
  }
}
