/**
 * @module The message field as a reactive controller: it grows with its text, counts near the
 * limit, refuses (never cuts) a message over it, and hands a sendable message to `send`.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { MESSAGE_MAX_LENGTH } from '../../protocol/index.js';
import { format, type Strings } from '../strings.js';

export class ComposerController implements ReactiveController {
  /** Length of the field's text, for the counter near the limit. */
  length = 0;
  /** Why the field's text was not sent ('' when nothing is wrong). */
  error = '';

  readonly #host: ReactiveControllerHost;
  readonly #field: () => HTMLTextAreaElement | null;
  readonly #text: () => { t: Strings; lang: string };
  readonly #send: (text: string) => void;

  constructor(host: ReactiveControllerHost, field: () => HTMLTextAreaElement | null, text: () => { t: Strings; lang: string }, send: (text: string) => void) {
    this.#host = host;
    this.#field = field;
    this.#text = text;
    this.#send = send;
    host.addController(this);
  }

  hostConnected(): void {}

  /** Puts `text` in the field (a failed message back, or '' once sent). */
  set(text: string): void {
    const input = this.#field();
    if (!input) return;
    input.value = text;
    this.#size(input);
    if (!text) this.error = '';
    this.#host.requestUpdate();
  }

  /** The field's text, trimmed. */
  get value(): string {
    return this.#field()?.value.trim() ?? '';
  }

  /** The field grows with its text up to its CSS max-block-size, then scrolls. */
  #size(input: HTMLTextAreaElement): void {
    this.length = input.value.length;
    if (typeof CSS !== 'undefined' && CSS.supports?.('field-sizing', 'content')) return;
    input.style.height = 'auto';
    input.style.height = `${input.scrollHeight + 2}px`;
  }

  readonly onSubmit = (event: Event): void => {
    event.preventDefault();
    const input = this.#field();
    const text = this.value;
    if (!input || !text) return;
    if (text.length > MESSAGE_MAX_LENGTH) {
      // Refused, never cut: the visitor decides what to leave out.
      const { t, lang } = this.#text();
      this.error = format(t.tooLong, { max: MESSAGE_MAX_LENGTH.toLocaleString(lang), count: text.length.toLocaleString(lang) });
      this.#host.requestUpdate();
      input.focus();
      return;
    }
    this.set('');
    this.#send(text);
  };

  readonly onInput = (event: Event): void => {
    const input = event.currentTarget as HTMLTextAreaElement;
    this.#size(input);
    if (this.error && input.value.trim().length <= MESSAGE_MAX_LENGTH) this.error = '';
    this.#host.requestUpdate();
  };

  /** Enter sends, Shift+Enter adds a line (and nothing is sent while an input method composes). */
  readonly onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) this.onSubmit(event);
  };
}
