/**
 * @module The launcher's panel on phones, as a reactive controller: there it covers the screen, so
 * it is a modal dialog. While modal, Tab and Shift+Tab wrap inside the panel and focus that reaches
 * the page behind (a click, a script) comes back into it.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { focusables, trapTab } from '../focus.js';
import { MediaQueryController } from './media-query.js';

/** Where the launcher's panel becomes full screen (and modal); the styles use the same width. */
export const PHONE = '(max-width: 480px)';

export class ModalController implements ReactiveController {
  private readonly _host: ReactiveControllerHost & HTMLElement;
  private readonly _phone: MediaQueryController;
  private readonly _open: () => boolean;
  private readonly _panel: () => HTMLElement | null;

  private readonly _onFocusIn = (event: FocusEvent) => {
    if (!this.active || event.composedPath().includes(this._host)) return;
    const panel = this._panel();
    if (panel) focusables(panel)[0]?.focus();
  };

  /** `open`: the launcher's panel is open (inline panels are never modal); `panel`: the panel element. */
  constructor(host: ReactiveControllerHost & HTMLElement, open: () => boolean, panel: () => HTMLElement | null) {
    this._host = host;
    this._open = open;
    this._panel = panel;
    this._phone = new MediaQueryController(host, PHONE);
    host.addController(this);
  }

  /** The launcher's panel is open full screen: modal, focus kept inside. */
  get active(): boolean {
    return this._open() && this._phone.matches;
  }

  hostConnected(): void {
    document.addEventListener('focusin', this._onFocusIn);
  }

  hostDisconnected(): void {
    document.removeEventListener('focusin', this._onFocusIn);
  }

  /** A key pressed in the panel: while modal, Tab and Shift+Tab stay inside it. */
  keydown(event: KeyboardEvent): void {
    if (this.active) trapTab(event, event.currentTarget as HTMLElement, this._host.shadowRoot!.activeElement);
  }
}
