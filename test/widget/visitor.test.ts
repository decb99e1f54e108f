/** Defects a visitor hit (issue 14): each test here failed before its fix. */
import { describe, expect, it } from 'vitest';
import { oneEvent } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, namespace, typeAndSend, type Mounted } from './helpers.js';

const posts = async (m: Mounted) => (await m.log()).filter((l) => l.method === 'POST' && l.path === '/chat');

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
    const m = await mount({ answerDelayMs: 500 }, { mode: 'inline' });
    await typeAndSend(m, 'first');
    await typeAndSend(m, 'second');
    const pending = m.parts('message').filter((e) => e.hasAttribute('data-pending'));
    expect(pending).toHaveLength(1);
    expect(pending[0]!.textContent).toContain('second');
    expect(pending[0]!.textContent).toContain('Will send when the answer is ready');
    expect((m.part('input') as HTMLTextAreaElement).value).toBe('');
    await m.answered(2);
    const bodies = (await posts(m)).map((p) => JSON.parse(p.body) as { message: string; conversation_id?: string });
    expect(bodies.map((b) => b.message)).toEqual(['first', 'second']);
    expect(bodies[1]!.conversation_id).toMatch(/^conv_/);
    expect(bodies[0]!.conversation_id).toBeUndefined();
    expect(m.parts('message').filter((e) => e.hasAttribute('data-pending'))).toHaveLength(0);
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
