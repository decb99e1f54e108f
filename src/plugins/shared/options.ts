/** @module What every docs-site plugin accepts, and the widget's script tag it adds to each page. */

export interface SupportChatPluginOptions {
  /**
   * Where the widget sends visitors' questions: the proxy's path on the site (the dev server mounts
   * the proxy there), or the full URL of a proxy elsewhere.
   * @default '/api/support'
   */
  endpoint?: string;
  /**
   * Keep the generator's own search in the navbar (and on ⌘K); the widget then opens with `shortcut`.
   * @default false: the widget's search takes the navbar's search place and ⌘K
   */
  keepSearch?: boolean;
  /** The widget's keys (its `shortcut` attribute). @default 'mod+k /', or 'mod+j' with `keepSearch` */
  shortcut?: string;
  /** Any other attribute of the `<support-chat>` element, by its name (`lang`, `mode`, `launcher-label`, …). */
  attributes?: Record<string, string>;
  /** Write `llms.txt` and `llms-full.txt` into the build output. @default true */
  llmsTxt?: boolean;
  /**
   * The folder holding the `.env` that `support-chat-kit init` wrote, for the dev server's proxy.
   * @default the generator's working directory, else the site's root
   */
  envDir?: string;
}

/** The folder, under the site's base path, that the widget's files are served from. */
export const ASSET_FOLDER = 'support-chat';

export const DEFAULT_ENDPOINT = '/api/support';

/** A base path as `/` or `/proj/`: leading and trailing slash. */
export function normalizeBase(base: string | undefined): string {
  const trimmed = (base ?? '/').trim();
  const withLead = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  return withLead.endsWith('/') ? withLead : `${withLead}/`;
}

/** The widget's script tag's attributes: its `src` under `base`, the endpoint, and every element attribute as `data-*`. */
export function scriptAttributes(base: string, options: SupportChatPluginOptions): Record<string, string> {
  const attributes: Record<string, string> = { src: `${normalizeBase(base)}${ASSET_FOLDER}/support-chat.iife.js`, 'data-endpoint': options.endpoint ?? DEFAULT_ENDPOINT };
  const shortcut = options.shortcut ?? (options.keepSearch ? 'mod+j' : undefined);
  if (shortcut !== undefined) attributes['data-shortcut'] = shortcut;
  for (const [name, value] of Object.entries(options.attributes ?? {})) {
    const key = name.startsWith('data-') ? name : `data-${name}`;
    if (key === 'data-endpoint' || key === 'data-shortcut') throw new TypeError(`support-chat-kit: set ${key.slice(5)} as its own option, not in attributes`);
    attributes[key] = value;
  }
  return attributes;
}
