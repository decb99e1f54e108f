/**
 * @module The page's own colour mode as a reactive controller: docs sites switch it on `<html>`,
 * as `data-theme="dark|light"` (Docusaurus, Starlight) or the class `dark` (VitePress), and the
 * widget follows it, watched with a MutationObserver. The host's `data-page-theme` attribute says
 * what was found, and the styles let it win over the system's setting for `theme="auto"`.
 */
import type { ReactiveController, ReactiveElement } from 'lit';

/** The mode `<html>` declares: its `data-theme`, else `dark` for the class `dark` (and `light` once that class has come and gone), else none. */
function pageTheme(root: HTMLElement, classSeen: boolean): string | null {
  const theme = root.dataset.theme;
  if (theme === 'dark' || theme === 'light') return theme;
  return root.classList.contains('dark') ? 'dark' : classSeen ? 'light' : null;
}

export class PageThemeController implements ReactiveController {
  private readonly _host: ReactiveElement;
  private _observer?: MutationObserver;
  /** A class-toggling site (VitePress) removes `dark` for light: once seen, its absence is a choice. */
  private _classSeen = false;

  constructor(host: ReactiveElement) {
    this._host = host;
    host.addController(this);
  }

  hostConnected(): void {
    const root = document.documentElement;
    const follow = () => {
      this._classSeen ||= root.classList.contains('dark');
      const theme = pageTheme(root, this._classSeen);
      if (theme) this._host.dataset.pageTheme = theme;
      else delete this._host.dataset.pageTheme;
    };
    follow();
    (this._observer = new MutationObserver(follow)).observe(root, { attributeFilter: ['data-theme', 'class'] });
  }

  hostDisconnected(): void {
    this._observer?.disconnect();
  }
}
