/** @module Whether the browser is online, as a reactive controller: one source of truth for the offline notice and for resuming. */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class ConnectivityController implements ReactiveController {
  /** The browser says it is online (`navigator.onLine`). */
  online = true;

  private readonly _host: ReactiveControllerHost;
  private readonly _onBack: () => void;
  private readonly _update = () => {
    const was = this.online;
    this.online = navigator.onLine;
    if (was === this.online) return;
    this._host.requestUpdate();
    if (this.online) this._onBack();
  };

  /** `onBack` runs each time the browser comes back online. */
  constructor(host: ReactiveControllerHost, onBack: () => void) {
    this._host = host;
    this._onBack = onBack;
    host.addController(this);
  }

  hostConnected(): void {
    this.online = typeof navigator === 'undefined' ? true : navigator.onLine;
    window.addEventListener('online', this._update);
    window.addEventListener('offline', this._update);
  }

  hostDisconnected(): void {
    window.removeEventListener('online', this._update);
    window.removeEventListener('offline', this._update);
  }
}
