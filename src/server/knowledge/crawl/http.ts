/**
 * @module The crawler's HTTP client: node:http(s) behind a `fetch`-shaped function, whose DNS
 * lookup refuses loopback, private and link-local addresses (see `isLocalAddress`) unless local
 * targets are allowed. The check is made on the very address the socket connects to, inside the
 * lookup the connection uses, so a name that resolves elsewhere a moment later (DNS rebinding)
 * gains nothing. Bodies are decompressed (gzip, deflate, br) as they stream.
 */
import { lookup as systemLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ALLOW_LOCAL_TARGETS_ENV, guardedLookup as guardedBy, isLocalAddress, RefusedAddressError } from '../../local-targets.js';

export interface AddressPolicy {
  /** Loopback, private and link-local addresses may be reached (the start URL is one, or `SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true`). */
  allowLocal: boolean;
  /** Stand-in for the system's DNS lookup (tests). */
  lookup?: LookupFunction;
}

const refusal = (host: string, address: string) => new RefusedAddressError(`${host} is a loopback, private or link-local address (${address}); set ${ALLOW_LOCAL_TARGETS_ENV}=true to crawl it`);

/** A DNS lookup that fails for loopback, private and link-local addresses, for `http.request`'s `lookup`. */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return guardedBy({ ...policy, private: true, refuse: refusal });
}

/** Whether a host is, or resolves to, a loopback, private or link-local address. */
export async function isLocalHost(host: string, lookup: LookupFunction = systemLookup as LookupFunction): Promise<boolean> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) return isLocalAddress(bare, { private: true });
  return new Promise((resolve) => {
    lookup(bare, { all: true }, (error, addresses) => {
      const list = error ? [] : Array.isArray(addresses) ? addresses.map((a: { address: string }) => a.address) : [addresses as string];
      resolve(list.some((a) => isLocalAddress(a, { private: true })));
    });
  });
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null;
  if (!decoder) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

/**
 * A `fetch` for the crawler under `policy`: GET only, redirects answered as they are (the crawler
 * follows them by its own rules), `signal` honoured. An IP literal host is checked before
 * connecting; a name, on the address its lookup gives the socket.
 */
export function siteFetch(policy: AddressPolicy): typeof fetch {
  const lookup = guardedLookup(policy);
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (!policy.allowLocal && isIP(host) && isLocalAddress(host, { private: true })) return reject(new TypeError('fetch failed', { cause: refusal(url.host, host) }));
      const headers = { ...Object.fromEntries(new Headers(init.headers).entries()), 'accept-encoding': 'gzip, deflate, br' };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'GET', headers, lookup, signal: init.signal ?? undefined }, (response) => {
        const status = response.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) responseHeaders.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
        const empty = status === 204 || status === 304;
        if (empty) response.resume();
        try {
          resolve(new Response(empty ? null : (Readable.toWeb(decoded(response)) as ReadableStream<Uint8Array>), { status, headers: responseHeaders }));
        } catch (error) {
          // A status `Response` cannot hold (below 200, above 599).
          response.destroy();
          reject(new TypeError('fetch failed', { cause: error }));
        }
      });
      request.on('error', (error) => reject(error.name === 'AbortError' ? error : new TypeError('fetch failed', { cause: error })));
      request.end();
    });
}
