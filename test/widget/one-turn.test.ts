/**
 * One message, one turn (issue 43): the widget makes one key per message and sends it with every
 * attempt ("Try again", the same text sent again, a message queued again offline, a queued message
 * after a reload), and against the real proxy and server a message whose 202 was lost on its way
 * back is answered with the turn it made, not a second one.
 */
import { describe, expect, inject, it, vi } from 'vitest';
import { fixture, html, oneEvent, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import '../../src/widget/support-chat.js';
import type { SupportChat } from '../../src/widget/support-chat.js';
import { advanceUntil, mount, namespace, typeAndSend, wrap, type Mounted } from './helpers.js';

const posts = async (m: Mounted) => (await m.log()).filter((l) => l.method === 'POST' && l.path === '/chat');
const keysOf = async (m: Mounted) => (await posts(m)).map((p) => p.key);
const userTexts = (m: Mounted) => m.parts('message').filter((e) => e.dataset.role === 'user' && !e.hasAttribute('data-pending')).map((e) => e.querySelector('.content')!.textContent);

function setOnline(online: boolean): void {
  if (online) delete (navigator as unknown as Record<string, unknown>).onLine;
  else Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
  window.dispatchEvent(new Event(online ? 'online' : 'offline'));
}

describe('one key per message', () => {
  it('sends a message with a key of 32 hex digits, a new one for the next message', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'first');
    await m.answered();
    await typeAndSend(m, 'second');
    await m.answered(2);
    const [a, b] = await keysOf(m);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).toMatch(/^[0-9a-f]{32}$/);
    expect(b).not.toBe(a);
  });

  it('sends the same key with "Try again" and with the same text sent again, a new one for other text', async () => {
    const m = await mount({ failNext: [500, 500], answerDelayMs: 10 }, { mode: 'inline' });
    let failed = oneEvent(m.el, 'support-chat-error');
    await typeAndSend(m, 'second time lucky');
    await failed;
    await m.el.updateComplete;
    failed = oneEvent(m.el, 'support-chat-error');
    m.part('error')!.querySelector('button')!.click();
    await failed;
    await m.el.updateComplete;
    // The text is back in the box; Enter sends it again, as the same message.
    expect((m.part('input') as HTMLTextAreaElement).value).toBe('second time lucky');
    await typeAndSend(m, 'second time lucky');
    await m.answered();
    const keys = await keysOf(m);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    await typeAndSend(m, 'another question');
    await m.answered(2);
    expect((await keysOf(m))[3]).not.toBe(keys[0]);
  });

  it('sends a message queued again after a network error offline with its key', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    // The connection drops as the browser goes offline.
    const failedKeys: string[] = [];
    vi.spyOn(window, 'fetch').mockImplementationOnce(async (_input, init) => {
      failedKeys.push((init!.headers as Record<string, string>)['idempotency-key']!);
      setOnline(false);
      throw new TypeError('Failed to fetch');
    });
    try {
      await typeAndSend(m, 'are you there?');
      await waitUntil(() => m.parts('message').some((e) => e.hasAttribute('data-pending')), 'the message was not queued again', { timeout: 8_000 });
      expect(await posts(m)).toHaveLength(0);
    } finally {
      setOnline(true);
      vi.restoreAllMocks();
    }
    await m.answered();
    expect(failedKeys).toHaveLength(1);
    expect(await keysOf(m)).toEqual(failedKeys);
  });

  it('sends a queued message whose 202 was lost with its key after a reload', async () => {
    const endpoint = await namespace({ answerDelayMs: 60_000 });
    const attrs = { mode: 'inline', 'storage-key': 'lost-after-reload' };
    const first = await mount({}, attrs, endpoint);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(first, 'first');
      await advanceUntil(first, async () => (await posts(first)).length === 1, 'the first message was not sent');
      await typeAndSend(first, 'second');
      // The queued message goes out once the answer is done; the proxy accepts it, and its 202 is lost.
      const fetch = window.fetch.bind(window);
      vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method !== 'POST' || !String(init.body).includes('"second"')) return response;
        return Response.json({ error: { code: 'internal_error', message: 'The gateway timed out', retryable: true } }, { status: 504 });
      });
      await first.control({ completeNow: true });
      await advanceUntil(first, async () => (await posts(first)).length === 2, 'the queued message was not sent', { stepMs: 500 });
      await advanceUntil(first, () => first.part('error'), 'the lost answer was not reported', { stepMs: 500 });
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
    first.el.remove();
    const second = await mount({}, attrs, endpoint);
    await waitUntil(async () => (await posts(second)).length === 3, 'the stored message was not sent after the reload', { timeout: 8_000 });
    const [, lost, resent] = await posts(second);
    expect(JSON.parse(resent!.body)).toMatchObject({ message: 'second' });
    expect(resent!.key).toBe(lost!.key);
    expect(resent!.body).toBe(lost!.body);
  });
});

describe('a lost 202, against the real proxy and server', () => {
  const base = inject('identityUrl');

  /** A widget on its own proxy, whose first 202 never reaches the browser (see identity-setup.ts). */
  async function lossy(lose: 'close' | '504'): Promise<{ m: Mounted; accepted(): Promise<string[]> }> {
    const response = await fetch(`${base}/__proxy`, { method: 'POST', body: JSON.stringify({ origin: location.origin, lose }) });
    const { ns } = (await response.json()) as { ns: string };
    const endpoint = `${base}/${ns}`;
    const el = await fixture<SupportChat>(html`<support-chat endpoint=${endpoint} mode="inline" storage-key=${`lossy-${ns}`}></support-chat>`);
    await el.updateComplete;
    return { m: wrap(el, endpoint), accepted: async () => (await (await fetch(`${base}/__accepted/${ns}`)).json()) as string[] };
  }

  it('answers "Try again" after a gateway lost the 202 with the turn the first attempt made', async () => {
    const { m, accepted } = await lossy('504');
    const failed = oneEvent(m.el, 'support-chat-error');
    await typeAndSend(m, 'How do I rotate my API key?');
    expect((await failed).detail.status).toBe(504);
    await m.el.updateComplete;
    m.part('error')!.querySelector('button')!.click();
    await m.answered();
    const ids = await accepted();
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(1);
    expect(userTexts(m)).toEqual(['How do I rotate my API key?']);
  });

  it('answers a message whose connection closed before its 202 with one turn, however it is sent again', async () => {
    const { m, accepted } = await lossy('close');
    await typeAndSend(m, 'Where are my invoices?');
    // The browser may send it again by itself on a closed connection; else the visitor does.
    await waitUntil(() => m.part('error') || m.parts('message').some((e) => e.dataset.role === 'assistant'), 'neither an error nor an answer', { timeout: 8_000 });
    m.part('error')?.querySelector('button')?.click();
    await m.answered();
    const ids = await accepted();
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(new Set(ids).size).toBe(1);
    expect(userTexts(m)).toEqual(['Where are my invoices?']);
  });
});
