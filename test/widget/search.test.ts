/**
 * The search field at the top of the panel (issue 38): the ARIA 1.2 combobox with a listbox popup,
 * results as the visitor types (debounced, stale requests aborted), grouped by page with the matched
 * words marked, "Ask AI" asking in chat, the empty and failed states in words, the shortcut keys,
 * `no-search`, `search(q)` and the page context sent with questions.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { page } from 'vitest/browser';
import { fixtureCleanup, oneEvent, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, type Mounted } from './helpers.js';
import { MAX_MARKS, markPieces } from '../../src/widget/templates/search.js';

beforeAll(async () => {
  await page.viewport(1280, 800);
});

// Every widget on the page listens for the shortcut: the last test's leave with it.
afterEach(() => fixtureCleanup());

const field = (m: Mounted) => m.part('search') as HTMLInputElement;
const listbox = (m: Mounted) => m.el.shadowRoot!.querySelector<HTMLElement>('[role="listbox"]')!;
const rows = (m: Mounted) => [...m.el.shadowRoot!.querySelectorAll<HTMLElement>('[role="option"]')];
const searches = async (m: Mounted) => (await m.log()).filter((l) => l.path.startsWith('/search?'));
const statusText = (m: Mounted) => m.el.shadowRoot!.querySelector('.search-status')!.textContent!.trim();

/** Types `text` into the search field as one input event (no debounce wait). */
function type(m: Mounted, text: string): void {
  field(m).value = text;
  field(m).dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
}

function press(m: Mounted, key: string): KeyboardEvent {
  const event = new KeyboardEvent('keydown', { key, bubbles: true, composed: true, cancelable: true });
  field(m).dispatchEvent(event);
  return event;
}

/** An open widget with its search loaded. */
async function opened(behaviour = {}, attrs: Record<string, string | boolean> = {}): Promise<Mounted> {
  const m = await mount(behaviour, attrs);
  m.el.open();
  await m.el.updateComplete;
  await waitUntil(() => field(m), 'the search field did not show');
  return m;
}

async function results(m: Mounted, count: number): Promise<void> {
  await waitUntil(() => m.parts('search-result').length === count, `expected ${count} results, saw ${m.parts('search-result').length}`, { timeout: 5_000 });
  await m.el.updateComplete;
}

