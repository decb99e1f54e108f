/**
 * @module Client addresses for per-address limits, shared by proxy and server (Node only, so not
 * exported from the protocol's index that the widget imports): the `X-Forwarded-For` entry a
 * trusted reverse proxy appended (its port dropped), and the key an address is counted under — an
 * IPv6 address by its network, /56 unless configured, since one subscriber commonly holds a whole
 * /56 (or /48, or /64) and can use any address in it.
 */
import ipaddr from 'ipaddr.js';

/** The IPv6 prefix length a client is counted by unless configured: /56, what ISPs commonly delegate to one home. */
export const DEFAULT_IPV6_PREFIX = 56;

/**
 * Trusted reverse proxies in front: `true` is one, `false` none, a number that many. Throws
 * TypeError naming `what` for anything else.
 */
export function trustedHops(value: boolean | number | undefined, what: string): number {
  const hops = value === true ? 1 : value === false || value === undefined ? 0 : value;
  if (!Number.isInteger(hops) || hops < 0) throw new TypeError(`${what} must be a boolean or a whole number of proxies`);
  return hops;
}

/** The IPv6 prefix length option (`ipv6Prefix`): a whole number from 16 to 128, or the default. Throws TypeError naming `what` for anything else. */
export function ipv6PrefixLength(value: number | undefined, what: string): number {
  if (value === undefined) return DEFAULT_IPV6_PREFIX;
  if (!Number.isInteger(value) || value < 16 || value > 128) throw new TypeError(`${what} must be a whole number from 16 to 128`);
  return value;
}

/**
 * The client's address behind `hops` trusted proxies: the `X-Forwarded-For` entry the outermost
 * trusted proxy appended, counted from the right (entries further left are whatever the client
 * sent and can be forged), without a port (`203.0.113.9:5678`, `[2001:db8::1]:80`). Undefined
 * with no hops, or when the header has fewer entries.
 */
export function forwardedClient(header: string | null | undefined, hops: number): string | undefined {
  if (hops <= 0 || !header) return undefined;
  const entries = header.split(',').map((e) => e.trim()).filter(Boolean);
  const entry = entries[entries.length - hops];
  return entry === undefined ? undefined : withoutPort(entry);
}

/** A port number as `X-Forwarded-For` may carry one: 1 to 5 digits. */
function isPort(text: string): boolean {
  if (text.length === 0 || text.length > 5) return false;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 48 || text.charCodeAt(i) > 57) return false;
  return true;
}

/** An address entry without its port, when it has one; anything not an address is returned as given. */
function withoutPort(entry: string): string {
  if (entry.startsWith('[')) {
    // `[2001:db8::1]` or `[2001:db8::1]:80`.
    const end = entry.indexOf(']');
    if (end < 0) return entry;
    const inner = entry.slice(1, end);
    const rest = entry.slice(end + 1);
    const portOk = rest === '' || (rest.startsWith(':') && isPort(rest.slice(1)));
    return portOk && ipaddr.IPv6.isValid(inner) ? inner : entry;
  }
  const colon = entry.indexOf(':');
  // One colon: an IPv4 address and a port. More: an IPv6 address, which has no port unbracketed.
  if (colon > 0 && colon === entry.lastIndexOf(':')) {
    const host = entry.slice(0, colon);
    if (ipaddr.IPv4.isValidFourPartDecimal(host) && isPort(entry.slice(colon + 1))) return host;
  }
  return entry;
}

/**
 * The key one client is counted under: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 address), an IPv6 address as its network of `prefix` bits (`2001:db8:1:200::/56`),
 * anything else as given.
 *
 * @example
 * addressKey('2001:db8:1:2aa::1') // '2001:db8:1:200::/56'
 * addressKey('2001:db8:1:2aa::1', 64) // '2001:db8:1:2aa::/64'
 */
export function addressKey(address: string, prefix = DEFAULT_IPV6_PREFIX): string {
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
  // The first `prefix` bits of the eight 16-bit parts; the rest zero.
  const parts = v6.parts.map((part, i) => {
    const bits = Math.min(16, Math.max(0, prefix - i * 16));
    return bits === 0 ? 0 : part & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${new ipaddr.IPv6(parts).toString()}/${prefix}`;
}
