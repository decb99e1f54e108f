/**
 * Known visitors in the widget (issue 31), against the real proxy and server (identity-setup.ts):
 * the recent conversations from the site's session alone, the fields the site knows, the visitor
 * token refreshed once when it expires, and a shared browser after logout.
 */
import { describe, expect, inject, it } from 'vitest';
import { fixture, html, waitUntil } from '@open-wc/testing-helpers';
import { SignJWT } from 'jose';
import './setup.js';
import '../../src/widget/support-chat.js';
import type { SupportChat } from '../../src/widget/support-chat.js';
import { VisitorToken, type IdentityToken } from '../../src/widget/identity-token.js';
import { ProxyClient } from '../../src/widget/client.js';
import { typeAndSend, wrap, type Mounted } from './helpers.js';

const base = inject('identityUrl');
/** identity-setup.ts's JWT_SECRET (that module runs in Node, so it is not imported here). */
const JWT_SECRET = 'the-widget-tests-visitor-token-secret!';
let users = 0;

interface Visitor {
  id: string;
  name?: string;
  email?: string;
}

/** A site: its own proxy, and its session cookie that `identify` reads (signIn/signOut). */
async function site(identityMode?: 'required') {
  const { ns } = (await (await fetch(`${base}/__proxy`, { method: 'POST', body: JSON.stringify({ origin: location.origin, identityMode }) })).json()) as { ns: string };
  return {
    endpoint: `${base}/${ns}`,
    signIn(visitor: Visitor) {
      const value = btoa(JSON.stringify(visitor)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      document.cookie = `user_${ns}=${value}; path=/`;
    },
    signOut() {
      document.cookie = `user_${ns}=; path=/; max-age=0`;
    },
  };
}

const visitor = (extra: Omit<Visitor, 'id'> = {}): Visitor => ({ id: `user-${Date.now().toString(36)}-${++users}`, ...extra });

/** One widget (inline) on `endpoint`; `storageKey` is its browser's storage ("device"), `token` its identityToken. */
async function widget(endpoint: string, storageKey: string, token: IdentityToken | null = null): Promise<Mounted> {
  const el = await fixture<SupportChat>(html`<support-chat endpoint=${endpoint} mode="inline" storage-key=${storageKey} .identityToken=${token}></support-chat>`);
  await el.updateComplete;
  return wrap(el, endpoint);
}

/** The proxy has said who the visitor is (and the widget rendered it). */
async function identified(m: Mounted): Promise<void> {
  await waitUntil(() => (m.el as unknown as { _identity: { visitor: unknown } })._identity.visitor !== null, 'the proxy did not say who the visitor is', { timeout: 8_000 });
  await m.el.updateComplete;
}

const recent = (m: Mounted) => (m.part('recent') ? [...m.part('recent')!.querySelectorAll('button')].map((b) => b.textContent?.trim()) : []);
const texts = (m: Mounted) => m.parts('message').map((e) => e.querySelector('.content')?.textContent?.trim() ?? '');
const stored = (storageKey: string, endpoint: string) => localStorage.getItem(`support-chat:${storageKey}:${endpoint}`);

const now = () => Math.floor(Date.now() / 1000);
let jti = 0;
/** A visitor JWT as the app would sign it; `expiresIn` seconds from now (negative: already expired). */
const jwt = (sub: string, expiresIn: number, claims: Record<string, unknown> = {}) =>
  new SignJWT({ email: `${sub}@example.com`, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setJti(`t${++jti}`)
    .setExpirationTime(now() + expiresIn)
    .sign(new TextEncoder().encode(JWT_SECRET));

describe("a signed-in visitor's recent conversations, from the site's session alone (identify)", () => {
  it('lists what they asked on another device, continues it there, and shows it to nobody else', async () => {
    const s = await site();
    const ada = visitor({ name: 'Ada', email: 'ada@example.com' });
    s.signIn(ada);
    const laptop = await widget(s.endpoint, 'laptop');
    await identified(laptop);
    expect(recent(laptop)).toEqual([]);
    await typeAndSend(laptop, 'How do I rotate my API key?');
    await laptop.answered();

    // A second browser of hers: nothing stored there, the same session.
    const phone = await widget(s.endpoint, 'phone');
    await waitUntil(() => recent(phone).length > 0, 'no recent conversations', { timeout: 8_000 });
    expect(recent(phone)).toEqual(['How do I rotate my API key?']);
    expect(phone.part('recent')!.getAttribute('aria-labelledby')).toBeTruthy();
    await expect(phone.el).to.be.accessible();
    (phone.part('recent')!.querySelector('button') as HTMLButtonElement).click();
    await phone.answered();
    expect(texts(phone)[0]).toBe('How do I rotate my API key?');
    expect(phone.part('recent')).toBeNull();
    // Continued there: the follow-up joins her conversation, and is this browser's conversation now.
    const id = (JSON.parse(stored('laptop', s.endpoint)!) as { conversationId: string }).conversationId;
    expect((JSON.parse(stored('phone', s.endpoint)!) as { conversationId: string }).conversationId).toBe(id);
    await typeAndSend(phone, 'And the old one?');
    await phone.answered(2);
    expect(texts(phone)).toEqual(['How do I rotate my API key?', expect.any(String), 'And the old one?', expect.any(String)]);

    // Another visitor, and an anonymous one, see nothing of it.
    s.signIn(visitor({ name: 'Bob' }));
    const bob = await widget(s.endpoint, 'bob');
    await identified(bob);
    expect(recent(bob)).toEqual([]);
    s.signOut();
    const anonymous = await widget(s.endpoint, 'anonymous');
    await identified(anonymous);
    expect(recent(anonymous)).toEqual([]);
  });
});

describe('escalation for a visitor the site knows', () => {
  it('asks neither name nor email when both are known, and the ticket says the site verified the email', async () => {
    const s = await site();
    const grace = visitor({ name: 'Grace Hopper', email: 'grace@example.com' });
    s.signIn(grace);
    const w = await widget(s.endpoint, 'grace');
    await identified(w);
    await typeAndSend(w, 'My invoice is wrong');
    await w.answered();
    (w.part('escalation')!.querySelector('button') as HTMLButtonElement).click();
    await w.el.updateComplete;
    const form = w.part('escalation-form') as HTMLFormElement;
    expect(form.querySelector('input[name="name"]')).toBeNull();
    expect(form.querySelector('input[name="email"]')).toBeNull();
    expect(form.textContent).toContain('Someone from the team will follow up with this conversation by email at grace@example.com.');
    await expect(w.el).to.be.accessible();
    form.requestSubmit();
    await waitUntil(() => w.part('ticket'), 'no ticket', { timeout: 8_000 });
    const tickets = (await (await fetch(`${base}/__tickets`)).json()) as { customer: unknown; transcript?: unknown }[];
    expect(tickets.at(-1)!.customer).toEqual({ name: 'Grace Hopper', email: 'grace@example.com', verified: true });
  });

  it('asks only for what is not known: the name of a visitor known by email, both for an anonymous one', async () => {
    const s = await site();
    s.signIn(visitor({ email: 'nameless@example.com' }));
    const known = await widget(s.endpoint, 'nameless');
    await identified(known);
    await typeAndSend(known, 'Talk to a human');
    await known.el.updateComplete;
    let form = known.part('escalation-form') as HTMLFormElement;
    expect(form.querySelector('input[name="name"]')).not.toBeNull();
    expect(form.querySelector('input[name="email"]')).toBeNull();

    s.signOut();
    const anonymous = await widget(s.endpoint, 'anonymous-form');
    await identified(anonymous);
    await typeAndSend(anonymous, 'Talk to a human');
    await anonymous.el.updateComplete;
    form = anonymous.part('escalation-form') as HTMLFormElement;
    expect(form.querySelector('input[name="name"]')).not.toBeNull();
    expect(form.querySelector('input[name="email"]')).not.toBeNull();
    expect(form.textContent).toContain('Leave your name and email');
  });
});

describe('the visitor token (identityToken)', () => {
  it('asks the app for a fresh token once when the proxy refuses an expired one, and retries with it', async () => {
    const s = await site();
    const sub = visitor().id;
    let calls = 0;
    const token = async () => (++calls === 1 ? jwt(sub, -120) : jwt(sub, 600));
    const w = await widget(s.endpoint, 'refresh', token);
    await identified(w);
    expect(calls).toBe(2);
    expect(w.part('error')).toBeNull();
    await typeAndSend(w, 'Question with a refreshed token');
    await w.answered();
    // The fresh token is kept: no call per request.
    expect(calls).toBe(2);
    // The conversation is the token's visitor's: their other device lists it.
    const other = await widget(s.endpoint, 'refresh-other', await jwt(sub, 600));
    await waitUntil(() => recent(other).length > 0, 'not listed for the token’s visitor', { timeout: 8_000 });
    expect(recent(other)).toEqual(['Question with a refreshed token']);
  });

  it('shows the app’s sign-in message when the fresh token is refused too, asking once per refused request (no loop)', async () => {
    const s = await site();
    let calls = 0;
    const w = await widget(s.endpoint, 'expired', async () => (++calls, jwt('user-expired', -120)));
    w.el.strings = { signIn: 'Sign in to Acme to chat with us.' };
    await identified(w);
    await waitUntil(() => w.part('error'), 'no sign-in message');
    expect(w.part('error')!.textContent).toContain('Sign in to Acme to chat with us.');
    expect(calls).toBe(2);
    await typeAndSend(w, 'Still there?');
    await waitUntil(() => calls === 3 && w.part('error'), 'the message was not refused');
    expect(w.part('error')!.textContent).toContain('Sign in to Acme to chat with us.');
    expect(calls).toBe(3);
  });

  it('asks the app once for requests refused together with the same expired token', async () => {
    const s = await site();
    const sub = visitor().id;
    let calls = 0;
    const client = new ProxyClient(s.endpoint);
    const token = async () => (++calls === 1 ? jwt(sub, -120) : jwt(sub, 600));
    client.token = new VisitorToken(() => token);
    const [who, list, again] = await Promise.all([client.visitor(), client.list(), client.visitor()]);
    expect(who).toMatchObject({ known: true });
    expect(again).toEqual(who);
    expect(list.conversations).toEqual([]);
    expect(calls).toBe(2);
  });

  it('a string token is not refreshed: refused, it shows the built-in sign-in message', async () => {
    const s = await site();
    const w = await widget(s.endpoint, 'string-token', await jwt('user-string', -120));
    await identified(w);
    await waitUntil(() => w.part('error'), 'no sign-in message');
    expect(w.part('error')!.textContent).toContain('Sign in to chat with support.');
  });
});

describe('logout and required mode', () => {
  it('on a shared browser, never shows the last visitor’s stored conversation to the next, and forgets it', async () => {
    const s = await site();
    s.signIn(visitor({ name: 'Alice' }));
    const first = await widget(s.endpoint, 'shared');
    await identified(first);
    await typeAndSend(first, 'Alice’s private question');
    await first.answered();
    first.el.remove();
    expect(stored('shared', s.endpoint)).toContain('Alice’s private question');

    // The app signs Alice out and Bob in; the next page shows the widget again.
    s.signIn(visitor({ name: 'Bob' }));
    const next = await widget(s.endpoint, 'shared');
    // Not even while the proxy is being asked.
    expect(texts(next)).toEqual([]);
    await identified(next);
    expect(texts(next)).toEqual([]);
    expect(recent(next)).toEqual([]);
    expect(stored('shared', s.endpoint) ?? '').not.toContain('Alice’s private question');
  });

  it('forgets the conversation a page still shows when the panel shows again for another visitor, whatever another tab stored', async () => {
    const s = await site();
    s.signIn(visitor({ name: 'Erin' }));
    const tab = await widget(s.endpoint, 'tabs');
    await identified(tab);
    await typeAndSend(tab, 'Erin’s question');
    await tab.answered();
    // Erin signs out and Frank signs in, in another tab: that tab forgets Erin's and stores Frank's tag.
    s.signIn(visitor({ name: 'Frank' }));
    const other = await widget(s.endpoint, 'tabs');
    await identified(other);
    expect(texts(other)).toEqual([]);
    // This page still shows Erin's conversation until its panel shows again (here: closed, then opened).
    tab.el.mode = 'launcher';
    await tab.el.updateComplete;
    tab.el.open();
    await waitUntil(() => texts(tab).length === 0, 'Erin’s conversation is still shown', { timeout: 8_000 });
    expect(stored('tabs', s.endpoint) ?? '').not.toContain('Erin’s question');
  });

  it('keeps an anonymous visitor’s stored conversation, and forgets it once someone signs in', async () => {
    const s = await site();
    const first = await widget(s.endpoint, 'anon-then-signed');
    await identified(first);
    await typeAndSend(first, 'An anonymous question');
    await first.answered();
    first.el.remove();
    const again = await widget(s.endpoint, 'anon-then-signed');
    await identified(again);
    expect(texts(again)[0]).toBe('An anonymous question');
    again.el.remove();
    s.signIn(visitor({ name: 'Carol' }));
    const signed = await widget(s.endpoint, 'anon-then-signed');
    await identified(signed);
    expect(texts(signed)).toEqual([]);
  });

  it('reset() on the app’s logout forgets the visitor: the list goes, and the next visitor is asked for', async () => {
    const s = await site();
    s.signIn(visitor({ name: 'Dan', email: 'dan@example.com' }));
    const w = await widget(s.endpoint, 'reset');
    await identified(w);
    await typeAndSend(w, 'Dan’s question');
    await w.answered();
    w.el.reset();
    await waitUntil(() => recent(w).length === 1, 'Dan’s list was not shown', { timeout: 8_000 });
    s.signOut();
    w.el.reset();
    await identified(w);
    expect(recent(w)).toEqual([]);
    expect(texts(w)).toEqual([]);
  });

  it('shows the sign-in message as soon as the panel shows in required mode, with no visitor signed in', async () => {
    const s = await site('required');
    const w = await widget(s.endpoint, 'required');
    await waitUntil(() => w.part('error'), 'no sign-in message');
    expect(w.part('error')!.textContent).toContain('Sign in to chat with support.');
  });
});