describe('the search field', () => {
  it('is a combobox with a listbox popup: Arrow keys move aria-selected and aria-activedescendant, Escape closes the list then the panel', async () => {
    const m = await opened();
    const input = field(m);
    expect(input.getAttribute('role')).toBe('combobox');
    expect(input.getAttribute('aria-expanded')).toBe('false');
    expect(input.getAttribute('aria-label')).toBe('Search the docs');
    const list = listbox(m);
    expect(input.getAttribute('aria-controls')).toBe(list.id);
    expect(list.hidden).toBe(true);
    expect(input.hasAttribute('aria-activedescendant')).toBe(false);

    input.focus();
    type(m, 'reset');
    await results(m, 3);
    expect(input.getAttribute('aria-expanded')).toBe('true');
    expect(list.hidden).toBe(false);
    const all = rows(m);
    expect(all).toHaveLength(4);
    expect(all[0]!.getAttribute('part')).toBe('search-ask');
    expect(all[0]!.textContent!.trim()).toBe('Ask AI: reset');
    const selected = () => rows(m).map((r) => r.getAttribute('aria-selected'));
    expect(selected()).toEqual(['true', 'false', 'false', 'false']);
    expect(input.getAttribute('aria-activedescendant')).toBe(all[0]!.id);

    expect(press(m, 'ArrowDown').defaultPrevented).toBe(true);
    await m.el.updateComplete;
    expect(selected()).toEqual(['false', 'true', 'false', 'false']);
    expect(input.getAttribute('aria-activedescendant')).toBe(all[1]!.id);
    press(m, 'ArrowUp');
    press(m, 'ArrowUp');
    await m.el.updateComplete;
    // From the first row up wraps to the last.
    expect(selected()).toEqual(['false', 'false', 'false', 'true']);
    // Focus never left the field.
    expect(m.el.shadowRoot!.activeElement).toBe(input);

    press(m, 'Escape');
    await m.el.updateComplete;
    expect(input.getAttribute('aria-expanded')).toBe('false');
    expect(list.hidden).toBe(true);
    expect(m.el.opened).toBe(true);
    press(m, 'ArrowDown');
    await m.el.updateComplete;
    expect(input.getAttribute('aria-expanded')).toBe('true');
    press(m, 'Escape');
    await m.el.updateComplete;
    press(m, 'Escape');
    await m.el.updateComplete;
    expect(m.el.opened).toBe(false);
  });

  it('groups results by page and marks the matched words with <mark> from the highlight offsets', async () => {
    const m = await opened();
    type(m, 'reset');
    await results(m, 3);
    const groups = [...m.el.shadowRoot!.querySelectorAll<HTMLElement>('[role="listbox"] [role="group"]')];
    // Two sections of "Account" (ranked 1st and 3rd) under one heading, then "Install".
    expect(groups.map((g) => g.querySelector('.search-page')!.textContent)).toEqual(['Account', 'Install']);
    expect(groups.map((g) => g.querySelectorAll('[part="search-result"]').length)).toEqual([2, 1]);
    const label = m.el.shadowRoot!.getElementById(groups[0]!.getAttribute('aria-labelledby')!);
    expect(label?.textContent).toBe('Account');
    const links = m.parts('search-result') as HTMLAnchorElement[];
    expect(links.map((a) => a.href)).toEqual(['https://docs.example.com/account#reset', 'https://docs.example.com/account#delete', 'https://docs.example.com/install']);
    expect(links.every((a) => a.tabIndex === -1 && a.getAttribute('role') === 'option')).toBe(true);
    // Rows are numbered as shown: Arrow Down walks Account's two sections before Install.
    press(m, 'ArrowDown');
    press(m, 'ArrowDown');
    await m.el.updateComplete;
    expect(field(m).getAttribute('aria-activedescendant')).toBe(links[1]!.id);
    const marks = [...m.el.shadowRoot!.querySelectorAll('[part="search-result"] mark')];
    expect(marks.map((mark) => mark.textContent)).toEqual(['reset', 'reset', 'reset']);
    expect(links[0]!.querySelector('.search-excerpt')!.textContent).toBe('How to reset in a few steps.');
    await expect(m.el).to.be.accessible();
  });

  it('renders a result as text, never HTML, drops links that are not http(s) and resolves relative ones against the page', async () => {
    const m = await opened({
      searchResults: [
        { url: 'javascript:alert(1)', title: 'Bad', section: null, excerpt: 'x', highlights: [] },
        { url: 'https://docs.example.com/a', title: '<img src=x onerror=alert(1)>', section: '<b>bold</b>', excerpt: '<script>1</script> here', highlights: [[0, 8]] },
        // A site set up without a base URL: resolved against the page, as sources are.
        { url: 'docs/api#rate-limits', title: 'API', section: 'Rate limits', excerpt: 'x', highlights: [] },
      ],
    });
    type(m, 'anything');
    await results(m, 2);
    expect((m.parts('search-result')[1] as HTMLAnchorElement).href).toBe(new URL('docs/api#rate-limits', document.baseURI).href);
    const link = m.parts('search-result')[0]!;
    expect(link.querySelector('img, b, script')).toBeNull();
    expect(link.querySelector('.search-section')!.textContent).toBe('<b>bold</b>');
    expect(link.querySelector('mark')!.textContent).toBe('<script>');
  });

  it('searches once typing pauses, not at every keystroke', async () => {
    const m = await opened();
    // Counted as the browser sends them: a request aborted at once may never reach the proxy's log.
    const fetches = vi.spyOn(window, 'fetch');
    try {
      for (const prefix of ['r', 're', 'res', 'rese', 'reset']) type(m, prefix);
      await results(m, 3);
      await new Promise((r) => setTimeout(r, 300));
      const sent = fetches.mock.calls.map(([url]) => String(url)).filter((url) => url.includes('/search?'));
      expect(sent.map((url) => new URL(url).searchParams.get('q'))).toEqual(['reset']);
    } finally {
      fetches.mockRestore();
    }
    expect((await searches(m)).map((l) => new URLSearchParams(l.path.split('?')[1]).get('q'))).toEqual(['reset']);
  });

  it('aborts a search still on its way when the query changes, and never shows its results', async () => {
    const m = await opened({ searchDelayMs: 1_500 });
    type(m, 'install');
    await waitUntil(async () => (await searches(m)).length === 1, 'the first search did not go out');
    await m.control({ searchDelayMs: 0 });
    type(m, 'reset');
    await results(m, 3);
    await waitUntil(async () => (await searches(m))[0]!.aborted === true, 'the stale search was not aborted');
    const log = await searches(m);
    expect(log.map((l) => [new URLSearchParams(l.path.split('?')[1]).get('q'), l.aborted ?? false])).toEqual([
      ['install', true],
      ['reset', false],
    ]);
    await new Promise((r) => setTimeout(r, 1_700));
    await m.el.updateComplete;
    expect(rows(m)[0]!.textContent!.trim()).toBe('Ask AI: reset');
    expect(m.parts('search-result').map((r) => r.querySelector('mark')!.textContent)).toEqual(['reset', 'reset', 'reset']);
  });

  it('sends the page it is on with every search', async () => {
    const m = await opened();
    type(m, 'reset');
    await results(m, 3);
    const [request] = await searches(m);
    const params = new URLSearchParams(request!.path.split('?')[1]);
    expect(params.get('page_url')).toBe(location.href);
    expect(params.get('limit')).toBe('8');
  });

  it('counts the query in characters as the API does: 600 emoji are searched by their first 500, never refused by the field', async () => {
    const m = await opened();
    const field = m.parts('search')[0] as HTMLInputElement;
    expect(field.hasAttribute('maxlength')).toBe(false);
    type(m, `${'😀'.repeat(600)} `);
    await waitUntil(async () => (await searches(m)).length === 1, 'the search did not go out');
    const [request] = await searches(m);
    expect(new URLSearchParams(request!.path.split('?')[1]).get('q')).toBe('😀'.repeat(500));
    expect(field.value).toBe(`${'😀'.repeat(600)} `);
  });

  it('says so in words when nothing matches, and when the search fails (429)', async () => {
    const m = await opened({ searchResults: [] });
    const status = m.el.shadowRoot!.querySelector('.search-status')!;
    expect(status.getAttribute('role')).toBe('status');
    type(m, 'zebra');
    await waitUntil(() => statusText(m) !== '', 'no empty state');
    expect(statusText(m)).toBe('No pages match “zebra”.');
    expect(m.parts('search-result')).toHaveLength(0);
    // "Ask AI" is still offered.
    expect(rows(m).map((r) => r.textContent!.trim())).toEqual(['Ask AI: zebra']);

    await m.control({ failNext: [429] });
    type(m, 'zebras');
    await waitUntil(() => statusText(m).startsWith('Search failed'), 'no failed state');
    expect(statusText(m)).toBe('Search failed. Too many requests. Please wait a moment.');
    await expect(m.el).to.be.accessible();
  });

  it('asks the query in chat from the "Ask AI" row (Enter), with the page it is on', async () => {
    const m = await opened({ answerDelayMs: 50 });
    field(m).focus();
    type(m, 'How do I reset my password?');
    await results(m, 3);
    press(m, 'Enter');
    await m.answered();
    const post = (await m.log()).find((l) => l.method === 'POST' && l.path === '/chat')!;
    expect(JSON.parse(post.body)).toEqual({ message: 'How do I reset my password?', context: { page_url: location.href, page_title: document.title } });
    expect(field(m).value).toBe('');
    expect(field(m).getAttribute('aria-expanded')).toBe('false');
    expect(m.parts('message')[0]!.textContent).toContain('How do I reset my password?');
  });

  it('asks from a click on the "Ask AI" row', async () => {
    const m = await opened({ answerDelayMs: 50 });
    type(m, 'install on linux');
    await results(m, 3);
    m.part('search-ask')!.click();
    await m.answered();
    expect(JSON.parse((await m.log()).find((l) => l.method === 'POST')!.body).message).toBe('install on linux');
  });

  it('opens the selected result on Enter and on a click, with support-chat-result-click (cancelable)', async () => {
    const m = await opened();
    type(m, 'reset');
    await results(m, 3);
    press(m, 'ArrowDown');
    await m.el.updateComplete;
    // Cancelled here so the test page stays; not cancelled, the widget follows the link in this tab.
    const clicked = new Promise<CustomEvent>((resolve) =>
      m.el.addEventListener('support-chat-result-click', (e) => {
        e.preventDefault();
        resolve(e);
      }),
    );
    const enter = press(m, 'Enter');
    const event = await clicked;
    expect(enter.defaultPrevented).toBe(true);
    expect(event.cancelable && event.bubbles && event.composed).toBe(true);
    expect(event.detail.query).toBe('reset');
    expect(event.detail.result.url).toBe('https://docs.example.com/account#reset');

    const second = oneEvent(m.el, 'support-chat-result-click');
    const link = m.parts('search-result')[2] as HTMLAnchorElement;
    const click = new MouseEvent('click', { bubbles: true, composed: true, cancelable: true });
    link.dispatchEvent(click);
    expect((await second).detail.result.url).toBe('https://docs.example.com/install');
    // The page took it: the link was not followed.
    expect(click.defaultPrevented).toBe(true);
  });

  it('fires support-chat-search with the results, and search(q) opens the panel with the query searched', async () => {
    const m = await mount();
    const searched = oneEvent(m.el, 'support-chat-search');
    await m.el.search('install');
    expect(m.el.opened).toBe(true);
    expect(m.el.shadowRoot!.activeElement).toBe(field(m));
    expect(field(m).value).toBe('install');
    const event = await searched;
    expect(event.detail.query).toBe('install');
    expect(event.detail.results).toHaveLength(3);
  });
});

