/**
 * @module Routes as data, matched by method and path: the server's and the proxy's one router.
 * A route is any object with a `method` and a `pattern` of `/`-separated segments, `:name` for a
 * parameter (decoded; 1 to 256 characters).
 */

export interface RouteShape {
  method: string;
  /** Path with `:name` segments, e.g. `/v0/chat/:id`. */
  pattern: string;
}

/** The route a request addresses, or the methods its path allows (none: no such path). */
export type Match<R extends RouteShape> = { route: R; params: Record<string, string> } | { route: undefined; allowed: string[] };

interface Compiled<R> {
  route: R;
  segments: string[];
}

export class Router<R extends RouteShape> {
  readonly #routes: Compiled<R>[];

  constructor(routes: readonly R[]) {
    this.#routes = routes.map((route) => ({ route, segments: route.pattern.split('/').slice(1) }));
  }

  match(method: string, pathname: string): Match<R> {
    // parts[0] is the empty string before the leading slash; segments skip it (see matchSegments).
    const parts = pathname.split('/');
    let allowed: string[] | undefined;
    for (const { route, segments } of this.#routes) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method) return { route, params };
      (allowed ??= []).push(route.method);
    }
    return { route: undefined, allowed: allowed ?? [] };
  }
}

/** `parts` is the whole path split on `/`, its first element the empty string before the leading slash. */
function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length - 1) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i + 1]!;
    if (segment.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return null;
      }
      if (value.length === 0 || value.length > 256) return null;
      params[segment.slice(1)] = value;
    } else if (segment !== part) return null;
  }
  return params;
}
