/** Defects a visitor hit (issue 14): each test here failed before its fix. */
import { describe, expect, it, vi } from 'vitest';
import { oneEvent } from '@open-wc/testing-helpers';
import './setup.js';
import { advanceBy, advanceUntil, mount, namespace, typeAndSend, type Mounted } from './helpers.js';

const posts = async (m: Mounted) => (await m.log()).filter((l) => l.method === 'POST' && l.path === '/chat');
const answers = (m: Mounted) => m.parts('message').filter((e) => e.dataset.role === 'assistant').length;

/** Makes the browser report itself offline (or back online) and fires the matching event. */
function setOnline(online: boolean): void {
  if (online) delete (navigator as unknown as Record<string, unknown>).onLine;
  else Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => false });
  window.dispatchEvent(new Event(online ? 'online' : 'offline'));
}

describe('the composer and the conversation', () => {
  it('shows a one-line question in a one-line bubble', async () => {
    const m = await mount({ answerDelayMs: 2_000 }, { mode: 'inline' });
    await typeAndSend(m, 'How do I reset my password?');
    const bubble = m.parts('message').find((e) => e.dataset.role === 'user')!;
    // One line of 15 px text at line-height 1.5 plus 2 × 10 px padding: about 43 px, never 178.
    expect(bubble.getBoundingClientRect().height).toBeLessThan(60);
  });

  it('queues a follow-up sent while an answer is loading, shows it as pending, and sends it when the answer completes', async () => {
    const m = await mount({ answerDelayMs: 60_000 }, { mode: 'inline' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(m, 'first');
      await typeAndSend(m, 'second');
      const pending = m.parts('message').filter((e) => e.hasAttribute('data-pending'));
      expect(pending).toHaveLength(1);
      expect(pending[0]!.textContent).toContain('second');
      expect(pending[0]!.textContent).toContain('Will send when the answer is ready');
      expect((m.part('input') as HTMLTextAreaElement).value).toBe('');
      // However long the first answer takes, the follow-up waits for it.
      await advanceUntil(m, async () => (await posts(m)).length === 1, 'the first message was not sent');
      await advanceBy(m, 20_000, 2_000);
      expect((await posts(m)).map((p) => (JSON.parse(p.body) as { message: string }).message)).toEqual(['first']);
      await m.control({ completeNow: true });
      await advanceUntil(m, async () => (await posts(m)).length === 2, 'the queued message was not sent', { stepMs: 500 });
      await m.control({ completeNow: true });
      await advanceUntil(m, () => answers(m) === 2, 'the second answer did not arrive', { stepMs: 500 });
    } finally {
      vi.useRealTimers();
    }
    const bodies = (await posts(m)).map((p) => JSON.parse(p.body) as { message: string; conversation_id?: string });
    expect(bodies.map((b) => b.message)).toEqual(['first', 'second']);
    expect(bodies[1]!.conversation_id).toMatch(/^conv_/);
    expect(bodies[0]!.conversation_id).toBeUndefined();
    expect(m.parts('message').filter((e) => e.hasAttribute('data-pending'))).toHaveLength(0);
  });

  it('keeps a pending message across a reload, and sends it once the answer completes', async () => {
    const endpoint = await namespace({ answerDelayMs: 60_000 });
    const stored = () => localStorage.getItem(`support-chat:pending-reload:${endpoint}`);
    const first = await mount({}, { mode: 'inline', 'storage-key': 'pending-reload' }, endpoint);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(first, 'first');
      await advanceUntil(first, () => stored()?.includes('conv_'), 'the first message was not accepted');
      await typeAndSend(first, 'second');
      // The page goes away while the answer is on its way, and comes back.
      first.el.remove();
      const second = await mount({}, { mode: 'inline', 'storage-key': 'pending-reload' }, endpoint);
      const pending = second.parts('message').filter((e) => e.hasAttribute('data-pending'));
      expect(pending).toHaveLength(1);
      expect(pending[0]!.textContent).toContain('second');
      expect(pending[0]!.textContent).toContain('Will send when the answer is ready');
      await second.control({ completeNow: true });
      await advanceUntil(second, async () => (await posts(second)).length === 2, 'the pending message was not sent after the reload');
      const bodies = (await posts(second)).map((p) => JSON.parse(p.body) as { message: string; conversation_id?: string });
      expect(bodies.map((b) => b.message)).toEqual(['first', 'second']);
      expect(bodies[1]!.conversation_id).toBe((JSON.parse(stored()!) as { conversationId: string }).conversationId);
      await second.el.updateComplete;
      expect(second.parts('message').filter((e) => e.hasAttribute('data-pending'))).toHaveLength(0);
      expect(second.parts('message').filter((e) => e.dataset.role === 'user').map((e) => e.querySelector('.content')!.textContent)).toEqual(['first', 'second']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps a message asked offline across a reload, and sends it when the page comes back online', async () => {
    const endpoint = await namespace({ answerDelayMs: 10 });
    const first = await mount({}, { mode: 'inline', 'storage-key': 'offline-reload' }, endpoint);
    setOnline(false);
    try {
      await first.el.updateComplete;
      await typeAndSend(first, 'are you there?');
      first.el.remove();
    } finally {
      setOnline(true);
    }
    // Nothing tells the new page that the browser came back: it is online from the start.
    const second = await mount({}, { mode: 'inline', 'storage-key': 'offline-reload' }, endpoint);
    await second.answered();
    expect((await posts(second)).map((p) => (JSON.parse(p.body) as { message: string }).message)).toEqual(['are you there?']);
    expect(second.parts('message').filter((e) => e.hasAttribute('data-pending'))).toHaveLength(0);
  });

  it('sends a pending message once when two tabs follow the conversation', async () => {
    const endpoint = await namespace({ answerDelayMs: 60_000, longPoll: true });
    const attrs = { mode: 'inline', 'storage-key': 'pending-tabs' };
    const a = await mount({}, attrs, endpoint);
    const b = await mount({}, attrs, endpoint);
    const stored = () => localStorage.getItem(`support-chat:pending-tabs:${endpoint}`);
    // What the browser does for a change made in another tab (here both widgets hear it; `a` made it).
    const otherTabHears = async () => {
      window.dispatchEvent(new StorageEvent('storage', { key: `support-chat:pending-tabs:${endpoint}` }));
      await b.el.updateComplete;
    };
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(a, 'first');
      await advanceUntil(a, () => stored()?.includes('conv_'), 'the first message was not accepted');
      await otherTabHears();
      await typeAndSend(a, 'second');
      await otherTabHears();
      // Both tabs are waiting for the answer, and it comes to both at once. The queued message's request is
      // held until both have it: whatever either tab would send by then, it has sent.
      const fetch = window.fetch.bind(window);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
        if (init?.method === 'POST' && String(init.body).includes('"second"')) await released;
        return fetch(input, init);
      });
      await a.control({ completeNow: true });
      await advanceUntil(a, () => answers(a) === 1 && answers(b) === 1, 'the answer did not reach both tabs');
      await advanceBy(a, 1_000);
      release();
      await advanceUntil(a, async () => (await posts(a)).length >= 2, 'the pending message was not sent');
      await advanceBy(a, 1_000);
    } finally {
      vi.useRealTimers();
      vi.restoreAllMocks();
    }
    expect((await posts(a)).map((p) => (JSON.parse(p.body) as { message: string }).message)).toEqual(['first', 'second']);
  });

  it('refuses a 20,000-character paste with a message instead of cutting it, and counts near the limit', async () => {
    const m = await mount({}, { mode: 'inline' });
    const input = m.part('input') as HTMLTextAreaElement;
    input.value = 'x'.repeat(15_500);
    input.dispatchEvent(new Event('input'));
    await m.el.updateComplete;
    expect(m.part('counter')!.textContent).toBe('15,500 / 16,000');
    input.value = 'y'.repeat(20_000);
    input.dispatchEvent(new Event('input'));
    await typeAndSend(m, input.value);
    await m.el.updateComplete;
    expect(input.value).toHaveLength(20_000);
    const alert = m.el.shadowRoot!.querySelector('.composer [role="alert"]')!;
    expect(alert.textContent).toContain('20,000');
    expect(alert.textContent).toContain('16,000');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(await posts(m)).toHaveLength(0);
    expect(m.parts('message')).toHaveLength(0);
  });

  it('grows the message field with its text up to a limit', async () => {
    const m = await mount({}, { mode: 'inline' });
    const input = m.part('input') as HTMLTextAreaElement;
    const empty = input.getBoundingClientRect().height;
    input.value = 'one\ntwo\nthree\nfour';
    input.dispatchEvent(new Event('input'));
    await m.el.updateComplete;
    const four = input.getBoundingClientRect().height;
    expect(four).toBeGreaterThan(empty + 40);
    input.value = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    input.dispatchEvent(new Event('input'));
    await m.el.updateComplete;
    expect(input.getBoundingClientRect().height).toBeLessThanOrEqual(161);
  });

  it('offline: shows one notice, keeps the message pending, and sends it when the browser is back online', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    setOnline(false);
    try {
      await m.el.updateComplete;
      await typeAndSend(m, 'are you there?');
      await m.el.updateComplete;
      const notices = [...m.el.shadowRoot!.querySelectorAll('.notice')];
      expect(notices).toHaveLength(1);
      expect(notices[0]!.textContent).toContain("You're offline");
      const pending = m.parts('message').find((e) => e.hasAttribute('data-pending'))!;
      expect(pending.textContent).toContain("Will send when you're back online");
      expect(await posts(m)).toHaveLength(0);
    } finally {
      setOnline(true);
    }
    await m.answered();
    expect(m.el.shadowRoot!.querySelectorAll('.notice')).toHaveLength(0);
    expect(await posts(m)).toHaveLength(1);
  });

  it('clears the box after a successful "Try again"', async () => {
    const m = await mount({ failNext: [500], answerDelayMs: 10 }, { mode: 'inline' });
    const failed = oneEvent(m.el, 'support-chat-error');
    await typeAndSend(m, 'second time lucky');
    await failed;
    await m.el.updateComplete;
    expect((m.part('input') as HTMLTextAreaElement).value).toBe('second time lucky');
    m.part('error')!.querySelector('button')!.click();
    await m.answered();
    expect((m.part('input') as HTMLTextAreaElement).value).toBe('');
  });

  it('starts a new conversation when the proxy no longer knows the stored one', async () => {
    const endpoint = await namespace({ answerDelayMs: 10 });
    localStorage.setItem(
      `support-chat:stale:${endpoint}`,
      JSON.stringify({ conversationId: 'conv_gone', status: 'completed', messages: [{ role: 'user', content: 'old', sources: [] }], escalation: null }),
    );
    const m = await mount({}, { mode: 'inline', 'storage-key': 'stale' }, endpoint);
    await typeAndSend(m, 'fresh start');
    await m.answered();
    const bodies = (await posts(m)).map((p) => JSON.parse(p.body) as { conversation_id?: string });
    expect(bodies).toEqual([expect.objectContaining({ conversation_id: 'conv_gone' }), expect.not.objectContaining({ conversation_id: expect.anything() })]);
    expect(m.parts('message').filter((e) => e.dataset.role === 'user').map((e) => e.querySelector('.content')!.textContent)).toEqual(['fresh start']);
  });

  it('asks for the answer at once with a long poll, so a quick answer shows without a fixed wait', async () => {
    const m = await mount({ answerDelayMs: 50, longPoll: true }, { mode: 'inline' });
    const answered = oneEvent(m.el, 'support-chat-answer');
    const started = performance.now();
    await typeAndSend(m, 'quick one');
    await answered;
    expect(performance.now() - started).toBeLessThan(250);
    const gets = (await m.log()).filter((l) => l.method === 'GET');
    expect(gets).toHaveLength(1);
    expect(gets[0]!.prefer).toMatch(/^wait=\d+$/);
  });
});
