/**
 * @module The search as a reactive controller: the query, results as the visitor types (debounced,
 * each stale request aborted), the active row of the ARIA 1.2 combobox, and what choosing a row does
 * (the first row asks the query in chat; the others open their page).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ProxyClient, SearchResult } from '../client.js';
import { clipCharacters } from '../../protocol/input.js';
import { SEARCH_LIMIT_DEFAULT, SEARCH_QUERY_MAX_LENGTH } from '../../protocol/limits.js';
import { sourceUrl } from '../safe-url.js';

/** Quiet time after the last keystroke before a search goes out, ms: one request per pause, not per key. */
export const SEARCH_DEBOUNCE_MS = 150;
/**
 * How long a search is out before "Searching…" shows (and is announced), ms: a quick answer (most
 * come from the proxy's cache) never flickers it; a slow one (the first after the API started can
 * take seconds) no longer looks like nothing matched.
 */
export const SEARCHING_AFTER_MS = 300;

/** One page's rows: its title and its sections, each with its row number (1… after "Ask AI"). */
export interface SearchGroup {
  title: string;
  rows: { result: SearchResult; row: number }[];
}

/** The page a result is on (its URL without the fragment): results are grouped by it. */
const pageOf = (result: SearchResult) => result.url.split('#')[0]!;

/**
 * Results grouped by page, the pages in the order of their best result and the sections of each in
 * rank order; rows are numbered in that order, so the arrow keys walk the list as it is shown.
 */
export function groupByPage(results: SearchResult[]): SearchGroup[] {
  const pages = new Map<string, SearchGroup>();
  for (const result of results) {
    const key = pageOf(result);
    let group = pages.get(key);
    if (!group) pages.set(key, (group = { title: result.title, rows: [] }));
    group.rows.push({ result, row: 0 });
  }
  const groups = [...pages.values()];
  let row = 0;
  for (const group of groups) for (const r of group.rows) r.row = ++row;
  return groups;
}

export interface SearchOptions {
  /** Prefix of the rows' ids (`<prefix>-row-<n>`), unique in the page. */
  id: string;
  /** The proxy client (the conversation's: it carries the visitor's token). */
  client(): ProxyClient;
  /**
   * Why a search failed, in the widget's language. The element's: this module is loaded apart from
   * the bundle, so its own copy of the error classes would not recognize the client's errors.
   */
  describe(error: unknown): string;
}

export interface SearchEvents {
  /** Results for `query` arrived. */
  searched(query: string, results: SearchResult[]): void;
  /** The visitor chose the "Ask AI" row. */
  ask(query: string): void;
  /** The visitor opens `result` (Enter, or a click on its link); false when the page handled it (the event was cancelled). */
  opening(result: SearchResult, query: string): boolean;
}

/** Where the search stands: nothing asked, waiting (debounce or request), results in, or failed. */
export type SearchState = 'idle' | 'loading' | 'done' | 'failed';

export class SearchController implements ReactiveController {
  /** What is in the field. */
  query = '';
  /** The results for the last query that answered (the one in the field: stale ones are aborted), grouped by page. */
  groups: SearchGroup[] = [];
  /** The same results in row order (row n is `results[n - 1]`). */
  results: SearchResult[] = [];
  state: SearchState = 'idle';
  /** Why the last search failed, in words (the widget's language). */
  error = '';
  /** The active row: 0 is "Ask AI", 1… the results in order. */
  active = 0;
  /** Whether the list shows (the field has a query and Escape has not closed it). */
  expanded = false;
  /** A search has been out for `SEARCHING_AFTER_MS` and has not answered yet. */
  searching = false;

  private readonly _host: ReactiveControllerHost;
  private readonly _options: SearchOptions;
  private readonly _events: SearchEvents;
  private _timer?: ReturnType<typeof setTimeout>;
  private _slow?: ReturnType<typeof setTimeout>;
  private _abort?: AbortController;

  constructor(host: ReactiveControllerHost, options: SearchOptions, events: SearchEvents) {
    this._host = host;
    this._options = options;
    this._events = events;
    host.addController(this);
  }

  hostDisconnected(): void {
    this._cancel();
  }

