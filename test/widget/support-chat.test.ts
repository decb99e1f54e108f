import { beforeAll, describe, expect, it, vi } from 'vitest';
import { page } from 'vitest/browser';
import { oneEvent, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { advanceBy, advanceUntil, mount, namespace, typeAndSend, type Mounted } from './helpers.js';

const gets = async (m: Mounted) => (await m.log()).filter((l) => l.method === 'GET').length;

// A desktop window: the launcher's panel is non-modal there (phone.test.ts covers phones).
beforeAll(async () => {
  await page.viewport(1280, 800);
});

describe('<support-chat> launcher', () => {
  it('opens a labelled, non-modal panel from the launcher and closes on Escape, returning focus', async () => {
    const m = await mount();
    const launcher = m.part('launcher') as HTMLButtonElement;
    expect(launcher.getAttribute('aria-label')).toBe('Open support chat');
    expect(launcher.getAttribute('aria-expanded')).toBe('false');
    expect(m.part('panel')!.hidden).toBe(true);
    await expect(m.el).to.be.accessible();

    const opened = oneEvent(m.el, 'support-chat-open');
    launcher.click();
    await opened;
    await m.el.updateComplete;
    const panel = m.part('panel')!;
    expect(panel.hidden).toBe(false);
    expect(panel.getAttribute('role')).toBe('dialog');
    expect(panel.getAttribute('aria-modal')).toBe('false');
    expect(launcher.getAttribute('aria-expanded')).toBe('true');
    expect(launcher.getAttribute('aria-controls')).toBe(panel.id);
    await expect(m.el).to.be.accessible();

    const closed = oneEvent(m.el, 'support-chat-close');
    panel.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, composed: true }));
    await closed;
    await m.el.updateComplete;
    expect(panel.hidden).toBe(true);
    await waitUntil(() => m.el.shadowRoot!.activeElement === launcher, 'focus did not return to the launcher');
  });

  it('in inline mode fills its container and has no launcher', async () => {
    const m = await mount({}, { mode: 'inline' });
    expect(m.part('launcher')).toBeNull();
    expect(m.part('panel')!.hidden).toBe(false);
    expect(m.part('panel')!.getAttribute('role')).toBe('region');
    expect(getComputedStyle(m.el).display).toBe('flex');
  });

  it('stacks at --support-chat-z-index', async () => {
    const m = await mount();
    m.el.style.setProperty('--support-chat-z-index', '77');
    expect(getComputedStyle(m.part('launcher')!).zIndex).toBe('77');
  });
});

