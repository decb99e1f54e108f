/**
 * @module The search, loaded on first use (dist/search.js next to the bundle; see load-search.ts):
 * the controller, its template and its styles, attached to an element.
 *
 * Built apart from the bundle, this module carries no Lit of its own: the build gives it a stand-in
 * for Lit's `html` that makes the same template objects (`scripts/emit-module.mjs`), which the
 * bundle's Lit renders. A second copy of Lit would also create a second `lit-html` Trusted Types
 * policy, which a strict CSP refuses.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ProxyClient, SearchResult } from './client.js';
import { SearchController } from './controllers/search.js';
import type { Strings } from './strings.js';
import { searchStyles } from './search.styles.js';
import { searchBox } from './templates/search.js';
import { navigate } from './events.js';

export { SearchController, searchBox };

/** What the element gives the search. */
export interface SearchHost {
  /** Prefix of ids, unique in the page. */
  id: string;
  client(): ProxyClient;
  /** Why a search failed, in the widget's language. */
  describe(error: unknown): string;
  /** Asks `query` in chat (the "Ask AI" row). */
  ask(query: string): void;
}

let sheet: CSSStyleSheet | undefined;

/**
 * Adds the search to `host`: its styles to the shadow root, a controller that fires
 * `support-chat-search`, and `support-chat-result-click` then `support-chat-navigate` (a page of
 * this site; both cancelable: a cancelled one leaves the navigation to the page) on it, and the
 * template to render.
 */
export function attachSearch(host: ReactiveControllerHost & HTMLElement & { renderRoot: Node }, options: SearchHost): { controller: SearchController; render(t: Strings): unknown } {
  const root = host.renderRoot;
  if (root instanceof ShadowRoot) {
    if (!sheet) (sheet = new CSSStyleSheet()).replaceSync(searchStyles);
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }
  const emit = (type: string, detail: unknown, cancelable = false) => host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable }));
  const controller = new SearchController(host, options, {
    searched: (query, results: SearchResult[]) => emit('support-chat-search', { query, results }),
    ask: (query) => options.ask(query),
    opening: (result, query) => emit('support-chat-result-click', { result, query }, true) && navigate(host, result.url),
  });
  return { controller, render: (t) => searchBox(controller, t, options.id) };
}
