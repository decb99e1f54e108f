/**
 * @module Local targets: whether an address is loopback, link-local or unspecified (this machine, a
 * cloud's metadata service at 169.254.169.254), or a private network's, and whether the environment
 * allows such targets (`SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true`). Helpdesk calls, webhooks and the
 * docs crawler all ask here, so one rule decides where the server may send a request. The check
 * that counts is made inside the DNS lookup a connection uses (`guardedLookup`), on the very address
 * the socket connects to, so a name that resolves elsewhere a moment later (DNS rebinding) gains nothing.
 */
import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The environment variable that allows loopback and link-local targets (local development, tests). */
export const ALLOW_LOCAL_TARGETS_ENV = 'SUPPORT_CHAT_ALLOW_LOCAL_TARGETS';

const REFUSED_RANGES = new Set(['loopback', 'linkLocal', 'unspecified']);
/** Private networks (RFC 1918, carrier-grade NAT, IPv6 unique local): refused too where asked (the crawler). */
const PRIVATE_RANGES = new Set(['private', 'carrierGradeNat', 'uniqueLocal']);

/** NAT64's local-use prefix (RFC 8215): where it embeds an IPv4 address depends on the network, so it is refused whole. */
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');

/**
 * Whether `address` (an IP literal) is loopback, link-local or unspecified, an IPv4-mapped IPv6 one
 * included; with `private`, an address of a private network too. An IPv6 address that carries an
 * IPv4 one a gateway or relay would deliver to (NAT64, 6to4, IPv4-compatible) is judged by that
 * IPv4 address.
 */
export function isLocalAddress(address: string, options: { private?: boolean } = {}): boolean {
  if (!ipaddr.isValid(address)) return false;
  // `process` reads an IPv4-mapped IPv6 address as its IPv4 address.
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(NAT64_LOCAL_USE)) return true;
  const target = parsed.kind() === 'ipv6' ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  const range = target.range();
  return REFUSED_RANGES.has(range) || (options.private === true && PRIVATE_RANGES.has(range));
}

/**
 * The IPv4 address an IPv6 one delivers to: the last 32 bits of NAT64's `64:ff9b::/96` (RFC 6052)
 * and of an IPv4-compatible `::a.b.c.d` (its first 96 bits zero; `::` and `::1` themselves
 * excepted), bits 16–47 of 6to4's `2002::/16` (RFC 3056); null for any other.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'rfc6052') return new ipaddr.IPv4(bytes.slice(12));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  if (range !== 'unspecified' && range !== 'loopback' && bytes.slice(0, 12).every((b) => b === 0)) return new ipaddr.IPv4(bytes.slice(12));
  return null;
}

/** Whether the environment allows local targets (`SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true`). */
export function localTargetsAllowed(env: NodeJS.ProcessEnv): boolean {
  return env[ALLOW_LOCAL_TARGETS_ENV]?.trim().toLowerCase() === 'true';
}

/** A connection refused because its address is local (the cause of the request's failure). */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

/** How `guardedLookup` decides. */
export interface LookupPolicy {
  /** Local addresses may be reached: the lookup is the system's (or `lookup`) as it is. */
  allowLocal: boolean;
  /** Private networks are refused too (the crawler), not only loopback, link-local and unspecified. */
  private?: boolean;
  /** Stand-in for the system's DNS lookup (tests). */
  lookup?: LookupFunction;
  /** The refusal, for a host and the local address it resolved to. */
  refuse: (host: string, address: string) => RefusedAddressError;
}

/**
 * A DNS lookup, for a connection's `lookup` option (`http.request`, undici's `connect`), that fails
 * with `policy.refuse(…)` when any address of the name is local.
 */
export function guardedLookup(policy: LookupPolicy): LookupFunction {
  const base = policy.lookup ?? (systemLookup as LookupFunction);
  if (policy.allowLocal) return base;
  return (hostname, options, callback) => {
    base(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((a: { address: string }) => a.address) : [address as string];
      const local = addresses.find((a) => isLocalAddress(a, { private: policy.private }));
      if (local !== undefined) return callback(policy.refuse(hostname, local) as NodeJS.ErrnoException, address, family);
      callback(null, address, family);
    });
  };
}