describe('asking and answering', () => {
  it('shows the question, a working state, then the Markdown answer with its sources, and announces it once', async () => {
    const m = await mount({ answerDelayMs: 600 }, { mode: 'inline' });
    const answered = oneEvent(m.el, 'support-chat-answer');
    const sent = oneEvent(m.el, 'support-chat-send');
    await typeAndSend(m, 'How do I reset my password?');
    expect((await sent).detail.message).toBe('How do I reset my password?');
    expect(m.part('messages')!.textContent).toContain('Working on it');
    expect(m.part('messages')!.getAttribute('aria-busy')).toBe('true');
    const event = await answered;
    await m.el.updateComplete;
    expect(event.detail.message.content).toContain('reset');
    const answer = m.parts('message').find((e) => e.dataset.role === 'assistant')!;
    expect(answer.querySelector('strong')!.textContent).toBe('reset');
    expect([...answer.querySelectorAll('.content li')].map((li) => li.textContent!.trim())).toEqual(['Open Settings', 'Choose Security']);
    expect(answer.querySelector('pre code')!.textContent).toBe('acme reset --all');
    expect(answer.querySelector('[part~="copy-button"]')).not.toBeNull();
    const source = answer.querySelector<HTMLAnchorElement>('[part~="source"]')!;
    expect(source.href).toBe('https://docs.example.com/reset');
    expect(source.rel).toBe('noopener noreferrer');
    expect(answer.querySelector('.content')!.getAttribute('dir')).toBe('auto');
    const status = m.el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!;
    expect(status.textContent).toMatch(/^Answer ready: Use the reset link/);
    await expect(m.el).to.be.accessible();
  });

  it('renders raw HTML as text, refuses javascript: links and never fetches images', async () => {
    const answer = [
      '<script>window.__owned = 1</script><img src=x onerror="window.__owned=2">',
      '[click](javascript:window.__owned=3) and [docs](https://docs.example.com/a)',
      '![tracker](https://tracker.example.com/pixel.png)',
      '| a | b |\n| --- | --- |\n| <b onmouseover="x">1</b> | `2` |',
    ].join('\n\n');
    const m = await mount({ answer, answerDelayMs: 50 }, { mode: 'inline' });
    await typeAndSend(m, 'hostile?');
    await m.answered();
    const content = m.parts('message').find((e) => e.dataset.role === 'assistant')!.querySelector('.content')!;
    expect(content.querySelectorAll('script, img, iframe').length).toBe(0);
    expect(content.textContent).toContain('<script>window.__owned = 1</script>');
    const links = [...content.querySelectorAll('a')].map((a) => a.getAttribute('href'));
    expect(links).toEqual(['https://docs.example.com/a', 'https://tracker.example.com/pixel.png']);
    expect(content.textContent).toContain('Image: tracker');
    expect(content.querySelector('table td')!.textContent).toBe('<b onmouseover="x">1</b>');
    expect((window as unknown as { __owned?: number }).__owned).toBeUndefined();
    const requested = performance.getEntriesByType('resource').map((e) => e.name);
    expect(requested.some((url) => url.includes('tracker.example.com'))).toBe(false);
  });

  it('continues the conversation with conversation_id', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'first');
    await m.answered(1);
    await typeAndSend(m, 'second');
    await m.answered(2);
    const log = await m.log();
    const posts = log.filter((l) => l.method === 'POST');
    expect(posts).toHaveLength(2);
    // The first message starts a conversation; the second names it, and the widget polls only it.
    const polled = new Set(log.filter((l) => l.method === 'GET').map((l) => l.path));
    expect(polled.size).toBe(1);
    const id = [...polled][0]!.replace('/chat/', '');
    // Each with where the visitor is (search.test.ts covers the page context).
    const context = { page_url: location.href, page_title: document.title };
    expect(JSON.parse(posts[0]!.body)).toEqual({ message: 'first', context });
    expect(JSON.parse(posts[1]!.body)).toEqual({ message: 'second', conversation_id: id, context });
  });

  it('honours 429 and Retry-After while polling, without giving up', async () => {
    const m = await mount({ answerDelayMs: 10, retryAfter: 30, failPolls: [429] }, { mode: 'inline' });
    let errors = 0;
    m.el.addEventListener('support-chat-error', () => errors++);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(m, 'slow down');
      // The first poll gets the 429: the next one waits out the 30 s of Retry-After (of the widget's time).
      let first = 0;
      let second = 0;
      for (let i = 0; i < 160 && !second; i++) {
        await m.log();
        const count = await gets(m);
        if (count >= 1 && !first) first = Date.now();
        if (count >= 2) second = Date.now();
        await vi.advanceTimersByTimeAsync(500);
      }
      expect(second - first).toBeGreaterThanOrEqual(29_000);
      expect(second - first).toBeLessThan(40_000);
    } finally {
      vi.useRealTimers();
    }
    await m.answered();
    expect(errors).toBe(0);
  });

  it('uses long polling when the proxy offers it: one or two polls per answer', async () => {
    const m = await mount({ answerDelayMs: 60_000, longPoll: true }, { mode: 'inline' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(m, 'long poll me');
      await advanceUntil(m, async () => (await gets(m)) >= 1, 'no poll went out');
      // Ten seconds of the widget's time while the proxy holds the poll: no other poll goes out.
      await advanceBy(m, 10_000, 1_000);
      await m.control({ completeNow: true });
      await advanceUntil(m, () => m.parts('message').some((e) => e.dataset.role === 'assistant'), 'no answer arrived');
    } finally {
      vi.useRealTimers();
    }
    const polls = (await m.log()).filter((l) => l.method === 'GET');
    expect(polls.length).toBeLessThanOrEqual(2);
    expect(polls[0]!.prefer).toMatch(/^wait=\d+$/);
  });

  it('backs off when there is no long polling', async () => {
    const m = await mount({ answerDelayMs: 60_000, longPoll: false }, { mode: 'inline' });
    // Five seconds of the widget's time in small steps, each also giving the network a real moment.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(m, 'poll me');
      for (let i = 0; i < 50; i++) {
        await m.log();
        await vi.advanceTimersByTimeAsync(100);
      }
    } finally {
      vi.useRealTimers();
    }
    // At once, then about 300, 900, 2100 and 4500 ms: a handful of polls, not one every 300 ms (17).
    const count = await gets(m);
    expect(count).toBeGreaterThanOrEqual(4);
    expect(count).toBeLessThanOrEqual(6);
  });

  it('pauses polling while the tab is hidden and resumes when it is visible again', async () => {
    const m = await mount({ answerDelayMs: 600 }, { mode: 'inline' });
    const hidden = Object.getOwnPropertyDescriptor(Document.prototype, 'hidden')!;
    await typeAndSend(m, 'hide and seek');
    await waitUntil(async () => (await gets(m)) >= 1);
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    document.dispatchEvent(new Event('visibilitychange'));
    const before = await gets(m);
    // Twenty seconds of the widget's time pass while hidden (no real waiting).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      for (let i = 0; i < 40; i++) {
        await vi.advanceTimersByTimeAsync(500);
        await m.log();
      }
      // At most the poll already under way when the tab was hidden goes out.
      expect((await gets(m)) - before).toBeLessThanOrEqual(1);
      expect(m.parts('message').filter((e) => e.dataset.role === 'assistant')).toHaveLength(0);
    } finally {
      vi.useRealTimers();
      Object.defineProperty(document, 'hidden', hidden);
      delete (document as unknown as Record<string, unknown>).hidden;
    }
    document.dispatchEvent(new Event('visibilitychange'));
    await m.answered();
  });

  it('gives up after its timeout with a retry button, and the retry resumes', async () => {
    const m = await mount({ answerDelayMs: 600_000 }, { mode: 'inline' });
    const failed = oneEvent(m.el, 'support-chat-error');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      await typeAndSend(m, 'too slow');
      // The default two minutes of the widget's time, polls included, pass in a moment.
      for (let i = 0; i < 130 && !m.part('error'); i++) {
        await m.log();
        await vi.advanceTimersByTimeAsync(1_000);
      }
    } finally {
      vi.useRealTimers();
    }
    const error = await failed;
    expect(error.detail).toEqual({ code: 'timeout', message: 'This is taking longer than expected.', retryable: true, status: null });
    await m.el.updateComplete;
    const notice = m.part('error')!;
    expect(notice.getAttribute('role')).toBe('alert');
    await m.control({ completeNow: true });
    notice.querySelector('button')!.click();
    await m.answered();
    expect(m.part('error')).toBeNull();
  });

  it('emits a typed support-chat-error when sending fails, and keeps the text', async () => {
    const m = await mount({ failNext: [500] }, { mode: 'inline' });
    const failed = oneEvent(m.el, 'support-chat-error');
    await typeAndSend(m, 'will fail');
    const { detail } = await failed;
    expect(detail).toEqual({ code: 'internal_error', message: 'Something went wrong.', retryable: true, status: 500 });
    await m.el.updateComplete;
    expect((m.part('input') as HTMLTextAreaElement).value).toBe('will fail');
    expect(m.parts('message').filter((e) => e.dataset.role === 'user')).toHaveLength(0);
  });

  it('counts a message in characters as the server does: 9,000 emoji are sent, 16,001 are refused, never cut', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    const input = m.part('input') as HTMLTextAreaElement;
    input.value = '😀'.repeat(16_001);
    input.dispatchEvent(new Event('input'));
    await m.el.updateComplete;
    expect(m.part('counter')!.textContent).toContain('16,001');
    await typeAndSend(m, '😀'.repeat(16_001));
    expect(m.part('composer')!.textContent).toContain('16,001');
    expect(input.value).toHaveLength(32_002);
    await typeAndSend(m, '😀'.repeat(9_000));
    await m.answered();
    const sent = (await m.log()).filter((l) => l.method === 'POST' && l.path === '/chat');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.body).message).toBe('😀'.repeat(9_000));
  });

  it('opens the panel and asks through the JavaScript API', async () => {
    const m = await mount({ answerDelayMs: 10 });
    await m.el.ask('from the API');
    await m.el.updateComplete;
    expect(m.el.hasAttribute('open')).toBe(true);
    await m.answered();
  });
});

