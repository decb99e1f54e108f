/** @module A media query's state as a reactive controller: the host re-renders when it changes. */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class MediaQueryController implements ReactiveController {
  /** Whether the query matches now (false where there is no `matchMedia`). */
  matches = false;

  readonly #host: ReactiveControllerHost;
  readonly #query: string;
  #list: MediaQueryList | undefined;
  readonly #onChange = (event: MediaQueryListEvent) => {
    this.matches = event.matches;
    this.#host.requestUpdate();
  };

  constructor(host: ReactiveControllerHost, query: string) {
    this.#host = host;
    this.#query = query;
    host.addController(this);
  }

  hostConnected(): void {
    this.#list = typeof window !== 'undefined' ? window.matchMedia?.(this.#query) : undefined;
    this.matches = this.#list?.matches ?? false;
    this.#list?.addEventListener('change', this.#onChange);
  }

  hostDisconnected(): void {
    this.#list?.removeEventListener('change', this.#onChange);
  }
}
