/**
 * @module Where the reader is: the page a question or search comes from (`page_url`) weighs its
 * own sections and its neighbours' (pages under the same path) in the ranking. A boost added to
 * a section's score, never a filter: a question about something else still finds it elsewhere.
 */

/**
 * What a section gains (added to its normalised score, where the best match by words scores 1):
 * on the reader's page, and on a page beside it. Enough to decide between sections that match a
 * question alike ("how do I install it?" on the CLI's pages and on the desktop app's), too little
 * to lift a section that matches far less of it.
 */
export const PAGE_BOOST = { samePage: 0.3, neighbour: 0.2 };

/** A page as the boost compares it: its path's segments, without a trailing `index.html` or `.html`. */
export interface PagePlace {
  segments: string[];
}

/** The path segments of a URL (absolute, or relative as a knowledge base ingested without a base URL stores it); null when it cannot be read as one. */
function segmentsOf(url: string): string[] | null {
  const parsed = URL.parse(url, 'http://relative.invalid/');
  if (!parsed) return null;
  const segments = parsed.pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  if (last === 'index.html' || last === 'index') segments.pop();
  else if (last?.endsWith('.html')) segments[segments.length - 1] = last.slice(0, -'.html'.length);
  return segments;
}

/** The reader's page, read once per query; null when `pageUrl` is absent or not a URL. */
export function pagePlace(pageUrl: string | undefined): PagePlace | null {
  if (!pageUrl) return null;
  const segments = segmentsOf(pageUrl);
  return segments ? { segments } : null;
}

/**
 * What a section at `sectionUrl` gains for a reader on `place`: `samePage` on that page,
 * `neighbour` on another page under the same folder (all of the reader's page's path but its last
 * segment), else nothing. A page at the root has no neighbours.
 *
 * @example
 * pageBoost('https://docs.example/cli/install#npm', pagePlace('https://docs.example/cli/commands')!); // 0.2
 */
export function pageBoost(sectionUrl: string, place: PagePlace): number {
  const section = segmentsOf(sectionUrl);
  if (!section) return 0;
  const page = place.segments;
  const folder = page.length - 1;
  if (section.length === page.length && page.every((segment, i) => section[i] === segment)) return PAGE_BOOST.samePage;
  if (folder < 1 || section.length < folder) return 0;
  for (let i = 0; i < folder; i++) if (section[i] !== page[i]) return 0;
  return PAGE_BOOST.neighbour;
}
