/** @module The `<support-chat>` element: launcher or inline panel, answers with sources, escalation to a human. */
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { MESSAGE_MAX_LENGTH, type Message } from '../protocol/index.js';
import { ApiError } from './client.js';
import { errorDetail, type SupportChatErrorDetail } from './events.js';
import { safeUrl } from './markdown.js';
import { ComposerController } from './controllers/composer.js';
import { ConnectivityController } from './controllers/connectivity.js';
import { ScrollController } from './controllers/scroll.js';
import { ConversationController, type Escalation } from './controllers/conversation.js';
import { EscalationController } from './controllers/escalation.js';
import { FeedbackController } from './controllers/feedback.js';
import { MediaQueryController } from './controllers/media-query.js';
import { focusables, trapTab } from './focus.js';
import { asksForHuman } from './intent.js';
import { localeFor, type Strings } from './strings.js';
import { styles } from './support-chat.styles.js';
import { escalationForm, readForm, ticket } from './templates/escalation.js';
import { message } from './templates/message.js';
import { composer, launcher, notices, pending, welcome } from './templates/panel.js';
import { firstSentence } from './announce.js';

type Notice = { detail: SupportChatErrorDetail; retry: (() => void) | null };
type FormErrors = { name?: string; email?: string; note?: string };

let instances = 0;

/** The `starters` attribute: a JSON array of strings; anything else is no starters. */
function parseStarters(value: string | null): string[] {
  try {
    const parsed: unknown = JSON.parse(value ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];
  } catch {
    return [];
  }
}
/** Where the launcher's panel becomes full screen (and modal); the styles use the same width. */
const PHONE = '(max-width: 480px)';


/**
 * An AI support chat that answers from the site's docs and code, shows its sources, and hands the
 * visitor to a human. It talks only to the proxy at `endpoint`.
 *
 * @tag support-chat
 *
 * @event support-chat-open - The panel opened.
 * @event support-chat-close - The panel closed.
 * @event support-chat-send - A message was sent. Detail: `{message, conversationId}`.
 * @event support-chat-answer - An answer completed. Detail: `{conversationId, message}`.
 * @event support-chat-source-click - A source link was followed. Detail: `{source}`.
 * @event support-chat-escalate - The conversation was handed to a human. Detail: `{conversationId, ticketId, ticketUrl}`.
 * @event support-chat-error - Something failed. Detail: `{code, message, retryable, status}`.
 * @event support-chat-feedback - The visitor rated an answer (thumbs up or down, a "down" maybe with a comment). Detail: `{conversationId, messageIndex, rating, comment}`.
 *
 * @csspart launcher - The floating button (launcher mode).
 * @csspart panel - The chat panel.
 * @csspart header - The panel's header.
 * @csspart messages - The message list.
 * @csspart message - One message; `data-role` is `user` or `assistant`.
 * @csspart pending - A message waiting to be sent (also part `message`, with `data-pending`).
 * @csspart starter - A starter question of the empty state.
 * @csspart sources - The sources of an answer.
 * @csspart source - One source link.
 * @csspart composer - The message form.
 * @csspart input - The message field.
 * @csspart send-button - The send button.
 * @csspart counter - The character counter near the limit.
 * @csspart escalation - The "talk to a human" area.
 * @csspart escalation-form - The name and email form.
 * @csspart ticket - The created ticket.
 * @csspart error - An error notice.
 * @csspart offline - The offline notice.
 * @csspart copy-button - The copy button of a code block.
 * @csspart copy-answer - The "Copy answer" action of an answer.
 * @csspart feedback - A thumbs up or down button under an answer (`aria-pressed`, `data-rating`).
 *
 * @cssproperty --support-chat-accent - Accent color (launcher, links, buttons).
 * @cssproperty --support-chat-accent-text - Text on the accent color.
 * @cssproperty --support-chat-background - Panel background.
 * @cssproperty --support-chat-foreground - Text color.
 * @cssproperty --support-chat-muted - Secondary text.
 * @cssproperty --support-chat-border - Borders.
 * @cssproperty --support-chat-font - Font family.
 * @cssproperty --support-chat-radius - Panel corner radius.
 * @cssproperty --support-chat-width - Panel width in launcher mode.
 * @cssproperty --support-chat-height - Panel height in launcher mode.
 * @cssproperty --support-chat-z-index - Stacking of the launcher and panel.
 */
