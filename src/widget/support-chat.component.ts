/** @module The `<support-chat>` element: launcher or inline panel, answers with sources, escalation to a human. */
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { characterCount, isUncertain, MESSAGE_MAX_LENGTH, type Message } from '../protocol/index.js';
import { ApiError } from './client.js';
import type { IdentityToken } from './identity-token.js';
import { copy } from './clipboard.js';
import { ComposerController } from './controllers/composer.js';
import { ConnectivityController } from './controllers/connectivity.js';
import { ScrollController } from './controllers/scroll.js';
import { ConversationController } from './controllers/conversation.js';
import { EscalationController } from './controllers/escalation.js';
import { FeedbackController } from './controllers/feedback.js';
import { IdentityController } from './controllers/identity.js';
import { KeepFocusController } from './controllers/keep-focus.js';
import { ModalController } from './controllers/modal.js';
import { NoticesController } from './controllers/notices.js';
import { RecentController } from './controllers/recent.js';
import { PageThemeController } from './controllers/page-theme.js';
import { asksForHuman } from './intent.js';
import { loadLocale } from './locales.js';
import { adoptMarkdownStyles, loadMarkdown, markdownLoading } from './render-markdown.js';
import { loadSearch } from './load-search.js';
import { DEFAULT_SHORTCUT, matchesShortcut } from './shortcut.js';
import { errorDetail, navigate } from './events.js';
import { LOCALES, localeFor, type Strings } from './strings.js';
import { storageKey } from './storage.js';
import { styles } from './support-chat.styles.js';
import { escalationArea, escalationForm, ticketCreated } from './templates/escalation.js';
import { answerMarkdown, message } from './templates/message.js';
import { recentList } from './templates/recent.js';
import { composer, header, launcher, notices, parseStarters, pending, status, welcome } from './templates/panel.js';

