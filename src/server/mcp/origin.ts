/**
 * @module Which browser origins may call `/v0/mcp` (DNS-rebinding protection). A request without
 * an `Origin` is not from a browser page (agents and editors send none): its token is its
 * protection. A browser always sends one with a POST, and a page whose name was rebound to this
 * server's address sends its own name: only origins listed in the configuration are accepted,
 * and, for a server addressed as loopback, loopback origins.
 */

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The origins a server accepts besides loopback ones, from a comma-separated list
 * (`SUPPORT_CHAT_MCP_ORIGINS`); throws a RangeError naming an entry that is not an http(s) origin.
 *
 * @example
 * parseOrigins('https://docs.acme.dev, https://app.acme.dev'); // Set { 'https://docs.acme.dev', 'https://app.acme.dev' }
 */
export function parseOrigins(list: string | readonly string[] | undefined): ReadonlySet<string> {
  const entries = typeof list === 'string' ? list.split(',') : (list ?? []);
  const origins = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const url = URL.canParse(entry) ? new URL(entry) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, '')) {
      throw new RangeError(`"${entry}" is not an origin such as https://docs.example.com (scheme, host and port only)`);
    }
    origins.add(url.origin);
  }
  return origins;
}

/**
 * Whether a request with these `Origin` and `Host` headers may call the MCP endpoint: no Origin,
 * an Origin in `allowed`, or a loopback Origin sent to a server addressed as loopback.
 */
export function originAllowed(origin: string | null, host: string | null, allowed: ReadonlySet<string>): boolean {
  if (origin === null) return true;
  if (!URL.canParse(origin)) return false;
  const from = new URL(origin);
  if (allowed.has(from.origin)) return true;
  return LOOPBACK.has(from.hostname) && host !== null && URL.canParse(`http://${host}`) && LOOPBACK.has(new URL(`http://${host}`).hostname);
}