export class SupportChat extends LitElement {
  static override styles = styles;
  // Declared here rather than with decorators: the same reactive properties, a smaller bundle.
  static override properties = {
    endpoint: {},
    mode: { reflect: true },
    theme: { reflect: true },
    lang: { reflect: true },
    heading: {},
    placeholder: {},
    storageKey: { attribute: 'storage-key' },
    noEscalation: { type: Boolean, attribute: 'no-escalation' },
    noPersist: { type: Boolean, attribute: 'no-persist' },
    strings: { attribute: false },
    starters: { converter: { fromAttribute: parseStarters } },
    pollTimeout: { type: Number, attribute: 'poll-timeout' },
    opened: { type: Boolean, reflect: true, attribute: 'open' },
    formOpen: { state: true },
    formErrors: { state: true },
    notice: { state: true },
    announcement: { state: true },
  };

  /** Base URL of the proxy, e.g. `/api/support`. */
  endpoint = '';

  /** `launcher`: a floating button opening a panel; `inline`: fills its container. */
  mode: 'launcher' | 'inline' = 'launcher';

  /** `light`, `dark`, or `auto` (follows the system). */
  theme: 'light' | 'dark' | 'auto' = 'auto';

  /** Language of the built-in text (`en`, `es`, `fr`, `ar`); defaults to the page's. */
  override lang = '';

  /** Panel title; defaults to the language's "Support". */
  heading = '';

  /** Placeholder of the message field. */
  placeholder = '';

  /** Separates stored conversations of several widgets on one site. */
  storageKey = '';

  /** Hides "Talk to a human". */
  noEscalation = false;

  /** Keeps the conversation in memory only (not across reloads or tabs). */
  noPersist = false;

  /** Overrides any built-in text. */
  strings: Partial<Strings> = {};

  /**
   * Up to four questions offered in the empty state, each a button (part `starter`) that asks it.
   * As an attribute, a JSON array: `starters='["How do I reset my password?"]'`.
   */
  starters: string[] = [];

  /** How long to wait for an answer before offering a retry, in ms. */
  pollTimeout = 120_000;

  /** Whether the panel is open (launcher mode), reflected as the `open` attribute; use open(), close(), toggle(). */
  opened = false;

  private formOpen = false;
  private formErrors: FormErrors = {};
  private notice: Notice | null = null;
  private announcement = '';

  private get messagesEl() {
    return this.renderRoot.querySelector<HTMLElement>('.messages');
  }
  private get inputEl() {
    return this.renderRoot.querySelector<HTMLTextAreaElement>('.composer textarea');
  }
  private get launcherEl() {
    return this.renderRoot.querySelector<HTMLButtonElement>('.launcher');
  }

  private readonly _id = `support-chat-${++instances}`;
  /** Focus was inside the widget before this render. */
  private _hadFocus = false;

  private readonly _scroll = new ScrollController(this, () => this.messagesEl);
  private readonly _composer = new ComposerController(
    this,
    () => this.inputEl,
    () => ({ t: this._text, lang: this._locale.code }),
    (text) => void this.ask(text),
  );
  private readonly _net = new ConnectivityController(this, () => this._chat.flush());

