/** @module Which link targets an answer, a source or a ticket may point to. */

/** Only http, https and mailto links are followed; anything else renders as text. */
export function safeUrl(href: string): string | null {
  const trimmed = href.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(trimmed)) return null;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : null;
  } catch {
    return null;
  }
}

/** A scheme at the start of a link (`https:`, `javascript:`): the link is not relative. */
const HAS_SCHEME = /^[a-z][a-z\d+.-]*:/i;

/**
 * A source's address as a link: an absolute one as `safeUrl` allows it; a relative one (a site set
 * up without a base URL cites `docs/account#billing`) resolved against the page the widget is on,
 * where the site serves its docs. Null for anything else.
 */
export function sourceUrl(href: string, base: string | undefined = globalThis.document?.baseURI): string | null {
  const trimmed = href.trim();
  if (!trimmed || HAS_SCHEME.test(trimmed) || trimmed.startsWith('//') || !base) return safeUrl(trimmed);
  try {
    return safeUrl(new URL(trimmed, base).href);
  } catch {
    return null;
  }
}