let instances = 0;

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
 * @event support-chat-search - Results arrived for what the visitor typed in the search field. Detail: `{query, results}`.
 * @event support-chat-result-click - The visitor opens a search result (Enter or a click). Cancelable:
 * `preventDefault()` keeps the widget from following the link (a single-page app's router can take it). Detail: `{result, query}`.
 * @event support-chat-navigate - The widget is about to open a page of this site: a search result
 * (after `support-chat-result-click`) or a source link. Cancelable and composed: a docs site's
 * router calls `preventDefault()` and opens `url` itself; the widget then does not. Detail: `{url}`.
 * @event support-chat-feedback - The visitor rated an answer (thumbs up or down, a "down" maybe with a comment). Detail: `{conversationId, messageIndex, rating, comment}`.
 *
 * @csspart launcher - The floating button (launcher mode).
 * @csspart search - The search field at the top of the panel (a combobox; loaded on first use).
 * @csspart search-ask - The first row of the search results, "Ask AI: <query>", which asks it in chat.
 * @csspart search-result - One search result, a link to its page, matched words in `<mark>`.
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
 * @csspart escalation - The "talk to a human" area, above the composer.
 * @csspart talk-to-human - The one offer to talk to a human (in the `escalation` area; the primary
 * action when the last reply found no direct answer).
 * @csspart escalation-form - The name and email form.
 * @csspart ticket - The created ticket.
 * @csspart error - An error notice.
 * @csspart offline - The offline notice.
 * @csspart copy-button - The copy button of a code block.
 * @csspart copy-answer - The "Copy answer" action of an answer.
 * @csspart recent - A signed-in visitor's recent conversations in the empty state, from any device
 * where they are signed in (each of its buttons is also part `starter`, and continues that conversation).
 * @csspart feedback - A thumbs up or down button under an answer (`aria-pressed`; up comes first).
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
    identityToken: { attribute: false },
    noSearch: { type: Boolean, attribute: 'no-search' },
    shortcut: {},
  };

  /** Base URL of the proxy, e.g. `/api/support`. */
  endpoint = '';

  /** `launcher`: a floating button opening a panel; `inline`: fills its container. */
  mode: 'launcher' | 'inline' = 'launcher';

  /**
   * `light`, `dark`, or `auto`: the page's colour mode when `<html>` declares one (`data-theme="dark"`
   * or `"light"`, the class `dark`), else the system's.
   */
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

  /**
   * The signed-in visitor's token for a proxy with the `identity` option: a string, or a function
   * (maybe async) called when a token is first needed and again, once, when the proxy refuses it
   * (expired). Set it to null on logout (and call `reset()`).
   */
  identityToken: IdentityToken | null = null;

  /** Hides the search field (and its shortcut): the panel is the chat alone. */
  noSearch = false;

  /**
   * The keys that open the panel with the search field focused, from anywhere on the page: a
   * space-separated list where `mod+k` is ⌘K on a Mac and Ctrl+K elsewhere and a key alone (`/`)
   * counts only outside text fields. `mod+j` when the site's own search has ⌘K; `none` for no key.
   */
  shortcut = DEFAULT_SHORTCUT;

  private get _messagesEl() {
    return this.renderRoot.querySelector<HTMLElement>('.messages');
  }
  private get _inputEl() {
    return this.renderRoot.querySelector<HTMLTextAreaElement>('.composer textarea');
  }
  private get _launcherEl() {
    return this.renderRoot.querySelector<HTMLButtonElement>('.launcher');
  }

  private readonly _id = `support-chat-${++instances}`;

  /** The search (field, results, "Ask AI") once its module has loaded; undefined before, and with `no-search`. */
  private _search?: { controller: { set(query: string): void }; render(t: Strings): unknown };
  /** The search module's load while it is under way: `updateComplete` waits for it. */
  private _searchLoading?: Promise<void>;
  private _searchAsked = false;
  /** The panel is the search dialog (opened by `search()`, the shortcut): the field and its results, sized for them; asking goes on in the chat panel. */
  private _dialog = false;

  private readonly _onShortcut = (event: KeyboardEvent) => {
    if (!this.noSearch && matchesShortcut(this.shortcut, event)) {
      event.preventDefault();
      void this.search();
    }
  };

  private readonly _scroll = new ScrollController(this, () => this._messagesEl);
  private readonly _composer = new ComposerController(
    this,
    () => this._inputEl,
    () => ({ t: this._text, lang: this._locale.code }),
    (text) => void this.ask(text),
  );
  private readonly _net = new ConnectivityController(this, () => this._chat.flush());
  /** The error notice and the live region; every error shown is emitted. */
  private readonly _notices = new NoticesController(this, () => this._text, (detail) => this._emit('support-chat-error', detail));

  /** The conversation: state, persistence, other tabs, polling, sending. */
  private readonly _chat = new ConversationController(
    this,
    () => ({
      endpoint: this.endpoint,
      storageKey: this.storageKey,
      noPersist: this.noPersist,
      pollTimeout: this.pollTimeout,
      online: this._net.online,
      open: this.opened,
      markdown: (source) => answerMarkdown(source, [], this._text, copy),
      list: () => this._messagesEl,
    }),
    {
      sent: (message, conversationId) => {
        this._notices.clear();
        this._scroll.toEnd();
        this._emit('support-chat-send', { message, conversationId });
      },
      // Sent by "Try again" (or from the queue): the text it left in the box has gone out.
      accepted: (message) => {
        if (this._composer.value === message) this._composer.set('');
      },
      sendFailed: (error, message) => {
        if (!this._composer.value) this._composer.set(message);
        this._notices.fail(error, () => void this.ask(message));
      },
      updated: (_conversation, answer, failed) => this._answered(answer, failed),
      pollFailed: (error) => this._notices.fail(error, () => this._resume()),
      restored: (saved) => {
        if (saved.open && this.mode === 'launcher') this.opened = true;
      },
    },
  );
  /** The thumbs under answers; the ratings are stored with the conversation. */
  private readonly _feedback = new FeedbackController(this, this._chat, () => ({ t: this._text, lang: this._locale.code }), {
    rated: (messageIndex, rating, comment) => this._emit('support-chat-feedback', { conversationId: this._chat.conversationId!, messageIndex, rating, comment }),
    failed: (error) => this._notices.fail(error, null),
  });
  /** Escalation: the form, the request, and the ticket (or "already with the team") once it is known. */
  private readonly _escalation = new EscalationController(this, this._chat, () => ({ t: this._text, lang: this._locale.code }), {
    formOpened: () => this._scroll.toEnd(),
    done: (conversationId, escalation) => {
      this._notices.announce(escalation === 'already' ? this._text.alreadyEscalated : ticketCreated(this._text, escalation));
      if (escalation !== 'already') this._emit('support-chat-escalate', { conversationId, ticketId: escalation.ticketId, ticketUrl: escalation.ticketUrl || null });
    },
    failed: (error) => this._notices.fail(error, () => this.renderRoot.querySelector<HTMLFormElement>('form.escalation-form')?.requestSubmit()),
  });
  /** Who the visitor is (their token, the proxy's `/visitor`); another visitor's stored conversation goes. */
  private readonly _identity = new IdentityController(
    this,
    this._chat,
    () => ({
      endpoint: this.endpoint,
      token: this.identityToken,
      shown: this.mode === 'inline' || this.opened,
      storageKey: this.noPersist ? null : storageKey(this.storageKey, this.endpoint),
    }),
    { changed: () => this._clear(), signInNeeded: (error) => this._notices.fail(error, null) },
  );
  /** A signed-in visitor's recent conversations, in the empty state. */
  private readonly _recent = new RecentController(this, this._chat, this._identity, () => (this.mode === 'inline' || this.opened) && !this._chat.conversationId);
  /** Phones: the launcher's panel covers the screen, so it is a modal dialog there (focus kept inside). */
  private readonly _modal = new ModalController(
    this,
    () => this.mode === 'launcher' && this.opened,
    () => this.renderRoot.querySelector<HTMLElement>('.panel'),
  );

  /** The page's colour mode, for `theme="auto"`. */
  private readonly _pageTheme = new PageThemeController(this);

  /** The focused control went away in a render: focus stays in the widget. */
  private readonly _keepFocus = new KeepFocusController(
    this,
    () => this.mode === 'inline' || this.opened,
    () => [this._inputEl, this._messagesEl],
  );

  private get _locale() {
    return localeFor(this.lang || document.documentElement.lang || navigator.language);
  }

  private get _text(): Strings {
    return { ...this._locale.strings, ...this.strings };
  }

  /** A built-in language still loading: `updateComplete` waits for it, so its text is on screen then. */
  private _localeLoading?: Promise<void>;
  private _localeAsked?: string;

  /** The Markdown parser still loading: `updateComplete` waits for it, so answers are rendered then. */
  private _markdownLoading?: Promise<void>;

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener('keydown', this._onShortcut);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('keydown', this._onShortcut);
  }

  /** Loads the search once, and attaches it to this element. */
  private _loadSearch(): Promise<void> | undefined {
    if (this._searchAsked) return this._searchLoading;
    this._searchAsked = true;
    return (this._searchLoading = loadSearch().then((m) => {
      this._search = m?.attachSearch(this, { id: this._id, client: () => this._chat.client, describe: (e) => errorDetail(e, this._text).message, ask: (q) => void this.ask(q) });
      this._searchLoading = undefined;
      this.requestUpdate();
    }));
  }

  protected override updated(): void {
    // Answers need the parser, and the panel its search: they start loading when the panel shows (or an answer renders).
    if (this.opened || this.mode !== 'launcher') {
      void loadMarkdown();
      if (!this.noSearch) void this._loadSearch();
    }
    // Answers rendered by the parser are styled by the sheet that comes with it.
    adoptMarkdownStyles(this.renderRoot);
    const markdown = markdownLoading();
    if (markdown && !this._markdownLoading) {
      this._markdownLoading = markdown.then(() => {
        this._markdownLoading = undefined;
        this.requestUpdate();
      });
    }
    const { code } = this._locale;
    // Asked once per language: a load that failed leaves English, without asking again.
    if (code in LOCALES || code === this._localeAsked) return;
    this._localeAsked = code;
    this._localeLoading = loadLocale(code).then(() => {
      this._localeLoading = undefined;
      this.requestUpdate();
    });
  }

  protected override async getUpdateComplete(): Promise<boolean> {
    let done = await super.getUpdateComplete();
    while (this._localeLoading || this._markdownLoading || this._searchLoading) {
      await Promise.all([this._localeLoading, this._markdownLoading, this._searchLoading]);
      done = await super.getUpdateComplete();
    }
    return done;
  }

  /** A deep link `?ask=…` asks its question once: the parameter leaves the URL, so a reload does not ask again. */
  protected override firstUpdated(): void {
    const url = new URL(location.href);
    const question = url.searchParams.get('ask');
    if (question === null) return;
    url.searchParams.delete('ask');
    history.replaceState(history.state, '', url);
    void this.ask(question);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if ((changed.has('endpoint') || changed.has('storageKey') || changed.has('noPersist')) && this.endpoint) this._chat.restore();
  }

  // Public methods

  /** Opens the panel (launcher mode). */
  open(): void {
    this._dialog = false;
    this.requestUpdate();
    this._open('.composer textarea');
  }

  /** Opens the panel with the focus in `field` (a selector: the message field, or the search field). */
  private _open(field: string): void {
    if (this.opened) return;
    this.opened = true;
    this._chat.persist();
    this._emit('support-chat-open', {});
    void this.updateComplete.then(() => {
      // No autofocus of the field on touch devices: the keyboard would cover the answer. A modal
      // panel still takes focus (on its first control), as a dialog must.
      if (window.matchMedia?.('(pointer: fine)').matches) this.renderRoot.querySelector<HTMLElement>(field)?.focus();
      else if (this._modal.active) this.renderRoot.querySelector<HTMLElement>('.panel button')?.focus();
    });
  }

  /** Closes the panel and returns focus to the launcher. */
  close(): void {
    if (!this.opened) return;
    this.opened = false;
    this._chat.persist();
    this._emit('support-chat-close', {});
    void this.updateComplete.then(() => this._launcherEl?.focus());
  }

  /** Opens the panel when closed, closes it when open. */
  toggle(): void {
    if (this.opened) this.close();
    else this.open();
  }

  /**
   * Opens the panel with the search field focused (what the `shortcut` keys do); with `query`, puts
   * it in the field and searches it. Does nothing with `no-search`.
   */
  async search(query?: string): Promise<void> {
    if (this.noSearch) return;
    if (this.mode === 'launcher' && !this.opened) {
      this._dialog = true;
      this._open('[part=search]');
    }
    await this._loadSearch();
    await this.updateComplete;
    if (query !== undefined) this._search?.controller.set(String(query));
    this.renderRoot.querySelector<HTMLInputElement>('[part=search]')?.focus();
  }

  /**
   * Sends `text` as the visitor's question (opening the panel in launcher mode). `selection`: text
   * the visitor selected on the page, sent with this one question (its first 1,000 characters).
   */
  async ask(text: string, options?: { selection?: string }): Promise<void> {
    const message = String(text ?? '').trim();
    if (!message) return;
    if (!this.endpoint) {
      this._notices.fail(new ApiError(0, 'bad_request', 'The endpoint attribute is not set', false, undefined), null);
      return;
    }
    if (this.mode === 'launcher') this.open();
    // "Can I talk to a human?" opens the form rather than asking the bot.
    if (!this.noEscalation && !this._chat.escalation && asksForHuman(message)) {
      this._escalation.request = message;
      this._escalation.openForm();
      return;
    }
    if (characterCount(message) > MESSAGE_MAX_LENGTH) {
      this._notices.fail(new ApiError(400, 'bad_request', `Messages can be at most ${MESSAGE_MAX_LENGTH} characters`, false, undefined), null);
      return;
    }
    // Never lost: while an answer is on its way, or while offline, the message waits visibly in order.
    this._scroll.toEnd();
    this._chat.ask(message, options?.selection);
  }

  /**
   * Forgets the conversation, what the widget stored and who the visitor was, and starts anew; call
   * it on the app's logout (with `identityToken = null` when it is set).
   */
  reset(): void {
    this._clear();
    this._identity.forget();
  }

  /** Forgets the conversation and what was stored of it. */
  private _clear(): void {
    this._chat.reset();
    this._escalation.reset();
    this._notices.reset();
    this._feedback.commenting = null;
    this._composer.set('');
  }

  private _resume(): void {
    this._notices.clear();
    this._chat.resume();
  }

  /** A poll brought news: a completed answer is shown from its top, announced once, and emitted. */
  private _answered(answer: Message | null, failed: boolean): void {
    // The connection is back: a network error's notice goes.
    this._notices.clear(true);
    if (answer) {
      this._scroll.toAnswer();
      // Announced once, when the answer completes; polls that change nothing say nothing.
      this._notices.answered(answer);
      this._emit('support-chat-answer', { conversationId: this._chat.conversationId!, message: answer });
    } else if (failed) this._notices.announce(this._text.failed);
  }

  private _emit<K extends keyof GlobalEventHandlersEventMap>(type: K, detail: GlobalEventHandlersEventMap[K] extends CustomEvent<infer D> ? D : never): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  // Handlers

  private handleKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && this.mode === 'launcher' && this.opened) {
      event.stopPropagation();
      this.close();
    } else this._modal.keydown(event);
  }

  // Rendering

  private _renderPanel() {
    const t = this._text;
    const locale = this._locale;
    const chat = this._chat;
    const escalation = this._escalation;
    const launcherMode = this.mode === 'launcher';
    const headingId = `${this._id}-heading`;
    // A restored conversation waits for the proxy to say its visitor is still the one here.
    const messages = this._identity.holding ? [] : chat.messages;
    const empty = !messages.length && !chat.queue.length;
    const formShown = escalation.formOpen && !chat.escalation && !this.noEscalation;
    return html`<section
      class="panel ${this._dialog && launcherMode ? 'dialog' : ''}"
      part="panel"
      id="${this._id}-panel"
      role=${launcherMode ? 'dialog' : 'region'}
      aria-modal=${launcherMode ? (this._modal.active ? 'true' : 'false') : nothing}
      aria-labelledby=${headingId}
      lang=${locale.code}
      dir=${locale.dir}
      ?hidden=${launcherMode && !this.opened}
      @keydown=${this.handleKeydown}
    >
      ${header(t, {
        headingId,
        heading: this.heading || t.heading,
        onReset: messages.length ? () => this.reset() : null,
        onClose: launcherMode ? () => this.close() : null,
      })}
      ${this.noSearch ? nothing : this._search?.render(t)}
      <div class="messages" part="messages" role="log" aria-live="off" aria-label=${this.heading || t.heading} aria-busy=${chat.status === 'processing' ? 'true' : 'false'} tabindex="0">
        ${empty ? welcome(t, this.starters, (q) => void this.ask(q)) : nothing}
        ${empty && !chat.conversationId ? recentList(t, this._id, this._recent.conversations, (id) => this._recent.continue(id)) : nothing}
        ${messages.map((m, i) =>
          message(m, i, {
            t,
            id: this._id,
            alsoSent: chat.escalatedFrom !== null && i >= chat.escalatedFrom,
            complete: i < chat.messages.length - 1 || chat.status !== 'processing',
            onSourceClick: (source, e) => {
              this._emit('support-chat-source-click', { source });
              if (!navigate(this, (e.currentTarget as HTMLAnchorElement).href)) e.preventDefault();
            },
            onCopy: copy,
            rating: chat.ratings[i],
            commenting: this._feedback.commenting === i,
            commentError: this._feedback.error,
            onRate: (rating) => this._feedback.rate(i, rating),
            onComment: (e) => this._feedback.rate(i, 'down', e),
          }),
        )}
        ${chat.stream.render(t) ?? status(t, chat.status)}
        ${formShown
          ? escalationForm({
              id: this._id,
              t,
              errors: escalation.errors,
              progress: escalation.progress,
              onSubmit: (e) => escalation.submitForm(e) && this._notices.clear(),
              onCancel: () => escalation.cancelForm(() => this._inputEl, (text) => this._composer.set(text)),
              known: this._identity.visitor,
            })
          : nothing}
        ${chat.queue.map((q) => pending(t, q.text, this._net.online))}
      </div>
      <div class="visually-hidden" role="status" aria-live="polite">${this._notices.announcement}</div>
      ${notices(t, this._net.online, this._notices.notice)}
      ${this.noEscalation
        ? nothing
        : escalationArea(t, chat.escalation, { shown: !escalation.formOpen && !empty, urged: isUncertain(messages.at(-1)) }, () => this._escalation.openForm())}
      ${composer({
        id: this._id,
        t,
        lang: locale.code,
        placeholder: this.placeholder || t.placeholder,
        hidden: escalation.formOpen && !chat.escalation,
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
    if (this.mode === 'inline') return this._renderPanel();
    return html`${this._renderPanel()}${launcher(t, `${this._id}-panel`, this.opened, () => this.toggle())}`;
  }
}
