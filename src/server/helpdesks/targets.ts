/**
 * @module Where helpdesk calls may go: a target whose host is, or resolves to, a loopback,
 * link-local or unspecified address (this machine, a cloud's metadata service at 169.254.169.254)
 * is refused unless local targets are allowed, so an integration setting cannot point the server
 * at itself. The check resolves the host before each call; a name that resolves differently a
 * moment later (DNS rebinding) is not caught — allow only what you trust in `integrations set`.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ALLOW_LOCAL_TARGETS_ENV, isLocalAddress } from '../local-targets.js';
import { IntegrationError } from './types.js';

/**
 * A fetch that first refuses (IntegrationError, not retryable) a target whose host is or resolves
 * to a local address; `fetch` itself when local targets are allowed.
 */
export function guardTargets(doFetch: typeof fetch, allowLocal: boolean, resolve: (host: string) => Promise<string[]> = resolveAll): typeof fetch {
  if (allowLocal) return doFetch;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = isIP(host) ? [host] : await resolve(host).catch(() => []);
    const local = addresses.find((address) => isLocalAddress(address));
    if (local !== undefined) {
      throw new IntegrationError(`Integration target ${url.host} is a loopback or link-local address (${local}); set ${ALLOW_LOCAL_TARGETS_ENV}=true to allow it`, {
        retryable: false,
      });
    }
    return doFetch(input, init);
  };
}

/** Every address a host name resolves to. */
export async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
