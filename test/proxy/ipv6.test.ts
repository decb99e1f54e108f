/**
 * Per-address limits on IPv6, through the proxy and the server: one subscriber commonly holds a
 * /56 (256 /64s of 2^64 addresses each), so addresses are counted per /56 unless `ipv6Prefix` says
 * otherwise, and 160 addresses across the /64s of one /56 cannot spend the token's quota a visitor
 * elsewhere needs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSupportProxy } from '../../src/proxy/index.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testServer } from '../helpers/server.js';
import { ServerConfigError } from '../../src/server/index.js';

const SITE = 'https://www.example.com';
let up: FakeUpstream;
beforeEach(async () => {
  // Limits count per minute of the clock: the clock stands still at a minute's start, so a test's
  // requests never straddle two windows (which let 18 of 160 requests through instead of 10).
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
  up = await fakeUpstream();
});
afterEach(async () => {
  vi.useRealTimers();
  await up.close();
});

const send = (handler: ReturnType<typeof createSupportProxy>, remoteAddress: string) =>
  handler(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"message":"hi"}' }), { remoteAddress });

describe('IPv6 visitors', () => {
  it('through the proxy, count 160 addresses across two /64s of one /56 as one client, or per /64 with ipv6Prefix: 64', async () => {
    const options = { apiBaseUrl: up.url, token: up.token, secret: 'a-visitor-signing-secret-of-32-chars!!', visitorLimits: { perAddress: 10, newVisitorsPerAddress: 1_000 } };
    const address = (i: number) => `2001:db8:1:${i % 2 ? '2aa' : '201'}:${i.toString(16)}::${(i + 1).toString(16)}`;
    const handler = createSupportProxy(options);
    const statuses: number[] = [];
    for (let i = 0; i < 160; i++) statuses.push((await send(handler, address(i))).status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(150);
    expect(up.calls).toHaveLength(10);
    // A visitor in another /56, and one on IPv4, still get through.
    expect((await send(handler, '2001:db8:1:300::1')).status).toBe(202);
    expect((await send(handler, '198.51.100.7')).status).toBe(202);
    const per64 = createSupportProxy({ ...options, ipv6Prefix: 64 });
    const apart: number[] = [];
    for (let i = 0; i < 40; i++) apart.push((await send(per64, address(i))).status);
    expect(apart.filter((s) => s === 202)).toHaveLength(20);
    expect(() => createSupportProxy({ ...options, ipv6Prefix: 8 })).toThrow('createSupportProxy: ipv6Prefix must be a whole number from 16 to 128');
  });

  it('through the proxy, count new visitors of one /64 together', async () => {
    const handler = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: 'a-visitor-signing-secret-of-32-chars!!', visitorLimits: { perAddress: 1_000, newVisitorsPerAddress: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(handler, `2001:db8:7:7::${i + 1}`)).status);
    expect(statuses).toEqual([202, 202, 202, 429, 429, 429]);
  });

  it("on the server, count requests without a token per /56 in the address's bucket, or per SUPPORT_CHAT_IPV6_PREFIX", async () => {
    const t = await testServer({ rateLimits: { perAddress: 5 } });
    const statuses: number[] = [];
    // Eight /64s of 2001:db8:9:900::/56.
    for (let i = 0; i < 8; i++) statuses.push((await t.call('GET', '/v0/openapi.json', { address: `2001:db8:9:9${i}0::1` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect((await t.call('GET', '/v0/openapi.json', { address: '2001:db8:9:a00::1' })).status).toBe(200);
    const per64 = await testServer({ rateLimits: { perAddress: 1 }, env: { SUPPORT_CHAT_IPV6_PREFIX: '64' } });
    const apart: number[] = [];
    for (let i = 0; i < 4; i++) apart.push((await per64.call('GET', '/v0/openapi.json', { address: `2001:db8:9:9${i}0::1` })).status);
    expect(apart).toEqual([200, 200, 200, 200]);
    await expect(testServer({ env: { SUPPORT_CHAT_IPV6_PREFIX: 'x' } })).rejects.toThrow(ServerConfigError);
  });
});
