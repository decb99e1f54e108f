/**
 * The HTTP server's connection limits over real sockets: a client that sends nothing, sends half
 * its headers, or keeps an idle connection is closed on time, and connections past
 * `maxConnections` are closed at once while the ones within it are served.
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerConfigError, startServer, type StartServerOptions } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { connectionLimits } from '../../src/cli/commands/serve.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { rawRequest, within } from '../helpers/raw-http.js';

let api: Awaited<ReturnType<typeof startServer>> | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function serve(connections: StartServerOptions['connections']) {
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, startWorker: false, env: {}, connections });
  return api;
}

/** The connections the server holds open now. */
const connectionsOf = (http: Server) => new Promise<number>((resolve, reject) => http.getConnections((error, count) => (error ? reject(error) : resolve(count))));

describe('connection limits', () => {
  it('closes 200 connections that send nothing after the headers timeout', async () => {
    const { url } = await serve({ headersTimeoutMs: 400, requestTimeoutMs: 800 });
    const started = performance.now();
    const silent = Array.from({ length: 200 }, () => rawRequest(url, ''));
    await within(Promise.all(silent.map((s) => s.closed)), 5_000, 'silent connections closed');
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
    // Still serving (with a token: the timed-out connections counted against this address).
    const { token } = await api!.server.tokens.create({ orgId: 'acme', name: 'probe', scopes: ['chat:read'] });
    expect((await fetch(`${url}/v0/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });

  it('closes a connection that stops halfway through its headers, answering 408', async () => {
    const { url } = await serve({ headersTimeoutMs: 400, requestTimeoutMs: 800 });
    const half = rawRequest(url, 'GET /v0/me HTTP/1.1\r\nHost: api.test\r\n');
    expect(await within(half.status, 5_000, 'status')).toBe(408);
    await within(half.closed, 5_000, 'closed');
  });

  it('closes a silent connection after the idle timeout, before the headers timeout', async () => {
    const { url } = await serve({ headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, idleTimeoutMs: 300 });
    const silent = rawRequest(url, '');
    await within(silent.closed, 3_000, 'closed');
  });

  it('closes a kept-alive connection after the keep-alive timeout', async () => {
    const { url } = await serve({ keepAliveTimeoutMs: 300 });
    const kept = rawRequest(url, 'GET /v0/openapi.json HTTP/1.1\r\nHost: api.test\r\n\r\n');
    expect(await kept.status).toBe(200);
    const answered = performance.now();
    await within(kept.closed, 3_000, 'closed');
    expect(performance.now() - answered).toBeGreaterThanOrEqual(250);
  });

  it('closes connections past maxConnections at once, and serves again once they are gone', async () => {
    const { url, http } = await serve({ maxConnections: 20, headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
    const held = Array.from({ length: 20 }, () => rawRequest(url, ''));
    // The server holds all 20 before the next one arrives.
    await vi.waitFor(async () => expect(await connectionsOf(http!)).toBe(20), { timeout: 10_000, interval: 20 });
    const extra = rawRequest(url, 'GET /v0/openapi.json HTTP/1.1\r\nHost: api.test\r\n\r\n');
    await within(extra.closed, 10_000, 'extra closed');
    expect(await extra.status).toBe(0);
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    // …and has seen them go.
    await vi.waitFor(async () => expect(await connectionsOf(http!)).toBe(0), { timeout: 10_000, interval: 20 });
    expect((await fetch(`${url}/v0/openapi.json`)).status).toBe(200);
  });

  it.each([
    [{ maxConnections: 0 }, 'connections.maxConnections must be a positive whole number, got 0'],
    [{ idleTimeoutMs: 1.5 }, 'connections.idleTimeoutMs must be a positive whole number, got 1.5'],
    [{ headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 }, 'connections.headersTimeoutMs (5000) must not exceed connections.requestTimeoutMs (1000)'],
  ])('refuses %o', async (connections, message) => {
    const started = serve(connections);
    await expect(started).rejects.toThrow(ServerConfigError);
    await expect(started).rejects.toThrow(message);
  });
});

describe('serve: connection limits from the environment', () => {
  it('reads each variable, and names a bad one', () => {
    expect(connectionLimits({ SUPPORT_CHAT_MAX_CONNECTIONS: '100', SUPPORT_CHAT_IDLE_TIMEOUT_MS: '30000' })).toEqual({ maxConnections: 100, idleTimeoutMs: 30_000 });
    expect(connectionLimits({})).toEqual({});
    expect(() => connectionLimits({ SUPPORT_CHAT_HEADERS_TIMEOUT_MS: 'soon' })).toThrow('SUPPORT_CHAT_HEADERS_TIMEOUT_MS must be a positive whole number, got "soon"');
    expect(() => connectionLimits({ SUPPORT_CHAT_IDLE_TIMEOUT_MS: '5000' })).toThrow('SUPPORT_CHAT_IDLE_TIMEOUT_MS must be above 20000');
  });
});
