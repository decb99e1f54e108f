/**
 * @module The visitor token the widget sends (`identityToken`): a string, or the app's function,
 * whose answer is kept and asked for again once when the proxy refuses it (expired).
 */

/** The `identityToken` property: a visitor JWT, or a function (maybe async) that gets one from the app. */
export type IdentityToken = string | (() => string | null | undefined | Promise<string | null | undefined>);

/** Calls the app's function; a throw or an empty answer is "no token". */
const ask = (source: () => string | null | undefined | Promise<string | null | undefined>): Promise<string | null> =>
  Promise.resolve()
    .then(source)
    .then(
      (token) => (typeof token === 'string' && token ? token : null),
      () => null,
    );

/**
 * The token of the `identityToken` now: a string is sent as it is; a function is called the first
 * time a token is needed and its answer kept, then called again only when the proxy refuses that
 * answer (`refresh`). Another `identityToken` (or null) starts over.
 */
export class VisitorToken {
  private _current: IdentityToken | null = null;
  private _token: Promise<string | null> | null = null;

  /** `source` reads the `identityToken` property. */
  constructor(private readonly _source: () => IdentityToken | null | undefined) {}

  /** The token to send now, or null for none. */
  current(): Promise<string | null> {
    const source = this._source() ?? null;
    if (source !== this._current) {
      this._current = source;
      this._token = null;
    }
    if (typeof source !== 'function') return Promise.resolve(source || null);
    return (this._token ??= ask(source));
  }

  /**
   * The proxy refused `refused` (401): a fresh token from the app's function, to retry with once;
   * null when there is none to try (a string token, no new token, or the same one again). Requests
   * refused with the same token at once share one call of the function.
   */
  async refresh(refused: string): Promise<string | null> {
    const source = this._current;
    if (typeof source !== 'function') return null;
    const now = await this._token;
    if (source === this._current && now === refused) this._token = ask(source);
    const fresh = await this._token;
    return fresh !== refused ? fresh : null;
  }
}
