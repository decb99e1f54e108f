/**
 * @module The search field and its results: the ARIA 1.2 combobox with a listbox popup. Focus stays
 * in the field; `aria-activedescendant` names the active row, which carries `aria-selected`. Rows
 * are grouped by page; matched words are `<mark>` elements cut from the server's offsets, every
 * piece of text a text binding (never HTML).
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { SearchController } from '../controllers/search.js';
import { format, type Strings } from '../strings.js';

/** Most highlights marked in one excerpt: the server sends a few, and the loop stays bounded whatever it sends. */
export const MAX_MARKS = 32;

/** Whether UTF-16 offset `i` of `text` falls between the two halves of a surrogate pair (an emoji, a CJK extension character). */
const insidePair = (text: string, i: number) => /[\uD800-\uDBFF]/.test(text[i - 1] ?? '') && /[\uDC00-\uDFFF]/.test(text[i] ?? '');

/**
 * `text` cut into plain pieces and marked ones at `highlights` (`[start, end)` UTF-16 offsets):
 * sorted, clipped to the text, snapped out to whole code points (a start inside a surrogate pair
 * moves before it, an end after it: a mark never splits a character), an overlap keeps only what
 * lies past the mark before it, anything malformed skipped.
 *
 * @example
 * markPieces('Reset your password', [[6, 10]]); // [{text:'Reset '}, {text:'your', mark:true}, {text:' password'}]
 */
export function markPieces(text: string, highlights: unknown): { text: string; mark?: true }[] {
  const spans = (Array.isArray(highlights) ? highlights.slice(0, MAX_MARKS) : [])
    .filter((h): h is [number, number] => Array.isArray(h) && Number.isInteger(h[0]) && Number.isInteger(h[1]))
    .sort((a, b) => a[0] - b[0]);
  const pieces: { text: string; mark?: true }[] = [];
  let last = 0;
  for (const [start, end] of spans) {
    const from = Math.max(start - +insidePair(text, start), last);
    const to = Math.min(end + +insidePair(text, end), text.length);
    if (to <= from) continue;
    if (from > last) pieces.push({ text: text.slice(last, from) });
    pieces.push({ text: text.slice(from, to), mark: true });
    last = to;
  }
  if (last < text.length || !pieces.length) pieces.push({ text: text.slice(last) });
  return pieces;
}

const marked = (text: string, highlights: unknown) => markPieces(String(text ?? ''), highlights).map((p) => (p.mark ? html`<mark>${p.text}</mark>` : p.text));

/** What the search says in words under the field: searching (once it takes a moment), nothing found, or why it failed. */
function statusText(s: SearchController, t: Strings): string {
  const query = s.query.trim();
  if (!query) return '';
  if (s.searching) return t.searching;
  if (s.state === 'failed') return `${t.searchFailed} ${s.error}`;
  return s.state === 'done' && !s.results.length ? format(t.searchEmpty, { query }) : '';
}

/**
 * The search area at the top of the panel: the field (part `search`), the "Ask AI" row (part
 * `search-ask`) and the results grouped by page (each part `search-result`, a link).
 */
export function searchBox(s: SearchController, t: Strings, id: string): TemplateResult {
  const listId = `${id}-search-list`;
  const query = s.query.trim();
  const row = (n: number) => ({ id: s.rowId(n), selected: s.active === n ? 'true' : 'false' });
  return html`<div
    class="search"
    @focusout=${(e: FocusEvent) => {
      if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node | null)) s.collapse();
    }}
  >
    <input
      part="search"
      type="text"
      role="combobox"
      aria-label=${t.search}
      placeholder=${t.search}
      aria-expanded=${s.expanded ? 'true' : 'false'}
      aria-controls=${listId}
      aria-autocomplete="list"
      aria-activedescendant=${s.expanded ? s.rowId(s.active) : nothing}
      autocomplete="off"
      spellcheck="false"
      enterkeyhint="search"
      .value=${s.query}
      @input=${(e: InputEvent) => s.set((e.target as HTMLInputElement).value)}
      @keydown=${(e: KeyboardEvent) => s.keydown(e)}
    />
    <p class="search-status" role="status">${statusText(s, t)}</p>
    <div role="listbox" id=${listId} aria-label=${t.search} ?hidden=${!s.expanded} @mousedown=${(e: Event) => e.preventDefault()}>
      <div role="option" part="search-ask" id=${row(0).id} aria-selected=${row(0).selected} @click=${() => s.choose(0)}>${format(t.askAi, { query })}</div>
      ${s.groups.map(
        (group, g) => html`<div role="group" aria-labelledby="${id}-search-page-${g}">
          <div role="presentation" class="search-page" id="${id}-search-page-${g}">${group.title}</div>
          ${group.rows.map(
            ({ result, row: n }) => html`<a
              role="option"
              part="search-result"
              id=${row(n).id}
              aria-selected=${row(n).selected}
              href=${result.url}
              tabindex="-1"
              @click=${(e: MouseEvent) => s.clicked(e, result)}
              ><span class="search-section">${result.section || result.title}</span><span class="search-excerpt">${marked(result.excerpt, result.highlights)}</span></a
            >`,
          )}
        </div>`,
      )}
    </div>
  </div>`;
}
