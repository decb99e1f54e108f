/**
 * @module The app's JSON Web Key Set (`identity.jwksUrl`), fetched like a good client: kept 10
 * minutes and refreshed in the background after that, the keys it had served for up to a day while
 * the endpoint fails, no fetch for 30 s after a failure (so a failing endpoint is asked twice a
 * minute, not once per request), a 5 s timeout and a 1 MB cap on what it sends, read as a stream
 * and dropped past the cap. Keys are matched by jose's `createLocalJWKSet`.
 */
import type { JSONWebKeySet, JWTHeaderParameters, FlattenedJWSInput } from 'jose';
import { readCappedText } from '../protocol/input.js';

/** A key getter as `jose.jwtVerify` takes one. */
export type KeyGetter = (header: JWTHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey | Uint8Array>;

export interface RemoteKeySetOptions {
  fetch: typeof fetch;
  /** Keys younger than this are used without asking the endpoint, ms. @default 600000 */
  maxAgeMs?: number;
  /** Keys are served while refreshes fail for at most this long after they were fetched, ms. @default 86400000 */
  staleMs?: number;
  /** No fetch this long after a failed one (nor after a fetch for an unknown `kid`), ms. @default 30000 */
  cooldownMs?: number;
  /** A fetch that has not answered in full within this is a failure, ms. @default 5000 */
  timeoutMs?: number;
  /** The most bytes of key set read. @default 1000000 */
  maxBytes?: number;
  now?: () => number;
}

/** Why no key could be had; jwtVerify's caller answers it as any token that does not verify. */
export class KeySetError extends Error {
  override name = 'KeySetError';
}

interface Held {
  getKey: KeyGetter;
  fetchedAt: number;
}

/**
 * A remote key set: `getKey` is what jwtVerify takes. Every failure (unreachable, slow, not 200,
 * too large, not a key set) counts alike.
 *
 * @example
 * const keys = await remoteKeySet(new URL(jwksUrl), { fetch });
 * await jose.jwtVerify(token, keys.getKey, { algorithms: ['RS256', 'ES256'] });
 */
export class RemoteKeySet {
  readonly #url: URL;
  readonly #options: Required<Omit<RemoteKeySetOptions, 'now'>> & { now: () => number };
  readonly #jose: typeof import('jose');
  #held: Held | undefined;
  /** No fetch before this time (a failure, or a fetch for an unknown `kid`, was recent). */
  #quietUntil = 0;
  #pending: Promise<Held> | undefined;
  /** Fetches made, for tests and logs. */
  fetches = 0;

  constructor(url: URL, jose: typeof import('jose'), options: RemoteKeySetOptions) {
    this.#url = url;
    this.#jose = jose;
    this.#options = {
      maxAgeMs: 10 * 60_000,
      staleMs: 24 * 60 * 60_000,
      cooldownMs: 30_000,
      timeoutMs: 5_000,
      maxBytes: 1_000_000,
      now: Date.now,
      ...options,
    };
  }

  /** The key of a token's header: from the held set, refreshed when old; refetched once for an unknown `kid` (keys rotate). */
  readonly getKey: KeyGetter = async (header, token) => {
    const held = await this.#current();
    try {
      return await held.getKey(header, token);
    } catch (error) {
      if (!(error instanceof this.#jose.errors.JWKSNoMatchingKey) || this.#options.now() < this.#quietUntil || this.#pending) throw error;
      // A key the set does not hold: the app may have rotated; asked again at most once per cooldown.
      const fresh = await this.#refresh().catch(() => held);
      return fresh.getKey(header, token);
    }
  };

  /** The set to use now: the held one while fresh; while stale, the held one as a refresh runs behind; none held, a fetch awaited. */
  async #current(): Promise<Held> {
    const now = this.#options.now();
    const held = this.#held;
    if (held && now - held.fetchedAt < this.#options.maxAgeMs) return held;
    if (held && now - held.fetchedAt < this.#options.staleMs) {
      if (now >= this.#quietUntil && !this.#pending) void this.#refresh().catch(() => undefined);
      return held;
    }
    if (this.#pending) return this.#pending;
    if (now < this.#quietUntil) throw new KeySetError('the key set could not be fetched lately; not asking again yet');
    return this.#refresh();
  }

  /** One fetch at a time; a failure starts the cooldown. */
  #refresh(): Promise<Held> {
    this.#pending ??= this.#fetch()
      .then(
        (held) => {
          this.#held = held;
          return held;
        },
        (error: unknown) => {
          throw error instanceof KeySetError ? error : new KeySetError('the key set could not be fetched', { cause: error });
        },
      )
      .finally(() => {
        this.#quietUntil = this.#options.now() + this.#options.cooldownMs;
        this.#pending = undefined;
      });
    return this.#pending;
  }

  async #fetch(): Promise<Held> {
    this.fetches++;
    const signal = AbortSignal.timeout(this.#options.timeoutMs);
    const response = await this.#options.fetch(this.#url, { headers: { accept: 'application/json, application/jwk-set+json' }, redirect: 'manual', signal });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new KeySetError(`the key set endpoint answered ${response.status}`);
    }
    // Read as it arrives, stopped past the cap (and by the timeout, which covers the body too).
    const text = await readCappedText(response.body, { limit: this.#options.maxBytes, declaredLength: response.headers.get('content-length') });
    const set = JSON.parse(text) as JSONWebKeySet;
    if (!set || typeof set !== 'object' || !Array.isArray(set.keys)) throw new KeySetError('the key set endpoint answered something other than a key set');
    return { getKey: this.#jose.createLocalJWKSet(set) as KeyGetter, fetchedAt: this.#options.now() };
  }
}
