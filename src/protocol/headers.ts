/**
 * @module Request headers read alike by proxy and server: the Bearer token of `Authorization`
 * (RFC 6750 §2.1) and the `wait` preference of `Prefer` (RFC 7240 §4.3). Read by hand, a character
 * at a time with nothing nested: each is one pass over a header of bounded length.
 */

/** Longest `Authorization` header read, in characters: a visitor JWT is a few hundred. */
export const MAX_AUTHORIZATION_LENGTH = 8192;
/** Most digits of a `wait` preference: anything longer is past every cap anyway. */
const MAX_WAIT_DIGITS = 6;

/**
 * The token of `Bearer <token>`: the scheme in any case, one or more spaces, then visible ASCII
 * (RFC 9110 §11.4, §5.6.2); null for anything else, or a header over `MAX_AUTHORIZATION_LENGTH`.
 *
 * @example
 * parseBearer('Bearer sk_live_abc') // 'sk_live_abc'
 * parseBearer('Basic dXNlcg==')     // null
 */
export function parseBearer(header: string | null | undefined): string | null {
  if (!header || header.length > MAX_AUTHORIZATION_LENGTH) return null;
  if (header.length < 8 || header.slice(0, 6).toLowerCase() !== 'bearer' || header[6] !== ' ') return null;
  let start = 7;
  while (header[start] === ' ') start++;
  if (start === header.length) return null;
  for (let i = start; i < header.length; i++) {
    const code = header.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return null;
  }
  return header.slice(start);
}

/**
 * Seconds asked for by `Prefer: wait=N`, capped at `max`; null when absent or malformed (a
 * preference the server does not understand is ignored, as RFC 7240 says). Each comma-separated
 * preference is `name [= value] *(; parameter)`; the first `wait` with 1 to 6 digits counts.
 *
 * @example
 * parsePreferWait('respond-async, wait=15', 20) // 15
 * parsePreferWait('wait=300', 20)               // 20
 */
export function parsePreferWait(header: string | null | undefined, max: number): number | null {
  if (!header) return null;
  for (const preference of header.split(',')) {
    const semicolon = preference.indexOf(';');
    const pair = semicolon < 0 ? preference : preference.slice(0, semicolon);
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'wait') continue;
    const value = pair.slice(eq + 1).trim();
    if (value.length === 0 || value.length > MAX_WAIT_DIGITS || ![...value].every((c) => c >= '0' && c <= '9')) continue;
    return Math.min(Number(value), max);
  }
  return null;
}
