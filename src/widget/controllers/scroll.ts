/**
 * @module Scrolling the message list as a reactive controller: the visitor's own message scrolls
 * to the end, a new answer is shown from its top, and nothing moves while the reader has scrolled up.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class ScrollController implements ReactiveController {
  private _stick = true;
  private _toEnd = false;
  private _toAnswer = false;
  private readonly _list: () => HTMLElement | null;

  constructor(host: ReactiveControllerHost, list: () => HTMLElement | null) {
    this._list = list;
    host.addController(this);
  }

  /** After the next render, show the end of the list. */
  toEnd(): void {
    this._toEnd = true;
  }

  /** After the next render, show the newest answer from its top (unless the reader scrolled up). */
  toAnswer(): void {
    this._toAnswer = true;
  }

  hostUpdate(): void {
    const el = this._list();
    if (el) this._stick = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  }

  hostUpdated(): void {
    const el = this._list();
    if (el && this._toEnd) el.scrollTop = el.scrollHeight;
    else if (el && this._toAnswer && this._stick) {
      const answers = el.querySelectorAll<HTMLElement>('[data-role="assistant"]');
      const last = answers[answers.length - 1];
      if (last) el.scrollTop = last.offsetTop - 8;
    }
    this._toEnd = false;
    this._toAnswer = false;
  }
}
