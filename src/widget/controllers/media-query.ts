/** @module A media query's state as a reactive controller: the host re-renders when it changes. */
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class MediaQueryController implements ReactiveController {
  /** Whether the query matches now (false where there is no `matchMedia`). */
  matches = false;

  private readonly _host: ReactiveControllerHost;
  private readonly _query: string;
  private _list: MediaQueryList | undefined;
  private readonly _onChange = (event: MediaQueryListEvent) => {
    this.matches = event.matches;
    this._host.requestUpdate();
  };

  constructor(host: ReactiveControllerHost, query: string) {
    this._host = host;
    this._query = query;
    host.addController(this);
  }

  hostConnected(): void {
    this._list = typeof window !== 'undefined' ? window.matchMedia?.(this._query) : undefined;
    this.matches = this._list?.matches ?? false;
    this._list?.addEventListener('change', this._onChange);
  }

  hostDisconnected(): void {
    this._list?.removeEventListener('change', this._onChange);
  }
}
