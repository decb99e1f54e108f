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
