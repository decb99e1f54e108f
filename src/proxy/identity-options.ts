/** @module The known-visitor options of the proxy (`identify`, `identity`, `identityMode`): their types and their checks (identity.ts uses them). */

/** A visitor the site knows: what `identify` returns, or what a visitor JWT says. */
export interface KnownVisitor {
  /** The site's id of the visitor (a user id); 1 to 256 printable characters. */
  id: string;
  email?: string;
  name?: string;
}

/** Verifies visitor JWTs (`Authorization: Bearer` from the widget's `identityToken`). */
export interface IdentityTokenOptions {
  /** HS256 shared secret (at least 32 characters). One of `secret` and `jwksUrl`. */
  secret?: string;
  /** The app's JSON Web Key Set, for RS256 and ES256 tokens. One of `secret` and `jwksUrl`. */
  jwksUrl?: string;
  /** The `iss` every token must carry. */
  issuer?: string;
  /** The `aud` every token must carry (one of them). */
  audience?: string | string[];
}

/** Checks the `identify`, `identity` and `identityMode` options; throws a TypeError naming the bad one. */
export function checkIdentityOptions(options: { identify?: unknown; identity?: IdentityTokenOptions; identityMode?: unknown }): void {
  if (options.identify !== undefined && typeof options.identify !== 'function') throw new TypeError('createSupportProxy: identify must be a function (request) => visitor | null');
  const mode = options.identityMode ?? 'optional';
  if (mode !== 'optional' && mode !== 'required') throw new TypeError("createSupportProxy: identityMode must be 'optional' or 'required'");
  if (mode === 'required' && options.identify === undefined && options.identity === undefined) {
    throw new TypeError("createSupportProxy: identityMode 'required' needs identify or identity");
  }
  const identity = options.identity;
  if (identity === undefined) return;
  if (!identity || typeof identity !== 'object') throw new TypeError('createSupportProxy: identity must be an object');
  if ((identity.secret === undefined) === (identity.jwksUrl === undefined)) throw new TypeError('createSupportProxy: identity needs exactly one of secret and jwksUrl');
  if (identity.secret !== undefined && (typeof identity.secret !== 'string' || identity.secret.length < 32)) {
    throw new TypeError('createSupportProxy: identity.secret must be at least 32 characters');
  }
  if (identity.jwksUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(identity.jwksUrl);
    } catch {
      throw new TypeError('createSupportProxy: identity.jwksUrl must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('createSupportProxy: identity.jwksUrl must be an absolute http(s) URL');
  }
}
