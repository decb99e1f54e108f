/**
 * The widget on a docs site (issue 47): ⌘K opens a search dialog sized for results, "Searching…"
 * while a search is slow, `SupportChat('search', q)`, a `?ask=` deep link, the site's colour mode
 * on `<html>`, and `support-chat-navigate` before a page of the site is opened.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { page } from 'vitest/browser';
import { waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, type Mounted } from './helpers.js';

const field = (m: Mounted) => m.part('search') as HTMLInputElement | null;
const statusOf = (m: Mounted) => m.el.shadowRoot!.querySelector<HTMLElement>('.search-status')!;

/** Eight sections of four pages of this site, each excerpt two lines or more at the dialog's width. */
const RESULTS = Array.from({ length: 8 }, (_, i) => ({
  url: `${location.origin}/docs/page-${Math.floor(i / 2)}#section-${i}`,
  title: `Page ${Math.floor(i / 2)}`,
  section: `Section ${i}`,
  excerpt: `Install the command line tool with your package manager, then sign in with your account and choose the workspace the project belongs to; the tool remembers it for next time (${i}).`,
  highlights: [[12, 24]],
}));

afterEach(() => {
  delete document.documentElement.dataset.theme;
  document.documentElement.classList.remove('dark');
});

describe('the search dialog', () => {
  it('opens from the shortcut as a dialog showing at least six whole results on a 1280×800 screen; Ask AI goes on in the chat panel', async () => {
    await page.viewport(1280, 800);
    const m = await mount({ searchResults: RESULTS });
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true, bubbles: true, cancelable: true }));
    await waitUntil(() => field(m), 'the search field did not show');
    await m.el.updateComplete;
    const panel = m.part('panel')!;
    expect(panel.classList.contains('dialog')).toBe(true);
    field(m)!.value = 'install';
    field(m)!.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
    await waitUntil(() => m.parts('search-result').length === 8, 'no results', { timeout: 5_000 });
    await m.el.updateComplete;
    // Whole results within the screen and within the list's scrolled view.
    const list = m.el.shadowRoot!.querySelector<HTMLElement>('[role="listbox"]')!.getBoundingClientRect();
    const inView = m.parts('search-result').filter((r) => {
      const box = r.getBoundingClientRect();
      return box.top >= Math.max(0, list.top) && box.bottom <= Math.min(innerHeight, list.bottom) && box.height > 0;
    });
    expect(inView.length).toBeGreaterThanOrEqual(6);
    // No chat below the results.
    expect(m.part('messages')!.getBoundingClientRect().height).toBe(0);
    expect(m.part('composer')!.getBoundingClientRect().height).toBe(0);
    await expect(m.el).to.be.accessible();
    // Ask AI: the same panel becomes the chat, with the question asked.
    (m.part('search-ask') as HTMLElement).click();
    await m.el.updateComplete;
    expect(panel.classList.contains('dialog')).toBe(false);
    await m.answered();
    expect(m.part('composer')!.getBoundingClientRect().height).toBeGreaterThan(0);
  });

  it('opens the chat panel, not the dialog, from the launcher', async () => {
    const m = await mount();
    await m.el.search();
    m.el.close();
    await m.el.updateComplete;
    m.part('launcher')!.click();
    await m.el.updateComplete;
    expect(m.part('panel')!.classList.contains('dialog')).toBe(false);
  });
});

describe('searching…', () => {
  it.each([
    ['en', 'Searching…'],
    ['es', 'Buscando…'],
    ['fr', 'Recherche en cours…'],
    ['ar', 'جارٍ البحث…'],
  ])('says "%s: %s" in a live region while a slow search is under way, and the results once they come', async (lang, searching) => {
    const m = await mount({ searchDelayMs: 1_500, searchResults: [] }, { lang });
    await m.el.search('install');
    const status = statusOf(m);
    // role="status": a polite live region.
    expect(status.getAttribute('role')).toBe('status');
    await waitUntil(() => status.textContent!.trim() === searching, `no "${searching}"`, { timeout: 3_000 });
    await waitUntil(() => status.textContent!.trim() !== searching, 'still searching', { timeout: 5_000 });
    expect(status.textContent!.trim()).not.toBe('');
  });

  it('says nothing for a quick search', async () => {
    const m = await mount();
    const seen: string[] = [];
    await m.el.search('install');
    const observer = new MutationObserver(() => seen.push(statusOf(m).textContent!.trim()));
    observer.observe(statusOf(m), { childList: true, characterData: true, subtree: true });
    await waitUntil(() => m.parts('search-result').length === 3, 'no results', { timeout: 5_000 });
    await new Promise((done) => setTimeout(done, 400));
    observer.disconnect();
    expect(seen).not.toContain('Searching…');
  });
});

