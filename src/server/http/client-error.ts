/**
 * @module Requests Node's HTTP parser refuses (an unknown method, conflicting `Content-Length`,
 * oversized headers…) never reach a handler. They are answered here in the spec's error shape,
 * with the rate limit headers of the client address, instead of Node's bare 400/431.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError } from '../../protocol/index.js';
import type { ApiRequest, ApiResponse } from './exchange.js';

/** The error a parser failure is answered with, by Node's error code. */
export function parserRefusal(error: NodeJS.ErrnoException): HttpError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'bad_request', 'Request headers are too large');
    case 'HPE_INVALID_METHOD':
      return new HttpError(400, 'bad_request', 'Unknown request method');
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return new HttpError(400, 'bad_request', 'Malformed request: conflicting or invalid body length');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(408, 'bad_request', 'The request was not received in time', { retryable: true });
    default:
      return new HttpError(400, 'bad_request', 'Malformed request');
  }
}

/** An ApiRequest standing for a request the parser refused; the pipeline answers it with `refused`. */
export function refusedRequest(remoteAddress: string, refused: HttpError): ApiRequest {
  return {
    method: 'UNPARSED',
    url: '/',
    header: () => null,
    remoteAddress,
    refused,
    signal: AbortSignal.abort(),
    text: () => Promise.resolve(''),
  };
}

/**
 * A `clientError` listener for Node's `http.Server`: writes the pipeline's answer to `refusedRequest`
 * on the raw socket and closes it (the connection cannot be reused after a parse error).
 *
 * @example
 * http.on('clientError', clientErrorListener((request) => server.handle(request)));
 */
export function clientErrorListener(handle: (request: ApiRequest) => ApiResponse | Promise<ApiResponse>) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    // A reset or a socket that already answered has no one to tell.
    if (error.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const address = (socket as Duplex & { remoteAddress?: string }).remoteAddress ?? 'unknown';
    const write = (response: ApiResponse) => {
      const body = response.body ?? '';
      const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? 'Error'}`];
      for (const [name, value] of Object.entries(response.headers)) lines.push(`${name}: ${value}`);
      lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close');
      // Destroyed once written: Node's server sockets are half-open, and a client that never closes its side would keep the socket.
      socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
    };
    try {
      const response = handle(refusedRequest(address, parserRefusal(error)));
      if (response instanceof Promise) response.then(write, () => socket.destroy());
      else write(response);
    } catch {
      socket.destroy();
    }
  };
}
