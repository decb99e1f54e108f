/**
 * @module `support-chat-kit/proxy`: the site owner's backend-for-frontend. Holds the API token, binds
 * conversations to visitors, checks input and rate-limits visitors before spending quota.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeListener } from '../protocol/node-http.js';

export { createSupportProxy } from './handler.js';
export type { SupportProxyOptions, VisitorLimits, ProxyLogger } from './options.js';
export type { KnownVisitor as Visitor, IdentityTokenOptions } from './identity.js';
export { ApiError, NetworkError, TimeoutError, isApiError, isNetworkError, isTimeoutError } from './errors.js';

/**
 * Serves a proxy from Node's `http` server.
 *
 * @example
 * http.createServer(nodeListener(proxy)).listen(3000);
 */
export function nodeListener(handler: (request: Request, info?: { remoteAddress?: string }) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  return toNodeListener((request, info) => handler(request, info));
}

/**
 * Express middleware: `app.use(expressMiddleware(proxy))`. Requests outside the proxy's
 * basePath get its 404, so mount it on the basePath: `app.use('/api/support', …)` is not
 * needed; `app.all('/api/support/*path', expressMiddleware(proxy))` is the usual form.
 */
export function expressMiddleware(handler: (request: Request, info?: { remoteAddress?: string }) => Promise<Response>) {
  const listener = toNodeListener((request, info) => handler(request, info));
  return (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    // Express rewrites req.url under a mount path; the proxy routes on the full path.
    if (req.originalUrl) req.url = req.originalUrl;
    listener(req, res);
  };
}