describe('persistence', () => {
  it('resumes an answer still processing after a reload', async () => {
    const endpoint = await namespace({ answerDelayMs: 60_000 });
    const first = await mount({}, { mode: 'inline', 'storage-key': 'reload' }, endpoint);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let second: Mounted;
    try {
      await typeAndSend(first, 'survive a reload');
      // Once the message is accepted the conversation is stored; the page goes away mid-answer.
      await advanceUntil(first, () => localStorage.getItem(`support-chat:reload:${endpoint}`)?.includes('conv_'), 'the message was not accepted');
      expect(first.part('messages')!.textContent).toContain('Working on it');
      first.el.remove();
      second = await mount({}, { mode: 'inline', 'storage-key': 'reload' }, endpoint);
      expect(second.parts('message').find((e) => e.dataset.role === 'user')!.textContent).toContain('survive a reload');
      expect(second.part('messages')!.textContent).toContain('Working on it');
      await second.control({ completeNow: true });
      await advanceUntil(second, () => second.parts('message').some((e) => e.dataset.role === 'assistant'), 'the answer did not arrive after the reload');
    } finally {
      vi.useRealTimers();
    }
    second.el.reset();
    await second.el.updateComplete;
    expect(localStorage.getItem(`support-chat:reload:${endpoint}`)).toBeNull();
    expect(second.parts('message')).toHaveLength(0);
  });

  it('stores nothing with no-persist', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline', 'no-persist': true, 'storage-key': 'nothing' });
    await typeAndSend(m, 'forget me');
    await m.answered();
    expect(localStorage.getItem(`support-chat:nothing:${m.endpoint}`)).toBeNull();
  });

  it('shows the same conversation in a second tab', async () => {
    const endpoint = await namespace({ answerDelayMs: 10 });
    const a = await mount({}, { mode: 'inline', 'storage-key': 'tabs' }, endpoint);
    const b = await mount({}, { mode: 'inline', 'storage-key': 'tabs' }, endpoint);
    await typeAndSend(a, 'shared');
    await a.answered();
    // Another tab hears of the change through the storage event.
    window.dispatchEvent(new StorageEvent('storage', { key: `support-chat:tabs:${endpoint}` }));
    await b.el.updateComplete;
    expect(b.parts('message').map((e) => e.dataset.role)).toEqual(['user', 'assistant']);
  });
});

