/**
 * Per-address limits on IPv6, through the proxy and the server: one subscriber's /64 holds 2^64
 * addresses, so addresses are counted per /64, and 160 addresses of one /64 cannot spend the
 * token's quota a visitor elsewhere needs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSupportProxy } from '../../src/proxy/index.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { testServer } from '../helpers/server.js';

const SITE = 'https://www.example.com';
let up: FakeUpstream;
beforeEach(async () => {
  up = await fakeUpstream();
});
afterEach(() => up.close());

const send = (handler: ReturnType<typeof createSupportProxy>, remoteAddress: string) =>
  handler(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"message":"hi"}' }), { remoteAddress });

describe('IPv6 visitors', () => {
  it('through the proxy, count 160 addresses of one /64 as one client', async () => {
    const handler = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: 'a-visitor-signing-secret-of-32-chars!!', visitorLimits: { perAddress: 10, newVisitorsPerAddress: 1_000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 160; i++) statuses.push((await send(handler, `2001:db8:1:2:${i.toString(16)}::${(i + 1).toString(16)}`)).status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(150);
    expect(up.calls).toHaveLength(10);
    // A visitor in another /64, and one on IPv4, still get through.
    expect((await send(handler, '2001:db8:1:3::1')).status).toBe(202);
    expect((await send(handler, '198.51.100.7')).status).toBe(202);
  });

  it('through the proxy, count new visitors of one /64 together', async () => {
    const handler = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: 'a-visitor-signing-secret-of-32-chars!!', visitorLimits: { perAddress: 1_000, newVisitorsPerAddress: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(handler, `2001:db8:7:7::${i + 1}`)).status);
    expect(statuses).toEqual([202, 202, 202, 429, 429, 429]);
  });

  it("on the server, count requests without a token per /64 in the address's bucket", async () => {
    const t = await testServer({ rateLimits: { perAddress: 5 } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await t.call('GET', '/v0/openapi.json', { address: `2001:db8:9:9:${i + 1}::1` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect((await t.call('GET', '/v0/openapi.json', { address: '2001:db8:9:a::1' })).status).toBe(200);
  });
});
