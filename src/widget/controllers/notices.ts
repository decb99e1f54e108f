/**
 * @module What the widget tells the visitor besides the conversation, as a reactive controller: the
 * error notice (with its retry) and the polite live region's announcement.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { isUncertain, type Message } from '../../protocol/index.js';
import { errorDetail, type SupportChatErrorDetail } from '../events.js';
import { answerSentence, loadMarkdown } from '../render-markdown.js';
import type { Strings } from '../strings.js';

export interface Notice {
  detail: SupportChatErrorDetail;
  retry: (() => void) | null;
}

export class NoticesController implements ReactiveController {
  /** The error notice shown, if any. */
  notice: Notice | null = null;
  /** The live region's text. */
  announcement = '';

  private readonly _host: ReactiveControllerHost;
  private readonly _text: () => Strings;
  private readonly _onError: (detail: SupportChatErrorDetail) => void;

  /** `onError` is told every error shown (the element emits it as `support-chat-error`). */
  constructor(host: ReactiveControllerHost, text: () => Strings, onError: (detail: SupportChatErrorDetail) => void) {
    this._host = host;
    this._text = text;
    this._onError = onError;
    host.addController(this);
  }

  hostConnected(): void {}

  /** Shows `error` in the visitor's language, with a retry button when it is retryable and `retry` is given. */
  fail(error: unknown, retry: (() => void) | null): void {
    const detail = errorDetail(error, this._text());
    this.notice = { detail, retry: detail.retryable ? retry : null };
    this._host.requestUpdate();
    this._onError(detail);
  }

  /** Hides the error notice; with `onlyNetwork`, only a network error's (the connection is back). */
  clear(onlyNetwork = false): void {
    if (onlyNetwork && this.notice?.detail.code !== 'network_error') return;
    this.notice = null;
    this._host.requestUpdate();
  }

  /** Says `text` in the polite live region. */
  announce(text: string): void {
    this.announcement = text;
    this._host.requestUpdate();
  }

  /**
   * A completed answer is announced once, as "Answer ready" with its first sentence (never code); a
   * reply that found no direct answer as such ("Not sure…", or "No answer found…").
   */
  answered(answer: Message): void {
    const t = this._text();
    if (isUncertain(answer)) return this.announce(answer.sources.length ? t.notSure : t.nothingFound);
    const sentence = answerSentence(answer.content);
    // The parser loads on demand: the announcement waits for it (or goes without a sentence if it fails).
    if (sentence === undefined) return void loadMarkdown().then(() => (answerSentence('') === undefined ? this.announce(t.answerReady) : this.answered(answer)));
    this.announce(sentence ? `${t.answerReady}: ${sentence}` : t.answerReady);
  }

  /** Forgets both (a new conversation). */
  reset(): void {
    this.notice = null;
    this.announce('');
  }
}
