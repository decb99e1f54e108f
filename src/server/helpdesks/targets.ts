/**
 * @module Where helpdesk calls may go: a target whose host is, or resolves to, a loopback,
 * link-local or unspecified address (this machine, a cloud's metadata service at 169.254.169.254)
 * is refused unless local targets are allowed, so an integration setting cannot point the server
 * at itself. The host is checked twice: before the call, for a clear error early, and inside the
 * DNS lookup of the connection itself (`guardedLookup`), on the very address the socket connects
 * to, so a name that resolves elsewhere a moment later (DNS rebinding) gains nothing.
 */
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { ALLOW_LOCAL_TARGETS_ENV, guardedLookup, isLocalAddress, RefusedAddressError } from '../local-targets.js';
import { IntegrationError } from './types.js';

const refusal = (host: string, address: string) =>
  `Integration target ${host} is a loopback or link-local address (${address}); set ${ALLOW_LOCAL_TARGETS_ENV}=true to allow it`;

/** How `guardTargets` checks a target. */
export interface TargetChecks {
  /** Every address a host name resolves to, for the check before the call. */
  resolve?: (host: string) => Promise<string[]>;
  /** Stand-in for the system's DNS lookup of the connection (tests). */
  lookup?: LookupFunction;
}

/**
 * A fetch that refuses (IntegrationError, not retryable) a target whose host is or resolves to a
 * local address; `doFetch` (by default the platform's `fetch`) itself when local targets are
 * allowed. Without `doFetch`, requests go through a connection pool whose DNS lookup refuses local
 * addresses; a `doFetch` given (a stand-in) is checked before the call only.
 */
export function guardTargets(doFetch: typeof fetch | undefined, allowLocal: boolean, checks: TargetChecks = {}): typeof fetch {
  if (allowLocal) return doFetch ?? ((input, init) => globalThis.fetch(input, init));
  const resolve = checks.resolve ?? resolveAll;
  const call = doFetch ?? connectionChecked(checks.lookup);
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = isIP(host) ? [host] : await resolve(host).catch(() => []);
    const local = addresses.find((address) => isLocalAddress(address));
    if (local !== undefined) throw new IntegrationError(refusal(url.host, local), { retryable: false });
    return call(input, init);
  };
}

/**
 * undici's `fetch` over an Agent whose connections look their host up with `guardedLookup`: a
 * local address found there fails the request with a not-retryable IntegrationError.
 */
function connectionChecked(lookupStandIn?: LookupFunction): typeof fetch {
  const refuse = (host: string, address: string) => new RefusedAddressError(refusal(host, address));
  const dispatcher = new Agent({ connect: { lookup: guardedLookup({ allowLocal: false, lookup: lookupStandIn, refuse }) } });
  return async (input, init) => {
    try {
      // undici's own Request and Response are the platform's in shape; their types differ in name only.
      return (await undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof RefusedAddressError) throw new IntegrationError(cause.message, { retryable: false });
      throw error;
    }
  };
}

/** Every address a host name resolves to. */
export async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
