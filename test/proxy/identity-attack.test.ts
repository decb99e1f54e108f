/**
 * @module The attack on known visitors, through the real proxy and the real server: over 1,000
 * attempts by a signed-in attacker and anonymous ones — guessed conversation ids, swapped and
 * forged cookies, replayed and tampered tokens, a valid token of another `sub` — and not one of
 * them reads, continues, rates or escalates another visitor's conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { createSupportProxy } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const JWT_SECRET = 'the-apps-visitor-token-secret-32+chars';
const SITE = 'https://www.example.com';
const MARKERS = ['ALICE-SECRET', 'VICTOR-SECRET'];

let api: Awaited<ReturnType<typeof startServer>>;
let token: string;
beforeAll(async () => {
  const high = 1_000_000;
  api = await startServer({
    dataDir: ':memory:',
    port: 0,
    engine: createTestEngine(),
    logger: silentLogger,
    env: {},
    rateLimits: { perToken: high, perOrganization: high, endpoints: { send: high, escalate: high } },
  });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
});
afterAll(() => api.close());

const now = () => Math.floor(Date.now() / 1000);
const jwt = (claims: Record<string, unknown>, secret = JWT_SECRET) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

describe('attack on known visitors', () => {
  it('gives zero cross-visitor reads in over 1,000 attempts', async () => {
    // Both ways of knowing a visitor at once: the site's session (a test header here), or a visitor JWT.
    const handler = createSupportProxy({
      apiBaseUrl: api.url,
      token,
      secret: SECRET,
      identity: { secret: JWT_SECRET },
      identify: (request) => {
        const user = request.headers.get('x-test-session');
        return user ? { id: user, email: `${user}@example.com` } : null;
      },
      visitorLimits: { messages: 1_000_000, polls: 1_000_000, escalations: 1_000_000, newVisitorsPerAddress: 1_000_000 },
    });
    const call = async (method: string, path: string, init: { cookie?: string; bearer?: string; session?: string; body?: unknown } = {}) => {
      const headers: Record<string, string> = { origin: SITE, 'content-type': 'application/json' };
      if (init.cookie) headers.cookie = init.cookie;
      if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
      if (init.session) headers['x-test-session'] = init.session;
      const response = await handler(new Request(`${SITE}/api/support${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }));
      const text = await response.text();
      return { status: response.status, text, cookie: response.headers.get('set-cookie')?.split(';')[0] };
    };
    const ask = async (message: string, init: { cookie?: string; bearer?: string; session?: string }) => {
      const sent = await call('POST', '/chat', { ...init, body: { message } });
      expect(sent.status).toBe(202);
      const id = JSON.parse(sent.text).conversation_id as string;
      const polled = await call('GET', `/chat/${id}`, { ...init, cookie: sent.cookie ?? init.cookie });
      expect(polled.status).toBe(200);
      return { id, cookie: sent.cookie };
    };

    // Victims: Alice (signed in by token on her laptop, by session on her phone) and Victor (anonymous).
    const aliceToken = await jwt({ sub: 'alice', email: 'alice@example.com', exp: now() + 3600 });
    const aliceLaptop = await ask('ALICE-SECRET one', { bearer: aliceToken });
    const alicePhone = await ask('ALICE-SECRET two', { session: 'alice', cookie: aliceLaptop.cookie });
    const victor = await ask('VICTOR-SECRET one', {});
    const victims = [aliceLaptop.id, alicePhone.id, victor.id];
    const aliceTag = (JSON.parse((await call('GET', '/visitor', { bearer: aliceToken })).text) as { tag: string }).tag;
    expect(JSON.parse((await call('GET', '/visitor', { session: 'alice' })).text)).toEqual({ known: true, tag: aliceTag, email: 'alice@example.com' });
    // Alice's own devices read both of hers: the checks below fail for the right reason.
    expect((await call('GET', `/chat/${alicePhone.id}`, { bearer: aliceToken })).status).toBe(200);
    expect((await call('GET', `/chat/${aliceLaptop.id}`, { session: 'alice' })).status).toBe(200);
    expect((await call('GET', `/chat/${victor.id}`, { cookie: victor.cookie })).status).toBe(200);

    const malloryToken = await jwt({ sub: 'mallory', exp: now() + 3600 });
    const mallory = await ask('my own question', { bearer: malloryToken });
    const expiredAlice = await jwt({ sub: 'alice', exp: now() - 600 });
    const [header, , signature] = malloryToken.split('.');
    const forgedSub = `${header}.${Buffer.from(JSON.stringify({ sub: 'alice', exp: now() + 3600 })).toString('base64url')}.${signature}`;
    const wrongKey = await jwt({ sub: 'alice', exp: now() + 3600 }, 'not-the-apps-secret-but-32-chars-long');
    // Mallory's cookie with its payload swapped for one naming the victims' conversations.
    const mallorySignature = (mallory.cookie ?? 'sc_visitor=x.y').split('.')[1];
    const swappedPayload = Buffer.from(JSON.stringify({ v: 'mallory', c: victims })).toString('base64url');
    const forgedCookie = `sc_visitor=${swappedPayload}.${mallorySignature}`;

    type Identity = { cookie?: string; bearer?: string; session?: string };
    const identities: [string, Identity][] = [
      ['token of another sub', { bearer: malloryToken, cookie: mallory.cookie }],
      ['session of another visitor', { session: 'mallory' }],
      ['Alice’s device cookie, signed out', { cookie: aliceLaptop.cookie }],
      ['Alice’s device cookie with another token', { cookie: aliceLaptop.cookie, bearer: malloryToken }],
      ['Victor’s cookie with a signed-in session', { cookie: victor.cookie, session: 'mallory' }],
      ['replayed expired token', { bearer: expiredAlice }],
      ['tampered sub', { bearer: forgedSub }],
      ['wrong key', { bearer: wrongKey }],
      ['forged cookie', { cookie: forgedCookie }],
      ['anonymous', {}],
    ];
    const guessed = () => `conv_${randomBytes(16).toString('hex')}`;
    let attempts = 0;
    const breaches: string[] = [];
    const check = (label: string, result: { status: number; text: string }, targetsVictim: boolean) => {
      attempts++;
      if (MARKERS.some((m) => result.text.includes(m)) || (targetsVictim && result.status >= 200 && result.status < 300) || victims.some((v) => result.text.includes(v))) {
        breaches.push(`${label}: ${result.status} ${result.text.slice(0, 120)}`);
      }
    };
    for (let round = 0; round < 11; round++) {
      for (const [label, who] of identities) {
        const targets = [...victims, guessed(), guessed()];
        for (const id of targets) {
          const isVictim = victims.includes(id);
          check(`${label} GET ${id}`, await call('GET', `/chat/${id}`, who), isVictim);
          check(`${label} POST follow-up ${id}`, await call('POST', '/chat', { ...who, body: { message: 'let me in', conversation_id: id } }), isVictim);
          if (round % 3 === 0) {
            check(`${label} escalate ${id}`, await call('POST', `/chat/${id}/escalate`, { ...who, body: { name: 'M', email: 'm@example.com' } }), isVictim);
            check(`${label} feedback ${id}`, await call('POST', `/chat/${id}/feedback`, { ...who, body: { rating: 'down' } }), isVictim);
          }
        }
        check(`${label} list`, await call('GET', '/chat', who), false);
        // Who-am-I never names Alice (her tag or email) to anyone else.
        const whoIs = await call('GET', '/visitor', who);
        check(`${label} visitor`, whoIs, false);
        if (whoIs.text.includes(aliceTag) || whoIs.text.includes('alice@example.com')) breaches.push(`${label} visitor: ${whoIs.text}`);
      }
    }
    expect(attempts).toBeGreaterThanOrEqual(1_000);
    expect(breaches).toEqual([]);
    // Alice still reads hers after the attack, on either device.
    expect((await call('GET', `/chat/${aliceLaptop.id}`, { session: 'alice' })).text).toContain('ALICE-SECRET one');
  }, 120_000);
});
