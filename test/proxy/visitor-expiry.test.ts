/**
 * Visitor cookies expire at the proxy, not only in the browser: a signed cookie carries its issue
 * time, and one older than `visitorMaxAgeSeconds` (or with none, or from the future) is a stranger's.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSupportProxy } from '../../src/proxy/index.js';
import { decodeVisitor, encodeVisitor } from '../../src/proxy/visitor.js';
import { fakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const SITE = 'https://www.example.com';
const DAY = 86_400_000;
let up: FakeUpstream;
beforeEach(async () => {
  up = await fakeUpstream();
});
afterEach(() => up.close());

const read = (handler: ReturnType<typeof createSupportProxy>, cookie: string, id = 'conv_1') =>
  handler(new Request(`${SITE}/api/support/chat/${id}`, { headers: { origin: SITE, cookie: `sc_visitor=${cookie}` } }), { remoteAddress: '198.51.100.7' });

/** A correctly signed cookie of the shape before issue times: no `t`. */
function legacyCookie(): string {
  const payload = Buffer.from(JSON.stringify({ v: 'old-visitor', c: ['conv_1'] })).toString('base64url');
  return `${payload}.${createHmac('sha256', SECRET).update(payload).digest('base64url')}`;
}

describe('visitor cookie expiry', () => {
  it('honours a cookie within its maximum age, and refuses one past it, from the future, or without an issue time', async () => {
    const handler = createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, visitorMaxAgeSeconds: 7 * 86_400 });
    const visitor = { id: 'v1', conversations: ['conv_1'] };
    expect((await read(handler, encodeVisitor(SECRET, visitor, Date.now() - 6 * DAY))).status).toBe(200);
    expect(up.calls).toHaveLength(1);
    for (const cookie of [encodeVisitor(SECRET, visitor, Date.now() - 8 * DAY), encodeVisitor(SECRET, visitor, Date.now() + DAY), legacyCookie()]) {
      const res = await read(handler, cookie);
      expect(res.status).toBe(404);
    }
    // Refused without asking upstream.
    expect(up.calls).toHaveLength(1);
  });

  it('issues cookies with the same Max-Age it enforces, 30 days by default', async () => {
    const send = (handler: ReturnType<typeof createSupportProxy>) =>
      handler(new Request(`${SITE}/api/support/chat`, { method: 'POST', headers: { origin: SITE, 'content-type': 'application/json' }, body: '{"message":"hi"}' }), { remoteAddress: '198.51.100.8' });
    const byDefault = await send(createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET }));
    expect(byDefault.headers.get('set-cookie')).toContain('Max-Age=2592000;');
    const week = await send(createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, visitorMaxAgeSeconds: 604_800 }));
    const cookie = week.headers.get('set-cookie')!;
    expect(cookie).toContain('Max-Age=604800;');
    const value = cookie.split(';')[0]!.slice('sc_visitor='.length);
    expect(decodeVisitor(SECRET, value, 604_800)).not.toBeNull();
    expect(decodeVisitor(SECRET, value, 604_800, Date.now() + 604_801_000)).toBeNull();
  });

  it('refuses a bad maximum age', () => {
    expect(() => createSupportProxy({ apiBaseUrl: up.url, token: up.token, secret: SECRET, visitorMaxAgeSeconds: -1 })).toThrow(/visitorMaxAgeSeconds/);
  });
});