describe('talking to a human', () => {
  it('offers the form once the answer is complete, validates accessibly, then shows and remembers the ticket', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline', 'storage-key': 'escalate' });
    expect(m.part('escalation')).toBeNull();
    await typeAndSend(m, 'How do refunds work?');
    await m.answered();
    await m.el.updateComplete;
    const offer = m.part('escalation')!.querySelector('button')!;
    expect(offer.textContent!.trim()).toBe('Talk to a human');
    offer.click();
    await m.el.updateComplete;
    const form = m.part('escalation-form') as HTMLFormElement;
    form.requestSubmit();
    await waitUntil(() => form.querySelector('[aria-invalid="true"]'));
    const name = form.querySelector<HTMLInputElement>('input[name="name"]')!;
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(m.el.shadowRoot!.getElementById(name.getAttribute('aria-describedby')!)!.textContent).toBe('Enter your name.');
    await waitUntil(() => m.el.shadowRoot!.activeElement === name, 'focus did not move to the first invalid field');
    await expect(m.el).to.be.accessible();
    name.value = 'Ada';
    form.querySelector<HTMLInputElement>('input[name="email"]')!.value = 'ada@example.com';
    const escalated = oneEvent(m.el, 'support-chat-escalate');
    form.requestSubmit();
    expect((await escalated).detail).toMatchObject({ ticketId: 'tkt_42', ticketUrl: 'https://helpdesk.example.com/tickets/tkt_42' });
    await m.el.updateComplete;
    const ticket = m.part('ticket')!;
    expect(ticket.querySelector('a')!.href).toBe('https://helpdesk.example.com/tickets/tkt_42');
    expect(ticket.textContent).toContain('Ticket tkt_42');
    expect(m.el.shadowRoot!.textContent).not.toContain('Talk to a human');
    await expect(m.el).to.be.accessible();
    const again = await mount({}, { mode: 'inline', 'storage-key': 'escalate' }, m.endpoint);
    expect(again.part('ticket')!.textContent).toContain('Ticket tkt_42');
  });

  it('shows the existing state instead of an error on 409', async () => {
    const m = await mount({ answerDelayMs: 10, escalateStatus: 409 }, { mode: 'inline' });
    await typeAndSend(m, 'again');
    await m.answered();
    await m.el.updateComplete;
    m.part('escalation')!.querySelector('button')!.click();
    await m.el.updateComplete;
    const form = m.part('escalation-form') as HTMLFormElement;
    form.querySelector<HTMLInputElement>('input[name="name"]')!.value = 'Ada';
    form.querySelector<HTMLInputElement>('input[name="email"]')!.value = 'ada@example.com';
    form.requestSubmit();
    await waitUntil(() => m.part('ticket'));
    expect(m.part('ticket')!.textContent).toContain('already with the team');
    expect(m.part('error')).toBeNull();
  });

  it('is hidden with no-escalation', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline', 'no-escalation': true });
    await typeAndSend(m, 'no humans');
    await m.answered();
    await m.el.updateComplete;
    expect(m.part('escalation')).toBeNull();
  });
});

