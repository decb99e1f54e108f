/**
 * @module Known visitors through the real proxy and the real server over HTTP: `identify` (the
 * site's session) and `identity` (visitor JWTs signed here with jose), two devices of one visitor,
 * a second visitor, an anonymous one, logout on a shared browser, escalation without a form, and
 * the refusals (tampered, expired, wrong key, `alg: none`, unknown `kid`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createSupportProxy, type SupportProxyOptions } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { webhookReceiver, type Receiver } from '../helpers/server.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const JWT_SECRET = 'the-apps-visitor-token-secret-32+chars';
const SITE = 'https://www.example.com';
const USERS: Record<string, { id: string; email?: string; name?: string }> = {
  alice: { id: 'user-alice', email: 'alice@example.com', name: 'Alice Liddell' },
  bob: { id: 'user-bob', email: 'bob@example.com', name: 'Bob' },
  nomail: { id: 'user-nomail' },
};

let api: Awaited<ReturnType<typeof startServer>>;
let receiver: Receiver;
let jwks: Server;
let jwksUrl: string;
let token: string;
const rsa = await generateKeyPair('RS256');
const ec = await generateKeyPair('ES256');
const stranger = await generateKeyPair('RS256');

beforeAll(async () => {
  receiver = await webhookReceiver();
  const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec_identity' };
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, env });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
  // The app's key set, as its /.well-known/jwks.json would serve it.
  const keys: JWK[] = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ];
  jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const address = jwks.address();
  jwksUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/.well-known/jwks.json`;
});
afterAll(async () => {
  await api.close();
  await receiver.close();
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
});

/** The site's session cookie names the signed-in user, as an app's own session would. */
function identify(request: Request) {
  const session = /(?:^|;\s*)app_session=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  return session ? (USERS[session] ?? null) : null;
}

function proxyWith(options: Partial<SupportProxyOptions> = {}) {
  return createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, identify, visitorLimits: { messages: 10_000, polls: 10_000, escalations: 1_000 }, ...options });
}

type Proxy = ReturnType<typeof createSupportProxy>;

