/** @module The page a visitor is on (`page_url`), as the server keeps and uses it. */

/**
 * `pageUrl` without what may hold a visitor's data or secrets: its `user:password@`, its query and
 * its fragment. The URL has already been checked to be an absolute http(s) one.
 *
 * @example
 * visitorPage('https://me:secret@docs.example/keys?ref=nav#rotate'); // 'https://docs.example/keys'
 */
export function visitorPage(pageUrl: string): string {
  const url = new URL(pageUrl);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.href;
}