describe('languages and themes', () => {
  it('speaks Arabic right to left, and strings override any text', async () => {
    const m = await mount({}, { mode: 'inline', lang: 'ar' });
    expect(m.part('panel')!.getAttribute('dir')).toBe('rtl');
    expect(m.part('header')!.textContent).toContain('الدعم');
    m.el.strings = { heading: 'مساعدة', send: 'أرسل' };
    await m.el.updateComplete;
    expect(m.part('header')!.textContent).toContain('مساعدة');
    expect(m.part('send-button')!.textContent!.trim()).toBe('أرسل');
    const es = await mount({}, { mode: 'inline', lang: 'es-MX' });
    expect(es.part('send-button')!.textContent!.trim()).toBe('Enviar');
  });

  it('is accessible in the dark theme with an answer on screen', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline', theme: 'dark' });
    await typeAndSend(m, 'dark mode?');
    await m.answered();
    await m.el.updateComplete;
    expect(getComputedStyle(m.part('panel')!).backgroundColor).toBe('rgb(23, 26, 35)');
    await expect(m.el).to.be.accessible();
  });
});

describe('scrolling', () => {
  it('shows a new answer from its top, and does not move while the reader has scrolled up', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of a long answer.`).join('\n\n');
    const m = await mount({ answerDelayMs: 10, answer: long }, { mode: 'inline' });
    m.el.style.height = '400px';
    m.el.style.display = 'flex';
    await typeAndSend(m, 'long one');
    await m.answered();
    await m.el.updateComplete;
    const list = m.part('messages')!;
    const answer = m.parts('message').find((e) => e.dataset.role === 'assistant')!;
    expect(Math.abs(list.scrollTop - (answer.offsetTop - 8))).toBeLessThan(4);
    await m.control({ answerDelayMs: 600 });
    await typeAndSend(m, 'another');
    // The reader scrolls back up to re-read while the next answer is being written.
    list.scrollTop = 100;
    list.dispatchEvent(new Event('scroll'));
    await m.answered(2);
    await m.el.updateComplete;
    expect(list.scrollTop).toBe(100);
  });
});
