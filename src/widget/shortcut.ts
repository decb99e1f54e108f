/** @module The keys that open the search from anywhere on the page (the `shortcut` attribute). */

/** ⌘K / Ctrl+K, and `/` outside a text field: the keys visitors of docs sites already press. */
export const DEFAULT_SHORTCUT = 'mod+k /';

/**
 * Whether `event` presses one of `shortcut`'s keys: a space-separated list where `mod+k` is ⌘K on
 * a Mac and Ctrl+K elsewhere (either works everywhere) and a key alone (`/`) counts only when the
 * focus is not in a text field (input, textarea, select, contenteditable), where it is typing.
 * `none` (or any word that names no key) matches nothing. A key another handler already took
 * (`defaultPrevented`) is left alone.
 *
 * @example
 * matchesShortcut('mod+j', new KeyboardEvent('keydown', { key: 'j', ctrlKey: true })); // true
 */
export function matchesShortcut(shortcut: string, event: KeyboardEvent): boolean {
  const mod = event.metaKey || event.ctrlKey;
  if (event.defaultPrevented || event.altKey || !shortcut.split(' ').includes((mod ? 'mod+' : '') + event.key.toLowerCase())) return false;
  const target = event.composedPath()[0] as HTMLElement;
  return mod || !(target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}
