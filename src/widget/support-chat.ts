/** @module Registers `<support-chat>`; safe to import where there is no DOM (nothing is defined there). */
import { SupportChat } from './support-chat.component.js';
// After the element: see locales.ts.
import './locales.js';

export { SupportChat };

if (typeof customElements !== 'undefined' && !customElements.get('support-chat')) {
  customElements.define('support-chat', SupportChat);
}

declare global {
  interface HTMLElementTagNameMap {
    'support-chat': SupportChat;
  }
}
