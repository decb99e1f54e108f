/**
 * @module Who the visitor is, as a reactive controller: sends the `identityToken` with every request
 * (identity-token.ts), asks the proxy who is here (`GET {basePath}/visitor`) when the panel shows,
 * when a stored conversation comes back, and when the app changes the token; and forgets what this
 * browser stored for a previous visitor once another one (or nobody) is signed in; a signed-in
 * visitor's stored conversation is read again then (it may have gone on from another device). Works the same
 * for a proxy's `identify` (the site's session) and for visitor JWTs.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { ApiError, type VisitorInfo } from '../client.js';
import { VisitorToken, type IdentityToken } from '../identity-token.js';
import { loadVisitorTag, saveVisitorTag } from '../storage.js';
import type { ConversationController } from './conversation.js';

export interface IdentityOptions {
  endpoint: string;
  token: IdentityToken | null;
  /** The panel shows. */
  shown: boolean;
  /** The conversation's storage key, with which the visitor's tag is kept (storage.ts); null to keep it in memory (`no-persist`). */
  storageKey: string | null;
}

export interface IdentityEvents {
  /** Another visitor (or nobody) is signed in now: what was stored for the previous one must go. */
  changed(): void;
  /** The proxy wants a signed-in visitor and there is none (401). */
  signInNeeded(error: ApiError): void;
}

export class IdentityController implements ReactiveController {
  /** What the proxy says of the visitor (`known`, `name`, `email`); null until it has answered, and after `forget`. */
  visitor: VisitorInfo | null = null;
  /** A restored conversation of a signed-in visitor stays hidden until the proxy says they are still the one here. */
  holding = false;
  /** The `identityToken`, kept and refreshed for every request of the client. */
  readonly token: VisitorToken;

  private _asked = false;
  private _shown = false;
  private _source: IdentityToken | null = null;
  /** The tag of the visitor whose conversation this page holds ('' anonymous), once the proxy was asked. */
  private _seen = '';
  /** The proxy has answered once on this page: what was restored from storage has been checked. */
  private _checked = false;

  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _chat: ConversationController,
    private readonly _options: () => IdentityOptions,
    private readonly _events: IdentityEvents,
  ) {
    this.token = new VisitorToken(() => this._options().token);
    _host.addController(this);
  }

  hostUpdate(): void {
    const o = this._options();
    if (!o.endpoint) return;
    this._chat.client.token = this.token;
    // Asked again each time the panel shows, and when the app sets another token (its login or logout).
    if ((o.shown && !this._shown) || o.token !== this._source) this._asked = false;
    this._shown = o.shown;
    this._source = o.token;
    if (!this._asked && (o.shown || this._chat.conversationId !== null)) {
      this._asked = true;
      void this._check();
    }
  }

  /** Forgets the visitor (the app's logout calls `reset()`): asked again when the panel next shows. */
  forget(): void {
    this.visitor = null;
    this._asked = false;
  }

  private async _check(): Promise<void> {
    const key = this._options().storageKey;
    // Whose conversation this is: the stored tag for what the page restored, then the last one it saw
    // (another tab may have stored another's meanwhile, while this page still shows its own).
    const stored = this._checked || key === null ? this._seen : loadVisitorTag(key);
    const conversation = this._chat.conversationId;
    // Only what this page restored waits (a conversation shown since is this visitor's: no flicker on each open).
    this.holding = !this._checked && stored !== '' && conversation !== null;
    let visitor: VisitorInfo;
    try {
      visitor = await this._chat.client.visitor();
    } catch (error) {
      // Not answered (offline, 5xx): nothing is known, so nothing is forgotten; asked again when the panel next shows.
      if (!(error instanceof ApiError && error.status === 401)) return;
      visitor = { known: false };
      this._events.signInNeeded(error);
    } finally {
      this.holding = false;
      this._host.requestUpdate();
    }
    this.visitor = visitor;
    this._checked = true;
    const tag = visitor.tag ?? '';
    this._seen = tag;
    if (tag === stored) {
      // Their conversation may have gone on from another device: read it once more.
      if (visitor.known && conversation !== null && this._chat.conversationId === conversation && !this._chat.busy) this._chat.resume();
      return;
    }
    if (key !== null) saveVisitorTag(key, tag);
    // The stored conversation was the previous visitor's (unless this one started a new one meanwhile).
    if (conversation !== null && this._chat.conversationId === conversation) this._events.changed();
  }
}
