/** Starters, reaching a person, and what follows (issue 14). */
import { describe, expect, it, vi } from 'vitest';
import { oneEvent, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { advanceBy, advanceUntil, mount, typeAndSend, type Mounted } from './helpers.js';

const requests = async (m: Mounted, path: RegExp) => (await m.log()).filter((l) => l.method === 'POST' && path.test(l.path));
const active = (m: Mounted) => m.el.shadowRoot!.activeElement;

async function fillForm(m: Mounted, values: { name?: string; email?: string; note?: string }): Promise<HTMLFormElement> {
  const form = m.part('escalation-form') as HTMLFormElement;
  for (const [name, value] of Object.entries(values)) (form.elements.namedItem(name) as HTMLInputElement).value = value;
  return form;
}

describe('the empty state', () => {
  it('greets and offers up to four starter questions (property), each asking its question', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    expect(m.part('messages')!.querySelector('.greeting')!.textContent).toBe('Hi! How can we help?');
    m.el.starters = ['How do I reset my password?', 'Where are invoices?', 'Is there an API?', 'Do you have SSO?', 'A fifth'];
    await m.el.updateComplete;
    const starters = m.parts('starter');
    expect(starters.map((b) => b.textContent)).toEqual(['How do I reset my password?', 'Where are invoices?', 'Is there an API?', 'Do you have SSO?']);
    expect(starters[0]!.tagName).toBe('BUTTON');
    await expect(m.el).to.be.accessible();
    starters[1]!.click();
    await m.answered();
    expect(JSON.parse((await requests(m, /^\/chat$/))[0]!.body)).toMatchObject({ message: 'Where are invoices?' });
    expect(m.parts('starter')).toHaveLength(0);
  });

  it('reads starters from a JSON attribute, and the greeting from strings', async () => {
    const m = await mount({}, { mode: 'inline', starters: '["First?","Second?"]' });
    expect(m.parts('starter').map((b) => b.textContent)).toEqual(['First?', 'Second?']);
    m.el.setAttribute('starters', 'not json');
    m.el.strings = { greeting: 'Welcome to Acme' };
    await m.el.updateComplete;
    expect(m.parts('starter')).toHaveLength(0);
    expect(m.part('messages')!.querySelector('.greeting')!.textContent).toBe('Welcome to Acme');
  });
});

describe('talking to a human', () => {
  it('is offered from the first exchange on, while the answer is still coming', async () => {
    const m = await mount({ answerDelayMs: 3_000 }, { mode: 'inline' });
    expect(m.part('escalation')).toBeNull();
    await typeAndSend(m, 'first question');
    expect(m.part('escalation')!.querySelector('button')!.textContent).toBe('Talk to a human');
  });

  for (const [lang, phrase] of [
    ['en', 'Can I talk to a human?'],
    ['es', '¿Puedo hablar con una persona?'],
    ['fr', 'Je voudrais parler à un humain'],
    ['ar', 'أريد التحدث مع إنسان'],
  ] as const) {
    it(`opens the form instead of asking the bot when the visitor asks for a person (${lang})`, async () => {
      const m = await mount({ answerDelayMs: 10 }, { mode: 'inline', lang });
      await typeAndSend(m, phrase);
      await m.el.updateComplete;
      expect(m.part('escalation-form')).not.toBeNull();
      expect(await requests(m, /^\/chat$/)).toHaveLength(0);
      await waitUntil(() => active(m) === m.part('escalation-form')!.querySelector('input[name="name"]'), 'focus did not move to the form');
    });
  }

  it('with no conversation yet, starts one with the visitor’s words, then escalates with the note', async () => {
    const m = await mount({ answerDelayMs: 100 }, { mode: 'inline' });
    await typeAndSend(m, 'Can I talk to a human?');
    const form = await fillForm(m, { name: 'Ada', email: 'ada@example.com', note: 'My invoice is wrong' });
    const escalated = oneEvent(m.el, 'support-chat-escalate');
    form.requestSubmit();
    expect((await escalated).detail.ticketId).toBe('tkt_42');
    expect(JSON.parse((await requests(m, /^\/chat$/))[0]!.body)).toMatchObject({ message: 'Can I talk to a human?' });
    const [escalation] = await requests(m, /\/escalate$/);
    expect(JSON.parse(escalation!.body)).toEqual({ name: 'Ada', email: 'ada@example.com', note: 'My invoice is wrong' });
  });
});

