/**
 * @module The server's errors: `HttpError` (plain data, shared with the proxy) thrown anywhere,
 * and the protocol's shorthands for the spec's fixed ones. The app turns them into responses in one place.
 */
export { badRequest, conflict, forbidden, HttpError, internal, notFound, rateLimited, unauthorized } from '../../protocol/index.js';
