/** @module Template of a signed-in visitor's recent conversations in the empty state. */
import { html, nothing, type TemplateResult } from 'lit';
import type { ConversationSummary } from '../../protocol/index.js';
import type { Strings } from '../strings.js';

/** The list (part `recent`), each conversation a button (also part `starter`) that continues it; nothing when empty. */
export function recentList(t: Strings, id: string, conversations: ConversationSummary[], onContinue: (id: string) => void): TemplateResult | typeof nothing {
  if (!conversations.length) return nothing;
  return html`<p class="caption" id="${id}-recent">${t.recent}</p>
    <ul class="starters" part="recent" aria-labelledby="${id}-recent">
      ${conversations.map((c) => html`<li><button type="button" part="starter" dir="auto" @click=${() => onContinue(c.id)}>${c.title ?? c.created_at.slice(0, 10)}</button></li>`)}
    </ul>`;
}