  /** The conversation: state, persistence, other tabs, polling, sending. */
  private readonly _chat = new ConversationController(
    this,
    () => ({ endpoint: this.endpoint, storageKey: this.storageKey, noPersist: this.noPersist, pollTimeout: this.pollTimeout, online: this._net.online, open: this.opened }),
    {
      sent: (message, conversationId) => {
        this.notice = null;
        this._scroll.toEnd();
        this._emit('support-chat-send', { message, conversationId });
      },
      // Sent by "Try again" (or from the queue): the text it left in the box has gone out.
      accepted: (message) => {
        if (this._composer.value === message) this._composer.set('');
      },
      sendFailed: (error, message) => {
        if (!this._composer.value) this._composer.set(message);
        this._fail(error, () => void this.ask(message));
      },
      updated: (_conversation, answer, failed) => this._answered(answer, failed),
      pollFailed: (error) => this._fail(error, () => this._resume()),
      restored: (saved) => {
        if (saved.open && this.mode === 'launcher') this.opened = true;
      },
    },
  );
  /** The thumbs under answers; the ratings are stored with the conversation. */
  private readonly _feedback = new FeedbackController(this, this._chat, () => ({ t: this._text, lang: this._locale.code }), {
    rated: (messageIndex, rating, comment) => this._emit('support-chat-feedback', { conversationId: this._chat.conversationId!, messageIndex, rating, comment }),
    failed: (error) => this._fail(error, null),
  });
  /** Phones: the launcher's panel covers the screen, so it is a modal dialog there. */
  private readonly _phone = new MediaQueryController(this, PHONE);

  /** The launcher's panel is open full screen: modal, focus kept inside. */
  private get _modal(): boolean {
    return this.mode === 'launcher' && this.opened && this._phone.matches;
  }

  /** While modal, focus that reaches the page behind (a click, a script) comes back into the panel. */
  private readonly _onFocusIn = (event: FocusEvent) => {
    if (!this._modal || event.composedPath().includes(this)) return;
    const panel = this.renderRoot.querySelector<HTMLElement>('.panel');
    if (panel) focusables(panel)[0]?.focus();
  };

  private get _locale() {
    return localeFor(this.lang || document.documentElement.lang || navigator.language);
  }