/** One browser: its proxy cookie jar, and the app's session (`signIn`/`signOut`) or visitor token. */
function device(proxy: Proxy) {
  let cookie = '';
  const state: { session: string | null; bearer: string | null } = { session: null, bearer: null };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const cookies = [cookie, state.session ? `app_session=${state.session}` : ''].filter(Boolean).join('; ');
    const response = await proxy(
      new Request(`${SITE}/api/support${path}`, {
        method,
        headers: {
          origin: SITE,
          'content-type': 'application/json',
          ...(cookies ? { cookie: cookies } : {}),
          ...(state.bearer ? { authorization: `Bearer ${state.bearer}` } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return { status: response.status, headers: response.headers, body: (await response.json().catch(() => null)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  return Object.assign(call, {
    state,
    signIn: (user: string) => void (state.session = user),
    signOut: () => void (state.session = null),
    get cookie() {
      return cookie;
    },
    set cookie(value: string) {
      cookie = value;
    },
  });
}
type Device = ReturnType<typeof device>;

async function ask(d: Device, message: string, conversationId?: string): Promise<string> {
  const sent = await d('POST', '/chat', conversationId ? { message, conversation_id: conversationId } : { message });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  const polled = await d('GET', `/chat/${sent.body.conversation_id}`, undefined, { prefer: 'wait=10' });
  expect(polled.body.status).toBe('completed');
  return sent.body.conversation_id;
}

const ids = (list: { body: { conversations: { id: string }[] } }) => list.body.conversations.map((c) => c.id);

describe('identify: the site session decides who is asking', () => {
  it("follows a visitor's conversations to their second device, and shows them to nobody else", async () => {
    const proxy = proxyWith();
    const laptop = device(proxy);
    laptop.signIn('alice');
    const first = await ask(laptop, 'How do I install?');
    const second = await ask(laptop, 'How do I reset my key?');

    const phone = device(proxy);
    phone.signIn('alice');
    const listed = await phone('GET', '/chat');
    expect(listed.status).toBe(200);
    expect(ids(listed)).toEqual([second, first]);
    expect(listed.body.conversations[0]).toEqual({ id: second, status: 'completed', created_at: expect.any(String), updated_at: expect.any(String), title: 'How do I reset my key?' });
    expect((await phone('GET', `/chat/${first}`)).status).toBe(200);
    // Continued on the phone; the laptop sees the follow-up.
    await ask(phone, 'And on Windows?', first);
    const onLaptop = await laptop('GET', `/chat/${first}`);
    expect(onLaptop.body.messages.map((m: { content: string }) => m.content)).toContain('And on Windows?');
    expect(ids(await laptop('GET', '/chat'))[0]).toBe(first);

    // Another proxy instance (no memory of who started what) learns the owner from the server.
    const elsewhere = device(proxyWith());
    elsewhere.signIn('alice');
    expect((await elsewhere('GET', `/chat/${second}`)).status).toBe(200);

    const bob = device(proxy);
    bob.signIn('bob');
    const anonymous = device(proxy);
    const bobElsewhere = device(proxyWith());
    bobElsewhere.signIn('bob');
    for (const other of [bob, anonymous, bobElsewhere]) {
      expect(ids(await other('GET', '/chat'))).toEqual([]);
      for (const id of [first, second]) {
        expect((await other('GET', `/chat/${id}`)).status).toBe(404);
        expect((await other('POST', '/chat', { message: 'mine?', conversation_id: id })).status).toBe(404);
        expect((await other('POST', `/chat/${id}/escalate`, { name: 'B', email: 'b@example.com' })).status).toBe(404);
        expect((await other('POST', `/chat/${id}/feedback`, { rating: 'down' })).status).toBe(404);
      }
    }
  });

  it('lists an anonymous visitor’s own conversations (bound to their cookie) and nobody else’s', async () => {
    const proxy = proxyWith();
    const anonymous = device(proxy);
    const mine = await ask(anonymous, 'Anonymous question');
    expect(ids(await anonymous('GET', '/chat'))).toEqual([mine]);
    expect(ids(await device(proxy)('GET', '/chat'))).toEqual([]);
    const alice = device(proxy);
    alice.signIn('alice');
    expect(ids(await alice('GET', '/chat'))).not.toContain(mine);
  });

  it("never lists an anonymous visitor's conversation to a signed-in visitor of the same id, from any proxy of the organization", async () => {
    // Another client of the organization (another proxy, say) started one for an anonymous visitor whose id is Alice's.
    const started = await fetch(`${api.url}/v0/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Anonymous, same id', visitor: { id: USERS.alice!.id, verified: false } }),
    });
    const { conversation_id: theirs } = (await started.json()) as { conversation_id: string };
    const alice = device(proxyWith());
    alice.signIn('alice');
    const hers = await ask(alice, 'Signed in');
    const listed = ids(await alice('GET', '/chat'));
    expect(listed).toContain(hers);
    expect(listed).not.toContain(theirs);
    expect((await alice('GET', `/chat/${theirs}`)).status).toBe(404);
  });

  it('shows nothing of a visitor on a shared browser once they sign out, or another visitor signs in', async () => {
    const proxy = proxyWith();
    const shared = device(proxy);
    const before = await ask(shared, 'Asked before signing in');
    shared.signIn('alice');
    const hers = await ask(shared, 'Alice’s private question');
    expect(ids(await shared('GET', '/chat'))).toContain(hers);
    // Alice's session is not anonymous history: her conversation is not in the cookie.
    expect(ids(await shared('GET', '/chat'))).not.toContain(before);

    shared.signOut();
    expect((await shared('GET', `/chat/${hers}`)).status).toBe(404);
    expect(ids(await shared('GET', '/chat'))).toEqual([before]);
    shared.signIn('bob');
    expect((await shared('GET', `/chat/${hers}`)).status).toBe(404);
    expect((await shared('POST', '/chat', { message: 'hi', conversation_id: hers })).status).toBe(404);
    expect(ids(await shared('GET', '/chat'))).toEqual([]);
    shared.signIn('alice');
    expect((await shared('GET', `/chat/${hers}`)).status).toBe(200);
  });

  it('says who the visitor is at GET /visitor: a stable tag per id on every device, no id or secret, nothing for anonymous', async () => {
    const proxy = proxyWith();
    const shared = device(proxy);
    expect(await shared('GET', '/visitor')).toMatchObject({ status: 200, body: { known: false } });
    expect(Object.keys((await shared('GET', '/visitor')).body)).toEqual(['known']);
    shared.signIn('alice');
    const alice = (await shared('GET', '/visitor')).body;
    expect(alice).toEqual({ known: true, tag: expect.stringMatching(/^[\w-]{22}$/), name: 'Alice Liddell', email: 'alice@example.com' });
    expect(JSON.stringify(alice)).not.toContain('user-alice');
    // Her other device (no cookie of this one), and another proxy instance sharing the secret: the same tag.
    const laptop = device(proxyWith());
    laptop.signIn('alice');
    expect((await laptop('GET', '/visitor')).body.tag).toBe(alice.tag);
    // Another visitor, another tag; a proxy with another secret tags Alice differently.
    shared.signIn('bob');
    expect((await shared('GET', '/visitor')).body.tag).not.toBe(alice.tag);
    const elsewhere = device(proxyWith({ secret: 'another-visitor-signing-secret-32chars!' }));
    elsewhere.signIn('alice');
    expect((await elsewhere('GET', '/visitor')).body.tag).not.toBe(alice.tag);
    shared.signIn('nomail');
    expect((await shared('GET', '/visitor')).body).toEqual({ known: true, tag: expect.any(String) });
    shared.signOut();
    expect((await shared('GET', '/visitor')).body).toEqual({ known: false });
    // Required mode: no visitor is 401, as for every route.
    expect((await device(proxyWith({ identityMode: 'required' }))('GET', '/visitor')).status).toBe(401);
  });

  it('escalates a known visitor with no form: name and email from the identity, marked verified in the ticket', async () => {
    const proxy = proxyWith();
    const alice = device(proxy);
    alice.signIn('alice');
    const id = await ask(alice, 'My invoice is wrong');
    const before = receiver.deliveries.length;
    // Even a typed-in address does not replace the one the site vouches for.
    const escalated = await alice('POST', `/chat/${id}/escalate`, { email: 'someone-else@example.com' });
    expect(escalated.status, JSON.stringify(escalated.body)).toBe(200);
    const ticket = JSON.parse(receiver.deliveries[before]!.body);
    expect(ticket.customer).toEqual({ name: 'Alice Liddell', email: 'alice@example.com', verified: true });

    const nomail = device(proxy);
    nomail.signIn('nomail');
    const other = await ask(nomail, 'Help');
    expect((await nomail('POST', `/chat/${other}/escalate`, {})).status).toBe(400);
    expect((await nomail('POST', `/chat/${other}/escalate`, { name: 'N', email: 'n@example.com' })).status).toBe(200);
    expect(JSON.parse(receiver.deliveries.at(-1)!.body).customer.verified).toBe(false);
  });

  it('answers 401 in required mode when identify returns null, and serves a signed-in visitor', async () => {
    const proxy = proxyWith({ identityMode: 'required' });
    const anonymous = device(proxy);
    for (const [method, path, body] of [['GET', '/chat'], ['POST', '/chat', { message: 'hi' }], ['GET', '/chat/conv_x']] as const) {
      const res = await anonymous(method, path, body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message: 'Sign in to use support chat' } });
    }
    anonymous.signIn('alice');
    expect((await anonymous('GET', '/chat')).status).toBe(200);
    expect(() => createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, identityMode: 'required' })).toThrow(/needs identify or identity/);
  });

  it('answers 500 (never anonymous) when identify throws or returns a malformed visitor', async () => {
    const throwing = device(proxyWith({ identify: () => Promise.reject(new Error('session store down')) }));
    expect((await throwing('GET', '/chat')).status).toBe(500);
    const malformed = device(proxyWith({ identify: () => ({ id: '' }) }));
    expect((await malformed('GET', '/chat')).status).toBe(500);
  });
});

const now = () => Math.floor(Date.now() / 1000);

function hs(claims: Record<string, unknown>, secret = JWT_SECRET, header: Record<string, unknown> = {}) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', ...header }).sign(new TextEncoder().encode(secret));
}
function signed(key: CryptoKey, alg: string, kid: string, claims: Record<string, unknown>) {
  return new SignJWT(claims).setProtectedHeader({ alg, kid }).sign(key);
}
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('identity: visitor JWTs', () => {
  it('accepts an HS256 token: sub is the id, and the conversations follow it to another device', async () => {
    const proxy = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, identity: { secret: JWT_SECRET, issuer: 'https://app.example.com', audience: 'support-chat' } });
    const claims = { sub: 'jwt-carol', email: 'carol@example.com', name: 'Carol', iss: 'https://app.example.com', aud: 'support-chat', exp: now() + 600 };
    const laptop = device(proxy);
    laptop.state.bearer = await hs(claims);
    const id = await ask(laptop, 'Token question');
    const phone = device(proxy);
    phone.state.bearer = await hs({ ...claims, exp: now() + 900 });
    expect(ids(await phone('GET', '/chat'))).toEqual([id]);
    expect((await phone('POST', `/chat/${id}/escalate`, {})).status).toBe(200);
    expect(JSON.parse(receiver.deliveries.at(-1)!.body).customer).toEqual({ name: 'Carol', email: 'carol@example.com', verified: true });

    const valid = await hs(claims);
    const [header, payload, signature] = valid.split('.');
    const refusals: Record<string, string> = {
      tampered: `${header}.${b64({ ...claims, sub: 'jwt-mallory' })}.${signature}`,
      expired: await hs({ ...claims, exp: now() - 120 }),
      'wrong key': await hs(claims, 'another-secret-that-is-32-chars-long!!'),
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'no exp': await hs({ ...claims, exp: undefined }),
      'exp over 24 h ahead': await hs({ ...claims, exp: now() + 25 * 3600 }),
      'wrong issuer': await hs({ ...claims, iss: 'https://evil.example.com' }),
      'wrong audience': await hs({ ...claims, aud: 'another-app' }),
      'no sub': await hs({ ...claims, sub: undefined }),
      'RS256 where HS256 is expected': await signed(rsa.privateKey, 'RS256', 'rsa-1', claims),
      garbage: 'not-a-jwt',
    };
    for (const [name, bearer] of Object.entries(refusals)) {
      const other = device(proxy);
      other.state.bearer = bearer;
      for (const [method, path] of [['GET', '/chat'], ['GET', `/chat/${id}`], ['GET', '/visitor']] as const) {
        const res = await other(method, path);
        expect(res.status, name).toBe(401);
        expect(res.body.error.code, name).toBe('unauthorized');
      }
    }
    const malformed = device(proxy);
    expect((await malformed('GET', '/chat', undefined, { authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(401);
  });

  it('verifies RS256 and ES256 tokens from the app’s JWKS, and refuses an unknown kid or a stranger’s key', async () => {
    const proxy = createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, identity: { jwksUrl } });
    const claims = { sub: 'jwks-dave', exp: now() + 600 };
    const rs = device(proxy);
    rs.state.bearer = await signed(rsa.privateKey, 'RS256', 'rsa-1', claims);
    const id = await ask(rs, 'RSA question');
    const es = device(proxy);
    es.state.bearer = await signed(ec.privateKey, 'ES256', 'ec-1', claims);
    expect(ids(await es('GET', '/chat'))).toEqual([id]);
    for (const bearer of [
      await signed(rsa.privateKey, 'RS256', 'rsa-unknown', claims),
      await signed(stranger.privateKey, 'RS256', 'rsa-1', claims),
      await hs(claims, JWT_SECRET, { kid: 'rsa-1' }),
      `${b64({ alg: 'none', kid: 'rsa-1' })}.${b64(claims)}.`,
    ]) {
      const other = device(proxy);
      other.state.bearer = bearer;
      expect((await other('GET', `/chat/${id}`)).status).toBe(401);
    }
  });

  it('checks the identity options when the proxy is created', () => {
    const base = { apiBaseUrl: api.url, token, secret: SECRET };
    expect(() => createSupportProxy({ ...base, identity: {} })).toThrow(/exactly one of secret and jwksUrl/);
    expect(() => createSupportProxy({ ...base, identity: { secret: 'short' } })).toThrow(/at least 32/);
    expect(() => createSupportProxy({ ...base, identity: { jwksUrl: 'ftp://x' } })).toThrow(/jwksUrl/);
    expect(() => createSupportProxy({ ...base, identify: 'yes' as never })).toThrow(/identify must be a function/);
    expect(() => createSupportProxy({ ...base, identify, identityMode: 'sometimes' as never })).toThrow(/identityMode/);
  });
});
