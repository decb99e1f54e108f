/**
 * @module A known visitor, as a reactive controller: sends the `identityToken` with every request,
 * lists the visitor's recent conversations (from any device where they are signed in) in the empty
 * state (when it has a token) and continues the one they pick, and knows what the site knows of them (the escalation
 * form does not ask it again).
 */
import { html, nothing, type ReactiveController, type ReactiveControllerHost } from 'lit';
import type { ConversationSummary } from '../../protocol/index.js';
import type { ConversationList, IdentityToken } from '../client.js';
import type { Strings } from '../strings.js';
import type { ConversationController } from './conversation.js';

export class IdentityController implements ReactiveController {
  /** The visitor's conversations, newest first. */
  recent: ConversationSummary[] = [];
  /** What the site knows of the signed-in visitor; absent when anonymous (read again with the list after `forget`). */
  known: ConversationList['visitor'];
  private _loaded = false;

  /** `options`: the token, and whether the empty state is shown (then the list is read once). */
  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _chat: ConversationController,
    private readonly _options: () => { token: IdentityToken | null; idle: boolean; endpoint: string },
  ) {
    _host.addController(this);
  }

  hostUpdate(): void {
    const o = this._options();
    if (o.endpoint) this._chat.client.identity = () => this._options().token;
    if (o.endpoint && o.token && o.idle && !this._loaded) {
      this._loaded = true;
      this._chat.client.list().then(
        (list) => ((this.recent = list.conversations), (this.known = list.visitor), this._host.requestUpdate()),
        () => undefined,
      );
    }
  }

  /** Forgets the visitor (the app's logout calls `reset()`); the list is read again when next shown. */
  forget(): void {
    this.recent = [];
    this._loaded = false;
  }

  /** The recent conversations, each a button that continues it. */
  render(t: Strings) {
    // prettier-ignore
    return this.recent.length ? html`<ul class="starters" part="recent" aria-label=${t.recent ?? nothing}>${this.recent.map((c) => html`<li><button type="button" part="starter" @click=${() => (this._chat.reset(), (this._chat.conversationId = c.id), this._chat.resume())}>${c.title ?? c.id}</button></li>`)}</ul>` : nothing;
  }
}
