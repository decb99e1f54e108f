/**
 * @module A signed-in visitor's recent conversations, as a reactive controller: read from the proxy
 * (`GET {basePath}/chat`, from every device where they are signed in) each time the proxy has said
 * who the visitor is and the empty state shows, and continued when the visitor picks one.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ConversationSummary } from '../../protocol/index.js';
import type { VisitorInfo } from '../client.js';
import type { ConversationController } from './conversation.js';
import type { IdentityController } from './identity.js';

export class RecentController implements ReactiveController {
  /** The visitor's conversations, newest first; empty for an anonymous visitor. */
  conversations: ConversationSummary[] = [];
  /** The answer of the proxy the list was read for (each new answer reads it again). */
  private _for: VisitorInfo | null = null;

  /** `idle`: the empty state shows (the panel is open and there is no conversation). */
  constructor(
    private readonly _host: ReactiveControllerHost,
    private readonly _chat: ConversationController,
    private readonly _identity: IdentityController,
    private readonly _idle: () => boolean,
  ) {
    _host.addController(this);
  }

  hostUpdate(): void {
    const visitor = this._identity.visitor;
    if (visitor === this._for) return;
    if (!visitor?.known) {
      this._for = visitor;
      this.conversations = [];
      return;
    }
    if (!this._idle()) return;
    this._for = visitor;
    this._chat.client.list().then(
      (list) => {
        // Only for the visitor it was read for: another may have signed in meanwhile.
        if (this._identity.visitor !== visitor) return;
        this.conversations = list.conversations;
        this._host.requestUpdate();
      },
      () => undefined,
    );
  }

  /** Continues conversation `id` here: it is read from the proxy, then stored as this browser's conversation. */
  continue(id: string): void {
    this._chat.reset();
    this._chat.conversationId = id;
    this._chat.resume();
  }
}
