/**
 * The app's key set (`identity.jwksUrl`) fetched like a good client, from a real HTTP endpoint that
 * the test makes fail, stall or send too much: failures are remembered for a cooldown, the keys it
 * had are served while refreshes fail (up to a day), no request waits on a refresh once keys are
 * held, a fetch gives up after its timeout and past 1 MB, and a proxy answers 429 before it
 * verifies (or fetches keys for) a token past the address's limit.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import * as jose from 'jose';
import { KeySetError, RemoteKeySet, type RemoteKeySetOptions } from '../../src/proxy/jwks.js';
import { createSupportProxy } from '../../src/proxy/index.js';

type Mode = 'ok' | 'fail' | 'stall' | 'huge' | 'huge-declared';

let server: Server;
let url: URL;
let mode: Mode = 'ok';
let hits = 0;
/** Bytes of the huge key set written before the client hung up. */
let hugeWritten = 0;
/** Responses held open (stall), answered or closed by the test. */
const stalled: ServerResponse[] = [];
const { publicKey, privateKey } = await jose.generateKeyPair('ES256');
const keySet = JSON.stringify({ keys: [{ ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (mode === 'ok') return res.writeHead(200, { 'content-type': 'application/json' }).end(keySet);
    if (mode === 'fail') return res.writeHead(503).end('down');
    if (mode === 'stall') return void stalled.push(res);
    if (mode === 'huge-declared') return res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200_000_000) }).end();
    // 200 MB of key set, written as fast as it is read, until the client hangs up.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!res.destroyed && hugeWritten < 200_000_000) {
        hugeWritten += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.write('{"keys":[');
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/.well-known/jwks.json`);
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  mode = 'ok';
  hits = 0;
  hugeWritten = 0;
});

let clock = 1_000_000;
function keySetOf(options: Partial<RemoteKeySetOptions> = {}) {
  clock = 1_000_000;
  return new RemoteKeySet(url, jose, { fetch, now: () => clock, ...options });
}
const token = await new jose.SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setSubject('dave').setExpirationTime('1h').sign(privateKey);
const verify = (keys: RemoteKeySet) => jose.jwtVerify(token, keys.getKey, { algorithms: ['ES256'] });
const MINUTE = 60_000;

describe('the remote key set', () => {
  it('remembers a failure: a failing endpoint is asked once per 30 s, not once per token', async () => {
    const keys = keySetOf();
    mode = 'fail';
    for (let i = 0; i < 50; i++) await expect(verify(keys)).rejects.toBeInstanceOf(KeySetError);
    expect(hits).toBe(1);
    clock += 29_000;
    await expect(verify(keys)).rejects.toBeInstanceOf(KeySetError);
    expect(hits).toBe(1);
    clock += 2_000;
    mode = 'ok';
    await expect(verify(keys)).resolves.toMatchObject({ payload: { sub: 'dave' } });
    expect(hits).toBe(2);
  });

  it('serves the keys it had while refreshes fail, for up to a day, and refreshes when it can', async () => {
    const keys = keySetOf();
    await verify(keys);
    mode = 'fail';
    for (const after of [11 * MINUTE, 60 * MINUTE, 23 * 60 * MINUTE]) {
      clock = 1_000_000 + after;
      await expect(verify(keys)).resolves.toMatchObject({ payload: { sub: 'dave' } });
      // The refresh runs behind the verification; let it fail.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(hits).toBe(4);
    clock = 1_000_000 + 24 * 60 * MINUTE + 1;
    await expect(verify(keys)).rejects.toBeInstanceOf(KeySetError);
    // Back up: the next fetch (after the cooldown) holds a fresh set.
    mode = 'ok';
    clock += 30_000;
    await expect(verify(keys)).resolves.toMatchObject({ payload: { sub: 'dave' } });
  });

  it('never makes a verification wait on a refresh once it holds keys', async () => {
    const keys = keySetOf();
    await verify(keys);
    mode = 'stall';
    clock += 11 * MINUTE;
    await expect(verify(keys)).resolves.toMatchObject({ payload: { sub: 'dave' } });
    // Verified while the refresh it started is still unanswered (the endpoint never answers it).
    expect(keys.fetches).toBe(2);
    while (hits < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const res of stalled) expect(res.headersSent).toBe(false);
  });

  it('gives up a fetch after its timeout', async () => {
    const keys = keySetOf({ timeoutMs: 200 });
    mode = 'stall';
    await expect(verify(keys)).rejects.toBeInstanceOf(KeySetError);
    const res = stalled.at(-1)!;
    await new Promise((resolve) => (res.closed ? resolve(undefined) : res.once('close', resolve)));
    expect(res.headersSent).toBe(false);
  });

  it('reads at most 1 MB of key set, refusing a larger declared length unread and hanging up on a larger stream', async () => {
    mode = 'huge-declared';
    await expect(verify(keySetOf())).rejects.toBeInstanceOf(KeySetError);
    mode = 'huge';
    await expect(verify(keySetOf())).rejects.toBeInstanceOf(KeySetError);
    // Hung up after the cap (plus what the sockets held), not after 200 MB.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hugeWritten).toBeLessThan(20_000_000);
  });
});

describe('a proxy with identity.jwksUrl', () => {
  it('answers 429 to a token past its address limit before verifying it or fetching keys', async () => {
    const proxy = createSupportProxy({
      apiBaseUrl: 'http://127.0.0.1:9',
      token: 'sk_test_jwks_token',
      secret: 'a-visitor-signing-secret-of-32-chars!!',
      identity: { jwksUrl: url.href },
      visitorLimits: { perAddress: 3 },
    });
    const call = (authorization: string) => proxy(new Request('https://www.example.com/api/support/chat', { headers: { authorization } }), { remoteAddress: '203.0.113.9' });
    for (let i = 0; i < 3; i++) expect((await call('Basic dXNlcjpwYXNz')).status).toBe(401);
    const refused = await call(`Bearer ${token}`);
    expect(refused.status).toBe(429);
    expect(hits).toBe(0);
    // Another address verifies (and fetches the keys) as usual.
    const other = await proxy(new Request('https://www.example.com/api/support/visitor', { headers: { authorization: `Bearer ${token}` } }), { remoteAddress: '203.0.113.10' });
    expect(other.status).toBe(200);
    expect(hits).toBe(1);
  });
});
