/**
 * @module Local targets: whether an address is loopback, link-local or unspecified (this machine, a
 * cloud's metadata service at 169.254.169.254), or a private network's, and whether the environment
 * allows such targets (`SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true`). Helpdesk calls, webhooks and the
 * docs crawler all ask here, so one rule decides where the server may send a request.
 */
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
