/** @module Whether the browser is online, as a reactive controller: one source of truth for the offline notice and for resuming. */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class ConnectivityController implements ReactiveController {
  /** The browser says it is online (`navigator.onLine`). */
  online = true;

  readonly #host: ReactiveControllerHost;
  readonly #onBack: () => void;
  readonly #update = () => {
    const was = this.online;
    this.online = navigator.onLine;
    if (was === this.online) return;
    this.#host.requestUpdate();
    if (this.online) this.#onBack();
  };

  /** `onBack` runs each time the browser comes back online. */
  constructor(host: ReactiveControllerHost, onBack: () => void) {
    this.#host = host;
    this.#onBack = onBack;
    host.addController(this);
  }

  hostConnected(): void {
    this.online = typeof navigator === 'undefined' ? true : navigator.onLine;
    window.addEventListener('online', this.#update);
    window.addEventListener('offline', this.#update);
  }

  hostDisconnected(): void {
    window.removeEventListener('online', this.#update);
    window.removeEventListener('offline', this.#update);
  }
}
