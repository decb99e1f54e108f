/**
 * @module The server's errors: `HttpError` (plain data, shared with the proxy) thrown anywhere,
 * and shorthands for the spec's fixed ones. The app turns them into responses in one place.
 */
import { HttpError, MESSAGES } from '../../protocol/index.js';

export { HttpError, rateLimited } from '../../protocol/index.js';

export const badRequest = (message: string) => new HttpError(400, 'bad_request', message);
export const notFound = () => new HttpError(404, 'not_found', MESSAGES.notFound);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);
/** 401 with the challenge RFC 9110 §11.6.1 asks of it. */
export const unauthorized = () => new HttpError(401, 'unauthorized', MESSAGES.unauthorized, { headers: { 'WWW-Authenticate': 'Bearer realm="support-chat"' } });
export const forbidden = () => new HttpError(403, 'forbidden', MESSAGES.forbidden);
export const internal = (retryable = true) => new HttpError(500, 'internal_error', MESSAGES.internal, { retryable });
