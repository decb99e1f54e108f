/** @module Replies that found no direct answer read as such: related pages (not "Sources"), "Talk to a human" offered, announced as "not sure". */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, typeAndSend, type Mounted } from './helpers.js';

const RELATED = [
  { title: 'Refunds — Billing', url: 'https://docs.example.com/billing#refunds' },
  { title: 'Cancel a plan — Billing', url: 'https://docs.example.com/billing#cancel' },
];
const INTRO = "I couldn't find a direct answer to that; these pages look related:";

const reply = (m: Mounted) => m.parts('message').filter((e) => e.dataset.role === 'assistant').at(-1)!;
const announced = (m: Mounted) => m.el.shadowRoot!.querySelector('[role="status"][aria-live="polite"]')!.textContent;

describe('a reply with related pages', () => {
  it('lists the pages under "Pages that may help" (not numbered sources), offers "Talk to a human" and is announced as not sure', async () => {
    const m = await mount({ answerDelayMs: 10, answer: INTRO, sources: RELATED, uncertain: true }, { mode: 'inline' });
    await typeAndSend(m, 'can I get my money back?');
    await m.answered();
    await m.el.updateComplete;
    const el = reply(m);
    expect(el.dataset.uncertain).toBe('true');
    expect(el.querySelector('[part~="sources"]')).toBeNull();
    const related = el.querySelector('[part~="related"]')!;
    expect(related.querySelector('.sources-title')!.textContent).toBe('Pages that may help');
    expect(related.querySelector('ol')).toBeNull();
    expect([...related.querySelectorAll<HTMLAnchorElement>('ul a')].map((a) => a.href)).toEqual(RELATED.map((s) => s.url));
    expect(announced(m)).toBe('Not sure: there is no direct answer, but some pages look related. You can also talk to a human.');
    expect(el.querySelector('.visually-hidden')!.textContent).toMatch(/^Assistant \(Not sure/);
    await expect(m.el).to.be.accessible();

    // One offer, in one place (above the composer), drawn as the primary action: never a second one in the reply.
    expect(m.parts('talk-to-human')).toHaveLength(1);
    expect(el.querySelector('[part~="talk-to-human"]')).toBeNull();
    const human = m.part('escalation')!.querySelector<HTMLButtonElement>('[part~="talk-to-human"]')!;
    expect(human.textContent!.trim()).toBe('Talk to a human');
    expect(human.classList.contains('primary')).toBe(true);
    human.click();
    await m.el.updateComplete;
    expect(m.part('escalation-form')).not.toBeNull();
    // The form is open: the offer goes.
    expect(m.parts('talk-to-human')).toHaveLength(0);
  });

  it('says "No answer found" when nothing is related, and still offers a human', async () => {
    const m = await mount({ answerDelayMs: 10, answer: 'Nothing about that in the docs.', sources: [], uncertain: true }, { mode: 'inline' });
    await typeAndSend(m, 'what is the weather tomorrow?');
    await m.answered();
    await m.el.updateComplete;
    expect(announced(m)).toBe('No answer found. You can rephrase the question, or talk to a human.');
    expect(reply(m).querySelector('[part~="related"], [part~="sources"]')).toBeNull();
    expect(m.parts('talk-to-human')).toHaveLength(1);
    expect(m.part('talk-to-human')!.classList.contains('primary')).toBe(true);
  });

  it('keeps an answer as it was: numbered sources, announced as ready, no extra offer', async () => {
    const m = await mount({ answerDelayMs: 10, answer: 'Refunds take 14 days.', sources: RELATED }, { mode: 'inline' });
    await typeAndSend(m, 'how long do refunds take?');
    await m.answered();
    await m.el.updateComplete;
    expect(reply(m).dataset.uncertain).toBeUndefined();
    expect(reply(m).querySelector('[part~="sources"] ol')).not.toBeNull();
    // The offer stays where it always is, not urged.
    expect(m.parts('talk-to-human')).toHaveLength(1);
    expect(m.part('talk-to-human')!.classList.contains('secondary')).toBe(true);
    expect(announced(m)).toBe('Answer ready: Refunds take 14 days.');
  });

  it('speaks every built-in language', async () => {
    const m = await mount({ answerDelayMs: 10, answer: INTRO, sources: RELATED, uncertain: true }, { mode: 'inline', lang: 'fr' });
    await typeAndSend(m, 'remboursement ?');
    await m.answered();
    await waitUntil(() => announced(m));
    expect(reply(m).querySelector('.sources-title')!.textContent).toBe('Pages qui peuvent aider');
    expect(announced(m)).toMatch(/^Pas sûr/);
    expect(m.part('talk-to-human')!.textContent!.trim()).toBe('Parler à une personne');
  });
});
