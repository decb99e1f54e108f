/** @module Reading request bodies (whole, or capped and timed) and parsing JSON and string fields: the protocol's validators, which the proxy shares. */
import { HttpError } from '../../protocol/index.js';
import type { ApiRequest } from './exchange.js';

export { parseJsonObject } from '../../protocol/index.js';

/**
 * Reads a body of at most `limit` bytes that must arrive within `timeoutMs`: 413 past the cap,
 * 408 when it is late. Both ask to close the connection, so the rest of the body is never read.
 */
export function readBodyWithin(request: ApiRequest, options: { limit: number; timeoutMs: number }): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HttpError(408, 'bad_request', `Request body did not arrive within ${options.timeoutMs} ms`, { headers: CLOSE })), options.timeoutMs);
  });
  const read = request.text(options.limit).catch((error: unknown) => {
    if (error instanceof HttpError && error.status === 413) throw new HttpError(413, 'bad_request', error.message, { headers: CLOSE });
    throw error;
  });
  // After a timeout the read fails when the connection closes; nobody waits for it then.
  read.catch(() => undefined);
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/** Ends the connection after the response: a client whose body was refused is not read further. */
export const CLOSE: Readonly<Record<string, string>> = { Connection: 'close' };
