/**
 * @module Focus that stays in the widget, as a reactive controller: when a render removes the
 * focused control (a starter, "New conversation", a retry button), focus moves to the message
 * field, or to the message list when the field is hidden, rather than falling to the page.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class KeepFocusController implements ReactiveController {
  private readonly _host: ReactiveControllerHost & HTMLElement;
  private readonly _shown: () => boolean;
  private readonly _targets: () => (HTMLElement | null)[];
  /** Focus was inside the widget before this render. */
  private _hadFocus = false;

  /** `shown`: the panel is on screen; `targets`: where focus may go, in order of preference. */
  constructor(host: ReactiveControllerHost & HTMLElement, shown: () => boolean, targets: () => (HTMLElement | null)[]) {
    this._host = host;
    this._shown = shown;
    this._targets = targets;
    host.addController(this);
  }

  hostUpdate(): void {
    this._hadFocus = !!this._host.shadowRoot?.activeElement;
  }

  hostUpdated(): void {
    if (!this._hadFocus || this._host.shadowRoot?.activeElement || !this._shown()) return;
    this._targets().find((el) => el && el.getClientRects().length)?.focus();
  }
}