  private get _text(): Strings {
    return { ...this._locale.strings, ...this.strings };
  }

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('focusin', this._onFocusIn);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('focusin', this._onFocusIn);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('endpoint') || changed.has('storageKey') || changed.has('noPersist')) && this.endpoint) this._chat.restore();
    this._hadFocus = !!this.shadowRoot?.activeElement;
  }

  protected override updated(): void {
    // The focused control went away (a starter, "New conversation", a retry button): focus stays in the widget.
    if (this._hadFocus && !this.shadowRoot?.activeElement && (this.mode === 'inline' || this.opened)) {
      const input = this.inputEl;
      if (input && input.getClientRects().length) input.focus();
      else this.messagesEl?.focus();
    }
  }

  // Public methods

  /** Opens the panel (launcher mode). */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    this._chat.persist();
    this._emit('support-chat-open', {});
    void this.updateComplete.then(() => {
      // No autofocus of the field on touch devices: the keyboard would cover the answer. A modal
      // panel still takes focus (on its first control), as a dialog must.
      if (window.matchMedia?.('(pointer: fine)').matches) this.inputEl?.focus();
      else if (this._modal) this.renderRoot.querySelector<HTMLElement>('.panel button')?.focus();
    });
  }

  /** Closes the panel and returns focus to the launcher. */
  close(): void {
    if (!this.opened) return;
    this.opened = false;
    this._chat.persist();
    this._emit('support-chat-close', {});
    void this.updateComplete.then(() => this.launcherEl?.focus());
  }

  /** Opens the panel when closed, closes it when open. */
  toggle(): void {
    if (this.opened) this.close();
    else this.open();
  }

  /** Sends `text` as the visitor's question (opening the panel in launcher mode). */
  async ask(text: string): Promise<void> {
    const message = String(text ?? '').trim();
    if (!message) return;
    if (!this.endpoint) {
      this._fail(new ApiError(0, 'bad_request', 'The endpoint attribute is not set', false, undefined), null);
      return;
    }
    if (this.mode === 'launcher' && !this.opened) this.open();
    // "Can I talk to a human?" opens the form rather than asking the bot.
    if (!this.noEscalation && !this._chat.escalation && asksForHuman(message)) {
      this._escalation.request = message;
      this.handleOpenForm();
      return;
    }
    if (message.length > MESSAGE_MAX_LENGTH) {
      this._fail(new ApiError(400, 'bad_request', `Messages can be at most ${MESSAGE_MAX_LENGTH} characters`, false, undefined), null);
      return;
    }
    // Never lost: while an answer is on its way, or while offline, the message waits visibly in order.
    this._scroll.toEnd();
    this._chat.ask(message);
  }

  /** Forgets the conversation and starts anew. */
  reset(): void {
    this._chat.reset();
    this.formOpen = false;
    this.formErrors = {};
    this.notice = null;
    this.announcement = '';
    this._feedback.commenting = null;
    this._composer.set('');
  }

  private _resume(): void {
    this.notice = null;
    this._chat.resume();
  }

  /** A poll brought news: a completed answer is shown from its top, announced once, and emitted. */
  private _answered(answer: Message | null, failed: boolean): void {
    if (this.notice?.detail.code === 'network_error') this.notice = null;
    if (answer) {
      this._scroll.toAnswer();
      // Announced once, when the answer completes; polls that change nothing say nothing.
      const sentence = firstSentence(answer.content);
      this.announcement = sentence ? `${this._text.answerReady}: ${sentence}` : this._text.answerReady;
      this._emit('support-chat-answer', { conversationId: this._chat.conversationId!, message: answer });
    } else if (failed) this.announcement = this._text.failed;
  }

  private _fail(error: unknown, retry: (() => void) | null): void {
    const detail = errorDetail(error, this._text);
    this.notice = { detail, retry: detail.retryable ? retry : null };
    this._emit('support-chat-error', detail);
  }

  private _emit<K extends keyof GlobalEventHandlersEventMap>(type: K, detail: GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // Handlers

  private handleKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && this.mode === 'launcher' && this.opened) {
      event.stopPropagation();
      this.close();
    } else if (this._modal) trapTab(event, event.currentTarget as HTMLElement, this.shadowRoot!.activeElement);
  }

  /** Copies `text`; the button shows its `data-done` text for a moment (the DOM Lit renders is left alone). */
  private handleCopy(text: string, button: HTMLButtonElement): void {
    void navigator.clipboard?.writeText(text).then(
      () => {
        button.toggleAttribute('data-copied', true);
        setTimeout(() => button.toggleAttribute('data-copied', false), 1500);
      },
      () => undefined,
    );
  }

  private handleOpenForm(): void {
    this.formOpen = true;
    this.formErrors = {};
    this._scroll.toEnd();
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLInputElement>('input[name="name"]')?.focus());
  }

  private handleCancelForm(): void {
    this.formOpen = false;
    this.formErrors = {};
    // Focus stays in the widget: back on the offer that opened the form (or the message field).
    void this.updateComplete.then(() => (this.renderRoot.querySelector<HTMLButtonElement>('.offer') ?? this.inputEl)?.focus());
  }

  private handleEscalate(event: Event): void {
    event.preventDefault();
    const { customer, errors } = readForm(event.currentTarget as HTMLFormElement, this._text, this._locale.code);
    this.formErrors = errors;
    if (Object.keys(errors).length) {
      void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('.escalation-form [aria-invalid="true"]')?.focus());
      return;
    }
    this.notice = null;
    this._escalation.submit(customer, this._text.talkToHuman);
  }


  /** Escalation: a ticket (or "already with the team") once it is known. */
  private readonly _escalation = new EscalationController(this, this._chat, {
    done: (conversationId, result) => {
      if (!result) return this._escalated('already');
      const url = safeUrl(result.ticket_url) ?? '';
      this._escalated({ ticketId: result.ticket_id, ticketUrl: url });
      this._emit('support-chat-escalate', { conversationId, ticketId: result.ticket_id, ticketUrl: url || null });
    },
    failed: (error) => this._fail(error, () => this.renderRoot.querySelector<HTMLFormElement>('form.escalation-form')?.requestSubmit()),
  });

  private _escalated(escalation: NonNullable<Escalation>): void {
    this._chat.escalated(escalation);
    this.formOpen = false;
    this.announcement = escalation === 'already' ? this._text.alreadyEscalated : this._text.ticketCreated;
    // The form that had focus is gone: focus moves to the outcome, inside the widget.
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[part~="ticket"]')?.focus());
  }

  // Rendering

  /** The area above the composer: the offer to talk to a human, or the ticket once there is one. */
  private renderEscalation() {
    const t = this._text;
    if (this.noEscalation) return nothing;
    if (this._chat.escalation) return html`<div class="escalation" part="escalation">${ticket(t, this._chat.escalation)}</div>`;
    // Offered from the first exchange on, while the answer is still coming too.
    if (this.formOpen || (!this._chat.messages.length && !this._chat.queue.length)) return nothing;
    return html`<div class="escalation" part="escalation">
      <button type="button" class="secondary offer" @click=${this.handleOpenForm}>${t.talkToHuman}</button>
    </div>`;
  }

  private renderPanel() {
    const t = this._text;
    const locale = this._locale;
    const busy = this._chat.status === 'processing';
    const headingId = `${this._id}-heading`;
    return html`<section
      class="panel"
      part="panel"
      id="${this._id}-panel"
      role=${this.mode === 'launcher' ? 'dialog' : 'region'}
      aria-modal=${this.mode === 'launcher' ? (this._modal ? 'true' : 'false') : nothing}
      aria-labelledby=${headingId}
      lang=${locale.code}
      dir=${locale.dir}
      ?hidden=${this.mode === 'launcher' && !this.opened}
      @keydown=${this.handleKeydown}
    >
      <div class="header" part="header">
        <h2 id=${headingId}>${this.heading || t.heading}</h2>
        ${this._chat.messages.length
          ? html`<button type="button" class="icon-button" @click=${() => this.reset()}>${t.newConversation}</button>`
          : nothing}
        ${this.mode === 'launcher'
          ? html`<button type="button" class="icon-button" aria-label=${t.close} @click=${() => this.close()}>✕</button>`
          : nothing}
      </div>
      <div class="messages" part="messages" role="log" aria-live="off" aria-label=${this.heading || t.heading} aria-busy=${busy ? 'true' : 'false'} tabindex="0">
        ${this._chat.messages.length === 0 && !this._chat.queue.length ? welcome(t, this.starters, (q) => void this.ask(q)) : nothing}
        ${this._chat.messages.map((m, i) =>
          message(m, i, {
            t,
            id: this._id,
            alsoSent: this._chat.escalatedFrom !== null && i >= this._chat.escalatedFrom,
            complete: i < this._chat.messages.length - 1 || this._chat.status !== 'processing',
            onSourceClick: (source) => this._emit('support-chat-source-click', { source }),
            onCopy: (text, button) => this.handleCopy(text, button),
            rating: this._chat.ratings[i],
            commenting: this._feedback.commenting === i,
            commentError: this._feedback.error,
            onRate: (rating) => this._feedback.rate(i, rating),
            onComment: (e) => this._feedback.rate(i, 'down', e),
          }),
        )}
        ${busy
          ? html`<div class="message working" part="message" data-role="status">
              <span class="dots" aria-hidden="true"><span></span><span></span><span></span></span>${t.working}
            </div>`
          : nothing}
        ${this._chat.status === 'failed' ? html`<p class="message" part="message" data-role="status">${t.failed}</p>` : nothing}
        ${this.formOpen && !this._chat.escalation && !this.noEscalation
          ? escalationForm({
              id: this._id,
              t,
              errors: this.formErrors,
              pending: this._escalation.pending,
              creating: this._escalation.creating,
              onSubmit: (e) => this.handleEscalate(e),
              onCancel: () => this.handleCancelForm(),
            })
          : nothing}
        ${this._chat.queue.map((text) => pending(t, text, this._net.online))}
      </div>
      <div class="visually-hidden" role="status" aria-live="polite">${this.announcement}</div>
      ${notices(t, this._net.online, this.notice)}
      ${this.renderEscalation()}
      ${composer({
        id: this._id,
        t,
        lang: locale.code,
        placeholder: this.placeholder || t.placeholder,
        hidden: this.formOpen && !this._chat.escalation,
        error: this._composer.error,
        draftLength: this._composer.length,
        onSubmit: this._composer.onSubmit,
        onKeydown: this._composer.onKeydown,
        onInput: this._composer.onInput,
      })}
    </section>`;
  }

  protected override render() {
    const t = this._text;
    if (this.mode === 'inline') return this.renderPanel();
    return html`${this.renderPanel()}${launcher(t, `${this._id}-panel`, this.opened, () => this.toggle())}`;
  }
}
