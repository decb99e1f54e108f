/** @module Raw HTTP/1.1 over a TCP socket, for requests no HTTP client sends: bodies that stall, connections that send nothing. */
import { connect, type Socket } from 'node:net';

export interface RawExchange {
  socket: Socket;
  /** The response's status, once its status line has arrived; 0 when the connection closed without one (a reset). */
  status: Promise<number>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  /** Everything the server sent so far. */
  received(): string;
}

/** Opens a connection to `url`'s host and port and writes `head` (and `body`, when given) on it; nothing more. */
export function rawRequest(url: string, head: string, body?: Buffer | string): RawExchange {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  let text = '';
  let resolveStatus!: (status: number) => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    text += chunk;
    const line = text.indexOf('\r\n');
    if (line >= 0) resolveStatus(Number(text.slice(9, 12)));
  });
  socket.on('error', () => undefined);
  socket.once('close', () => resolveStatus(0));
  socket.write(head);
  if (body !== undefined) socket.write(body);
  return { socket, status, closed, received: () => text };
}

/** Resolves with `promise`'s value, or rejects after `ms` milliseconds naming `what`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}
