/**
 * @module The message field as a reactive controller: it grows with its text, counts near the
 * limit, refuses (never cuts) a message over it, and hands a sendable message to `send`.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { characterCount, MESSAGE_MAX_LENGTH } from '../../protocol/index.js';
import type { Strings } from '../strings.js';
import { lengthError } from '../templates/note.js';

export class ComposerController implements ReactiveController {
  /** Length of the field's text in characters (code points), for the counter near the limit. */
  length = 0;
  /** Why the field's text was not sent ('' when nothing is wrong). */
  error = '';

  private readonly _host: ReactiveControllerHost;
  private readonly _field: () => HTMLTextAreaElement | null;
  private readonly _text: () => { t: Strings; lang: string };
  private readonly _send: (text: string) => void;

  constructor(host: ReactiveControllerHost, field: () => HTMLTextAreaElement | null, text: () => { t: Strings; lang: string }, send: (text: string) => void) {
    this._host = host;
    this._field = field;
    this._text = text;
    this._send = send;
    host.addController(this);
  }

  hostConnected(): void {}

  /** Puts `text` in the field (a failed message back, or '' once sent). */
  set(text: string): void {
    const input = this._field();
    if (!input) return;
    input.value = text;
    this._size(input);
    if (!text) this.error = '';
    this._host.requestUpdate();
  }

  /** The field's text, trimmed. */
  get value(): string {
    return this._field()?.value.trim() ?? '';
  }

  /** The field grows with its text up to its CSS max-block-size, then scrolls. */
  private _size(input: HTMLTextAreaElement): void {
    this.length = characterCount(input.value);
    if (typeof CSS !== 'undefined' && CSS.supports?.('field-sizing', 'content')) return;
    input.style.height = 'auto';
    input.style.height = `${input.scrollHeight + 2}px`;
  }

  readonly onSubmit = (event: Event): void => {
    event.preventDefault();
    const input = this._field();
    const text = this.value;
    if (!input || !text) return;
    const { t, lang } = this._text();
    const error = lengthError(text, MESSAGE_MAX_LENGTH, t, lang);
    if (error) {
      // Refused, never cut: the visitor decides what to leave out.
      this.error = error;
      this._host.requestUpdate();
      input.focus();
      return;
    }
    this.set('');
    this._send(text);
  };

  readonly onInput = (event: Event): void => {
    const input = event.currentTarget as HTMLTextAreaElement;
    this._size(input);
    if (this.error && characterCount(input.value.trim()) <= MESSAGE_MAX_LENGTH) this.error = '';
    this._host.requestUpdate();
  };

  /** Enter sends, Shift+Enter adds a line (and nothing is sent while an input method composes). */
  readonly onKeydown = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) this.onSubmit(event);
  };
}