  /** Stops the pending search: its timer, and its request if it went out (a stale answer is never shown). */
  private _cancel(): void {
    clearTimeout(this._timer);
    clearTimeout(this._slow);
    this.searching = false;
    this._abort?.abort();
    this._abort = undefined;
  }

  /** The field changed: the list opens on the new query, searched once typing pauses. */
  set(query: string): void {
    this.query = query;
    this.active = 0;
    this._cancel();
    // No `maxlength` on the field (browsers count UTF-16 units): a query past the API's bound is searched by its first characters.
    const q = clipCharacters(query.trim(), SEARCH_QUERY_MAX_LENGTH);
    this.expanded = !!q;
    this.state = q ? 'loading' : 'idle';
    if (!q) this._show([]);
    else this._timer = setTimeout(() => void this._run(q), SEARCH_DEBOUNCE_MS);
    this._host.requestUpdate();
  }

  private async _run(q: string): Promise<void> {
    const abort = (this._abort = new AbortController());
    this._slow = setTimeout(() => {
      this.searching = true;
      this._host.requestUpdate();
    }, SEARCHING_AFTER_MS);
    try {
      const results = await this._options.client().search(q, SEARCH_LIMIT_DEFAULT, abort.signal);
      if (abort.signal.aborted) return;
      // Only pages a link may open (http, https; a relative address resolved against this page, as sources are): anything else is dropped.
      this._show(
        (Array.isArray(results) ? results : []).flatMap((r) => {
          const url = sourceUrl(String(r.url));
          return url && !url.startsWith('mailto:') ? [{ ...r, url }] : [];
        }),
      );
      this.state = 'done';
      this._events.searched(q, this.results);
    } catch (error) {
      if (abort.signal.aborted) return;
      this._show([]);
      this.state = 'failed';
      this.error = this._options.describe(error);
    }
    clearTimeout(this._slow);
    this.searching = false;
    this.active = Math.min(this.active, this.results.length);
    this._host.requestUpdate();
  }

  private _show(results: SearchResult[]): void {
    this.groups = groupByPage(results);
    this.results = this.groups.flatMap((g) => g.rows.map((r) => r.result));
  }

  /** The id of row `row` (for `aria-activedescendant`). */
  rowId(row: number): string {
    return `${this._options.id}-row-${row}`;
  }

  /** A click on a result's link: the page may take it (the event cancelled), else the link is followed. */
  clicked(event: MouseEvent, result: SearchResult): void {
    if (!this._events.opening(result, this.query.trim())) event.preventDefault();
  }

  /** Closes the list (the query stays; typing or Arrow Down opens it again). */
  collapse(): void {
    if (!this.expanded) return;
    this.expanded = false;
    this._host.requestUpdate();
  }

  /** Chooses row `index`: "Ask AI" asks the query; a result opens its page in this tab. */
  choose(index: number): void {
    const q = this.query.trim();
    if (!q) return;
    const result = this.results[index - 1];
    if (index === 0) {
      this._cancel();
      this.set('');
      this._events.ask(q);
    } else if (result && this._events.opening(result, q)) location.assign(result.url);
  }

  /** Keys in the field: the combobox pattern (Arrow keys move, Enter chooses, Escape closes the list). */
  keydown(event: KeyboardEvent): void {
    const rows = this.results.length + 1;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!this.query.trim()) return;
      event.preventDefault();
      if (!this.expanded) this.expanded = true;
      else this.active = (this.active + (event.key === 'ArrowDown' ? 1 : rows - 1)) % rows;
      this._host.requestUpdate();
      // The active row scrolls into view (focus stays in the field).
      const root = (event.target as Element).getRootNode() as ShadowRoot;
      void this._host.updateComplete.then(() => root.getElementById?.(this.rowId(this.active))?.scrollIntoView({ block: 'nearest' }));
    } else if (event.key === 'Enter' && this.expanded && !event.isComposing) {
      event.preventDefault();
      this.choose(this.active);
    } else if (event.key === 'Escape' && this.expanded) {
      // The list closes; a second Escape reaches the panel, which closes.
      event.stopPropagation();
      this.collapse();
    }
  }
}