describe('commands and links', () => {
  it("SupportChat('search', q) opens the search with the query; an unknown command is warned about", async () => {
    const m = await mount();
    m.el.dataset.auto = '';
    await import('../../src/widget/auto.js');
    const run = (window as unknown as { SupportChat: (...args: unknown[]) => void }).SupportChat;
    run('search', 'install');
    await waitUntil(() => field(m)?.value === 'install', 'the query is not in the field', { timeout: 5_000 });
    expect(m.el.opened).toBe(true);
    await waitUntil(() => m.parts('search-result').length === 3, 'no results', { timeout: 5_000 });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      run('serch', 'install');
      expect(warn).toHaveBeenCalledWith('SupportChat: unknown command', 'serch');
    } finally {
      warn.mockRestore();
    }
  });

  it('asks the question of a ?ask= deep link once, and takes it out of the URL', async () => {
    const before = location.href;
    history.replaceState(history.state, '', `${location.pathname}?keep=1&ask=${encodeURIComponent('How do I install it?')}${location.hash}`);
    try {
      const m = await mount({ answerDelayMs: 10 });
      await m.answered();
      const posts = (await m.log()).filter((l) => l.method === 'POST');
      expect(posts.map((p) => (JSON.parse(p.body) as { message: string }).message)).toEqual(['How do I install it?']);
      expect(new URL(location.href).searchParams.get('ask')).toBeNull();
      expect(new URL(location.href).searchParams.get('keep')).toBe('1');
      expect(m.el.opened).toBe(true);
    } finally {
      history.replaceState(history.state, '', before);
    }
  });

  it('fires support-chat-navigate (cancelable, composed) before opening a result or a source of this site; cancelled, it does not navigate', async () => {
    const m = await mount({ searchResults: RESULTS, answerDelayMs: 10, sources: [{ title: 'Install', url: `${location.origin}/docs/install` }] });
    const urls: string[] = [];
    const router = (e: CustomEvent<{ url: string }>) => {
      expect(e.cancelable && e.bubbles && e.composed).toBe(true);
      urls.push(e.detail.url);
      e.preventDefault();
    };
    document.addEventListener('support-chat-navigate', router);
    const here = location.href;
    try {
      await m.el.search('install');
      await waitUntil(() => m.parts('search-result').length === 8, 'no results', { timeout: 5_000 });
      const click = new MouseEvent('click', { bubbles: true, composed: true, cancelable: true });
      m.parts('search-result')[1]!.dispatchEvent(click);
      expect(click.defaultPrevented).toBe(true);
      expect(urls).toEqual([RESULTS[1]!.url]);
      await m.el.ask('How do I install it?');
      await m.answered();
      await m.el.updateComplete;
      const source = new MouseEvent('click', { bubbles: true, composed: true, cancelable: true });
      m.part('source')!.dispatchEvent(source);
      expect(source.defaultPrevented).toBe(true);
      expect(urls).toEqual([RESULTS[1]!.url, `${location.origin}/docs/install`]);
      expect(location.href).toBe(here);
    } finally {
      document.removeEventListener('support-chat-navigate', router);
    }
  });
});

describe('the site’s colour mode', () => {
  const background = (m: Mounted) => getComputedStyle(m.part('panel')!).backgroundColor;
  const DARK = 'rgb(23, 26, 35)';
  const LIGHT = 'rgb(255, 255, 255)';

  it('follows <html data-theme> (Docusaurus, Starlight) and <html class="dark"> (VitePress) with theme="auto", the page winning over the system', async () => {
    await page.viewport(1280, 800);
    const m = await mount({}, { theme: 'auto' });
    m.el.open();
    await m.el.updateComplete;
    const system = background(m);
    const root = document.documentElement;
    root.dataset.theme = 'dark';
    await waitUntil(() => background(m) === DARK, 'not dark with data-theme="dark"');
    root.dataset.theme = 'light';
    await waitUntil(() => background(m) === LIGHT, 'not light with data-theme="light"');
    delete root.dataset.theme;
    await waitUntil(() => background(m) === system, 'not back to the system’s mode');
    root.classList.add('dark');
    await waitUntil(() => background(m) === DARK, 'not dark with class="dark"');
    root.classList.remove('dark');
    await waitUntil(() => background(m) === LIGHT, 'not light once the class went');
    // An explicit theme is the site owner's choice.
    m.el.theme = 'light';
    root.dataset.theme = 'dark';
    await m.el.updateComplete;
    expect(background(m)).toBe(LIGHT);
  });
});
