/** @module Keeping keyboard focus inside a modal panel (the launcher's full-screen panel on phones). */

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The elements of `root` that Tab reaches, in order: enabled, rendered and not hidden. */
export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0 && !el.closest('[hidden], [inert]'));
}

/**
 * Handles Tab and Shift+Tab in a modal `panel`: from its last element focus wraps to its first and
 * back, so nothing behind the panel is reached. `active` is the focused element in the panel's root.
 */
export function trapTab(event: KeyboardEvent, panel: HTMLElement, active: Element | null): void {
  if (event.key !== 'Tab') return;
  const items = focusables(panel);
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) return;
  const inside = !!active && panel.contains(active);
  if (event.shiftKey && (active === first || !inside)) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !inside)) {
    event.preventDefault();
    first.focus();
  }
}