describe('asking about a person is not asking for one', () => {
  it('answers a question about escalation instead of opening the form', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'What happens when a visitor wants to talk to a real person?');
    await m.answered();
    expect(m.part('escalation-form')).toBeNull();
    expect(JSON.parse((await requests(m, /^\/chat$/))[0]!.body)).toMatchObject({ message: 'What happens when a visitor wants to talk to a real person?' });
  });

  it('gives back what the visitor typed when they cancel the form it opened, with focus in their field', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'can I talk to someone about my invoice');
    await m.el.updateComplete;
    expect(m.part('escalation-form')).not.toBeNull();
    expect(m.part('composer')!.hidden).toBe(true);
    [...m.part('escalation-form')!.querySelectorAll('button')].find((b) => b.textContent === 'Cancel')!.click();
    const input = m.part('input') as HTMLTextAreaElement;
    await waitUntil(() => input.value === 'can I talk to someone about my invoice', 'the visitor’s message was not given back');
    await waitUntil(() => active(m) === input, 'focus did not return to the field');
    expect(m.part('escalation-form')).toBeNull();
    expect(m.part('composer')!.hidden).toBe(false);
    expect(await requests(m, /^\/chat$/)).toHaveLength(0);
    // Sent as it was, it asks again: the form opens once more, with the same words kept for the ticket.
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
    await m.el.updateComplete;
    expect(m.part('escalation-form')).not.toBeNull();
  });

  it('keeps a draft in the field while the form is open, whether it is sent or cancelled', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'my question');
    await m.answered();
    await m.el.updateComplete;
    const input = m.part('input') as HTMLTextAreaElement;
    input.value = 'a draft about refunds';
    m.part('escalation')!.querySelector('button')!.click();
    await m.el.updateComplete;
    [...m.part('escalation-form')!.querySelectorAll('button')].find((b) => b.textContent === 'Cancel')!.click();
    await m.el.updateComplete;
    expect(input.value).toBe('a draft about refunds');
    m.part('escalation')!.querySelector('button')!.click();
    await m.el.updateComplete;
    const form = await fillForm(m, { name: 'Ada', email: 'ada@example.com' });
    form.requestSubmit();
    await waitUntil(() => m.part('ticket'));
    expect((m.part('input') as HTMLTextAreaElement).value).toBe('a draft about refunds');
  });
});

