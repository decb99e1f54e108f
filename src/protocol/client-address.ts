/**
 * @module Client addresses for per-address limits, shared by proxy and server (Node only, so not
 * exported from the protocol's index that the widget imports): the `X-Forwarded-For` entry a
 * trusted reverse proxy appended, and the key an address is counted under — an IPv6 address by
 * its /64, since one subscriber commonly holds a whole /64 and can use any of its 2^64 addresses.
 */
import ipaddr from 'ipaddr.js';

/**
 * Trusted reverse proxies in front: `true` is one, `false` none, a number that many. Throws
 * TypeError naming `what` for anything else.
 */
export function trustedHops(value: boolean | number | undefined, what: string): number {
  const hops = value === true ? 1 : value === false || value === undefined ? 0 : value;
  if (!Number.isInteger(hops) || hops < 0) throw new TypeError(`${what} must be a boolean or a whole number of proxies`);
  return hops;
}

/**
 * The client's address behind `hops` trusted proxies: the `X-Forwarded-For` entry the outermost
 * trusted proxy appended, counted from the right (entries further left are whatever the client
 * sent and can be forged). Undefined with no hops, or when the header has fewer entries.
 */
export function forwardedClient(header: string | null | undefined, hops: number): string | undefined {
  if (hops <= 0 || !header) return undefined;
  const entries = header.split(',').map((e) => e.trim()).filter(Boolean);
  return entries[entries.length - hops];
}

/**
 * The key one client is counted under: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 address), an IPv6 address as its /64 (`2001:db8:1:2::/64`), anything else as given.
 *
 * @example
 * addressKey('2001:db8:1:2:aaaa::1') // '2001:db8:1:2::/64'
 */
export function addressKey(address: string): string {
  // The common case (IPv4) needs no parsing.
  if (!address.includes(':')) return address;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return address;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(parts).toString()}/64`;
}
