/**
 * The server behind a reverse proxy: with `trustProxy`, requests without a token count per the
 * client the proxy names in `X-Forwarded-For` (parsed as the proxy package parses it), not all in
 * the proxy's one bucket; forged entries left of the trusted one change nothing.
 */
import { describe, expect, it } from 'vitest';
import { ServerConfigError } from '../../src/server/index.js';
import { testServer } from '../helpers/server.js';

const PROXY = '10.0.0.2';
const get = (t: Awaited<ReturnType<typeof testServer>>, forwardedFor?: string) =>
  t.call('GET', '/v0/openapi.json', { address: PROXY, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

describe('trustProxy on the server', () => {
  it('without it, every client behind the proxy shares one bucket', async () => {
    const t = await testServer({ rateLimits: { perAddress: 2 } });
    const statuses = [];
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) statuses.push((await get(t, client)).status);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('with it, counts each client the proxy names, ignoring forged entries to its left', async () => {
    const t = await testServer({ trustProxy: true, rateLimits: { perAddress: 2 } });
    expect((await get(t, '1.1.1.1, 203.0.113.1')).status).toBe(200);
    expect((await get(t, '2.2.2.2, 203.0.113.1')).status).toBe(200);
    expect((await get(t, '3.3.3.3, 203.0.113.1')).status).toBe(429);
    expect((await get(t, '203.0.113.2')).status).toBe(200);
    // IPv6 clients by their /56, as everywhere.
    expect((await get(t, '2001:db8:5:5::1')).status).toBe(200);
    expect((await get(t, '2001:db8:5:6::2')).status).toBe(200);
    expect((await get(t, '2001:db8:5:7::3')).status).toBe(429);
  });

  it('counts a client the proxy names with a port (one per connection) under its address alone', async () => {
    const t = await testServer({ trustProxy: true, rateLimits: { perAddress: 2 } });
    expect((await get(t, '203.0.113.1:5678')).status).toBe(200);
    expect((await get(t, '203.0.113.1:5679')).status).toBe(200);
    expect((await get(t, '203.0.113.1')).status).toBe(429);
    expect((await get(t, '[2001:db8::1]:80')).status).toBe(200);
    expect((await get(t, '[2001:db8::2]:443')).status).toBe(200);
    expect((await get(t, '[2001:db8::3]')).status).toBe(429);
  });

  it('reads SUPPORT_CHAT_TRUST_PROXY, and refuses what is not a number of proxies', async () => {
    const t = await testServer({ env: { SUPPORT_CHAT_TRUST_PROXY: '2' }, rateLimits: { perAddress: 1 } });
    expect((await get(t, '203.0.113.9, 192.0.2.1')).status).toBe(200);
    expect((await get(t, '203.0.113.9, 192.0.2.2')).status).toBe(429);
    await expect(testServer({ env: { SUPPORT_CHAT_TRUST_PROXY: 'yes' } })).rejects.toThrow(ServerConfigError);
    await expect(testServer({ trustProxy: -1 })).rejects.toThrow('trustProxy must be a boolean or a whole number of proxies');
  });
});