describe('the escalation form', () => {
  async function open(m: Mounted): Promise<void> {
    await typeAndSend(m, 'my question');
    await m.answered();
    await m.el.updateComplete;
    m.part('escalation')!.querySelector('button')!.click();
    await m.el.updateComplete;
  }

  it('asks name, email and an optional note, keeps the conversation readable, and has one primary button', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    m.el.style.height = '600px';
    await open(m);
    const form = m.part('escalation-form') as HTMLFormElement;
    expect([...form.querySelectorAll('input, textarea')].map((e) => e.getAttribute('name'))).toEqual(['name', 'email', 'note']);
    expect(form.querySelector('label[for$="-note"]')!.textContent).toBe('Anything to add? (optional)');
    // The form sits in the conversation: the list keeps its height and the answer stays reachable above it.
    expect(m.part('messages')!.contains(form)).toBe(true);
    expect(m.part('messages')!.getBoundingClientRect().height).toBeGreaterThan(400);
    const primaries = [...m.el.shadowRoot!.querySelectorAll<HTMLElement>('button.primary')].filter((b) => b.offsetParent !== null);
    expect(primaries.map((b) => b.textContent!.trim())).toEqual(['Send to the team']);
    await expect(m.el).to.be.accessible();
    await fillForm(m, { name: 'Ada', email: 'ada@example.com' });
    form.requestSubmit();
    await waitUntil(() => m.part('ticket'));
    expect(JSON.parse((await requests(m, /\/escalate$/))[0]!.body)).toEqual({ name: 'Ada', email: 'ada@example.com' });
  });

  it('refuses a note over 2,000 characters with a described error', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await open(m);
    const form = await fillForm(m, { name: 'Ada', email: 'ada@example.com', note: 'n'.repeat(2_001) });
    form.requestSubmit();
    await waitUntil(() => form.querySelector('textarea[aria-invalid="true"]'));
    expect(await requests(m, /\/escalate$/)).toHaveLength(0);
  });

  it('returns focus to the offer after Cancel', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await open(m);
    [...m.part('escalation-form')!.querySelectorAll('button')].find((b) => b.textContent === 'Cancel')!.click();
    await waitUntil(() => active(m)?.textContent === 'Talk to a human', 'focus left the widget after Cancel');
    expect(m.part('escalation-form')).toBeNull();
    expect(m.part('composer')!.hidden).toBe(false);
  });

  it('shows "creating your ticket…" on 409 retryable, retries after Retry-After, then shows the ticket and focuses it', async () => {
    const m = await mount({ answerDelayMs: 10, escalateInProgress: 1 }, { mode: 'inline' });
    await open(m);
    const form = await fillForm(m, { name: 'Ada', email: 'ada@example.com' });
    let errors = 0;
    m.el.addEventListener('support-chat-error', () => errors++);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      form.requestSubmit();
      await advanceUntil(m, () => form.textContent!.includes('Creating your ticket…'), 'no "creating" state');
      // The proxy said Retry-After: 1. Not before.
      await advanceBy(m, 800, 100);
      expect(await requests(m, /\/escalate$/)).toHaveLength(1);
      await advanceUntil(m, () => m.part('ticket'), 'no ticket after the retry');
    } finally {
      vi.useRealTimers();
    }
    expect(m.part('ticket')!.textContent).toContain('Ticket tkt_42');
    expect(await requests(m, /\/escalate$/)).toHaveLength(2);
    expect(errors).toBe(0);
    await waitUntil(() => active(m) === m.part('ticket'), 'focus did not move to the ticket');
  });

  it('counts a name in characters as the API does: 200 emoji go through, 201 are refused with a described error', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await open(m);
    const form = await fillForm(m, { name: '🦊'.repeat(201), email: 'ada@example.com' });
    expect(form.querySelector('input[name="name"]')!.hasAttribute('maxlength')).toBe(false);
    form.requestSubmit();
    await waitUntil(() => form.querySelector('input[name="name"][aria-invalid="true"]'));
    expect(form.querySelector('.field-error')!.textContent).toContain('201');
    expect(await requests(m, /\/escalate$/)).toHaveLength(0);
    (form.elements.namedItem('name') as HTMLInputElement).value = '🦊'.repeat(200);
    form.requestSubmit();
    await waitUntil(() => m.part('ticket'), 'a name of 200 emoji was not sent');
    expect(JSON.parse((await requests(m, /\/escalate$/))[0]!.body).name).toBe('🦊'.repeat(200));
  });

  it('stops retrying "in progress" after a bounded number of tries and says so, with a retry', async () => {
    const m = await mount({ answerDelayMs: 10, escalateInProgress: 1_000 }, { mode: 'inline' });
    await open(m);
    const form = await fillForm(m, { name: 'Ada', email: 'ada@example.com' });
    const failed = oneEvent(m.el, 'support-chat-error');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      form.requestSubmit();
      let done = false;
      void failed.then(() => (done = true));
      await advanceUntil(m, () => done, 'the widget never gave up', { stepMs: 500, maxMs: 120_000 });
    } finally {
      vi.useRealTimers();
    }
    // The first try and 24 retries, one second apart as the proxy's Retry-After says.
    expect(await requests(m, /\/escalate$/)).toHaveLength(25);
    expect((await failed).detail.code).toBe('conflict');
    expect(m.part('escalation-form')!.querySelector('button[type="submit"]')!.hasAttribute('disabled')).toBe(false);
  });

  it('says that later messages also reach the team', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await open(m);
    (await fillForm(m, { name: 'Ada', email: 'ada@example.com' })).requestSubmit();
    await waitUntil(() => m.part('ticket'));
    await typeAndSend(m, 'One more detail');
    await m.answered(2);
    const users = m.parts('message').filter((e) => e.dataset.role === 'user');
    expect(users[0]!.textContent).not.toContain('Also sent to the support team');
    expect(users[1]!.textContent).toContain('Also sent to the support team');
    const bodies = (await requests(m, /^\/chat$/)).map((p) => JSON.parse(p.body) as { conversation_id?: string });
    expect(bodies[1]!.conversation_id).toMatch(/^conv_/);
  });

  for (const [integration, text] of [
    ['webhook', 'Thanks! The team has your conversation.'],
    ['linear', 'Thanks! The team has your conversation.'],
    ['plain', 'Thanks! The team has your conversation and will reply by email.'],
  ] as const) {
    it(`confirms what the ${integration} integration does, promising an email only when it sends one`, async () => {
      const m = await mount({ answerDelayMs: 10, escalateIntegration: integration }, { mode: 'inline' });
      await open(m);
      (await fillForm(m, { name: 'Ada', email: 'ada@example.com' })).requestSubmit();
      await waitUntil(() => m.part('ticket'));
      expect(m.part('ticket')!.querySelector('p')!.textContent).toBe(text);
      await waitUntil(() => m.el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!.textContent === text, 'the confirmation was not announced');
    });
  }
});
