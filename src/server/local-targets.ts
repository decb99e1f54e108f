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

/**
 * Whether `address` (an IP literal) is loopback, link-local or unspecified, an IPv4-mapped IPv6 one
 * included; with `private`, an address of a private network too.
 */
export function isLocalAddress(address: string, options: { private?: boolean } = {}): boolean {
  if (!ipaddr.isValid(address)) return false;
  // `process` reads an IPv4-mapped IPv6 address as its IPv4 address.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return REFUSED_RANGES.has(range) || (options.private === true && PRIVATE_RANGES.has(range));
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
