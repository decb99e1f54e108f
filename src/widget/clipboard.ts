/** @module Copying text from an action button (a code block's, an answer's). */

/** Copies `text`; `button` shows its `data-done` text for a moment (the DOM Lit renders is left alone). */
export function copy(text: string, button: HTMLButtonElement): void {
  void navigator.clipboard?.writeText(text).then(
    () => {
      button.toggleAttribute('data-copied', true);
      setTimeout(() => button.toggleAttribute('data-copied', false), 1500);
    },
    () => undefined,
  );
}