describe('the shortcut keys', () => {
  const key = (init: KeyboardEventInit, target: EventTarget = document.body) => {
    const event = new KeyboardEvent('keydown', { bubbles: true, composed: true, cancelable: true, ...init });
    target.dispatchEvent(event);
    return event;
  };
  const focused = (m: Mounted) => waitUntil(() => m.el.shadowRoot!.activeElement === field(m), 'the search field has no focus', { timeout: 5_000 });

  it('opens the panel with focus in the search field on Ctrl+K and ⌘K, from anywhere on the page', async () => {
    const m = await mount();
    expect(key({ key: 'k', ctrlKey: true }).defaultPrevented).toBe(true);
    await focused(m);
    expect(m.el.opened).toBe(true);
    m.el.close();
    await m.el.updateComplete;
    key({ key: 'K', metaKey: true, shiftKey: true });
    await focused(m);
  });

  it('opens on "/" outside text fields only', async () => {
    const m = await mount();
    const input = document.createElement('input');
    const editable = document.createElement('div');
    editable.contentEditable = 'true';
    document.body.append(input, editable);
    try {
      for (const target of [input, editable]) {
        target.focus();
        expect(key({ key: '/' }, target).defaultPrevented).toBe(false);
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(m.el.opened).toBe(false);
      (document.activeElement as HTMLElement).blur();
      expect(key({ key: '/' }).defaultPrevented).toBe(true);
      await focused(m);
    } finally {
      input.remove();
      editable.remove();
    }
  });

  it('takes other keys from the shortcut attribute, or none', async () => {
    const m = await mount({}, { shortcut: 'mod+j' });
    expect(key({ key: 'k', ctrlKey: true }).defaultPrevented).toBe(false);
    expect(key({ key: '/' }).defaultPrevented).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(m.el.opened).toBe(false);
    key({ key: 'j', ctrlKey: true });
    await focused(m);

    m.el.close();
    m.el.shortcut = 'none';
    await m.el.updateComplete;
    for (const init of [{ key: 'k', ctrlKey: true }, { key: 'j', ctrlKey: true }, { key: '/' }]) expect(key(init).defaultPrevented).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(m.el.opened).toBe(false);
  });

  it('leaves a key another handler already took alone', async () => {
    const m = await mount();
    const takeIt = (e: Event) => e.preventDefault();
    document.body.addEventListener('keydown', takeIt);
    try {
      key({ key: 'k', ctrlKey: true });
      await new Promise((r) => setTimeout(r, 100));
      expect(m.el.opened).toBe(false);
    } finally {
      document.body.removeEventListener('keydown', takeIt);
    }
  });
});

describe('no-search', () => {
  it('shows no search field and takes no shortcut', async () => {
    const m = await mount({}, { 'no-search': true });
    m.el.open();
    await m.el.updateComplete;
    expect(m.part('search')).toBeNull();
    m.el.close();
    await m.el.updateComplete;
    const event = new KeyboardEvent('keydown', { key: 'k', ctrlKey: true, bubbles: true, cancelable: true });
    document.body.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(false);
    await m.el.search('install');
    expect(m.el.opened).toBe(false);
    expect((await m.log()).some((l) => l.path.startsWith('/search'))).toBe(false);
  });
});

describe('page context', () => {
  it("sends the page's URL and title with a question, and ask()'s selection (first 1,000 characters, an emoji one) with that one question", async () => {
    const m = await mount({ answerDelayMs: 20 }, { mode: 'inline' });
    const selection = '😀'.repeat(1_200);
    await m.el.ask('What does this mean?', { selection });
    await m.answered();
    await m.el.ask('And this?');
    await m.answered(2);
    const [first, second] = (await m.log()).filter((l) => l.method === 'POST').map((l) => JSON.parse(l.body));
    expect(first.context.page_url).toBe(location.href);
    expect(first.context.page_title).toBe(document.title);
    expect([...first.context.selection]).toHaveLength(1_000);
    expect(first.context.selection).toBe('😀'.repeat(1_000));
    expect(second.context).toEqual({ page_url: location.href, page_title: document.title });
  });
});

describe('markPieces', () => {
  it('cuts marks from offsets: sorted, clipped, overlaps merged, malformed ones skipped', () => {
    expect(markPieces('Reset your password', [[6, 10]])).toEqual([{ text: 'Reset ' }, { text: 'your', mark: true }, { text: ' password' }]);
    expect(markPieces('abcdef', [[4, 99], [0, 2], [1, 3], ['x', 1], [5, 5], null])).toEqual([{ text: 'ab', mark: true }, { text: 'c', mark: true }, { text: 'd' }, { text: 'ef', mark: true }]);
    expect(markPieces('abc', 'nonsense')).toEqual([{ text: 'abc' }]);
    expect(markPieces('', [])).toEqual([{ text: '' }]);
  });

  it('snaps offsets inside a surrogate pair out to whole code points: a mark never splits an emoji', () => {
    // "🚀" is two UTF-16 units at 4 and 5; "𠜎" at 12 and 13.
    const text = 'Go! 🚀 fast 𠜎 ok';
    expect(markPieces(text, [[5, 6]])).toEqual([{ text: 'Go! ' }, { text: '🚀', mark: true }, { text: ' fast 𠜎 ok' }]);
    expect(markPieces(text, [[4, 5]])).toEqual([{ text: 'Go! ' }, { text: '🚀', mark: true }, { text: ' fast 𠜎 ok' }]);
    expect(markPieces(text, [[7, 13]])).toEqual([{ text: 'Go! 🚀 ' }, { text: 'fast 𠜎', mark: true }, { text: ' ok' }]);
    expect(markPieces(text, [[13, 17]])).toEqual([{ text: 'Go! 🚀 fast ' }, { text: '𠜎 ok', mark: true }]);
    // Every piece of every cut is well-formed text, whatever the offsets.
    for (let start = 0; start <= text.length; start++)
      for (let end = start; end <= text.length; end++) {
        const pieces = markPieces(text, [[start, end]]);
        expect(pieces.map((p) => p.text).join('')).toBe(text);
        // A lone surrogate is what `encodeURIComponent` refuses.
        for (const piece of pieces) expect(() => encodeURIComponent(piece.text), `[${start}, ${end}]`).not.toThrow();
      }
  });

  it('stays bounded whatever the server sends: 200,000 highlights over 1 MB, nested or side by side', () => {
    const text = 'a'.repeat(1_000_000);
    const nested = Array.from({ length: 200_000 }, (_, i) => [i, 1_000_000 - i]);
    const apart = Array.from({ length: 200_000 }, (_, i) => [2 * i, 2 * i + 1]);
    for (const highlights of [nested, apart]) {
      const started = performance.now();
      const pieces = markPieces(text, highlights);
      expect(performance.now() - started).toBeLessThan(200);
      // At most MAX_MARKS marks, however many came: the rest of the text stays plain.
      expect(pieces.filter((p) => p.mark).length).toBeLessThanOrEqual(MAX_MARKS);
      expect(pieces.map((p) => p.text).join('')).toBe(text);
    }
  });
});
