import { describe, expect, it } from 'vitest';
import { waitUntil } from '@open-wc/testing-helpers';
import { namespace } from './helpers.js';
import type { SupportChat } from '../../src/widget/support-chat.js';

describe('the script-tag build', () => {
  it('adds a launcher from the script tag’s data attributes and replays calls queued before it loaded', async () => {
    const endpoint = await namespace({ answerDelayMs: 10 });
    // What a page has before the script arrives: the tag and the queueing stub.
    const tag = document.createElement('script');
    tag.type = 'text/plain';
    tag.src = '/assets/support-chat.iife.js';
    tag.dataset.endpoint = endpoint;
    tag.dataset.heading = 'Acme help';
    tag.dataset.storageKey = 'script-tag';
    tag.dataset.starters = '["From the tag?"]';
    // Any attribute of the element works as data-*, the last one listed too.
    tag.dataset.pollTimeout = '90000';
    document.head.append(tag);
    const w = window as unknown as { SupportChat?: ((...args: unknown[]) => void) & { q?: unknown[][] } };
    w.SupportChat = Object.assign((...args: unknown[]) => (w.SupportChat!.q ??= []).push(args), { q: [] as unknown[][] });
    w.SupportChat('open');
    w.SupportChat('ask', 'queued before load');

    await import('../../src/widget/auto.js');

    const el = document.querySelector<SupportChat>('support-chat[data-auto]')!;
    expect(el.getAttribute('endpoint')).toBe(endpoint);
    expect(el.getAttribute('heading')).toBe('Acme help');
    expect(el.starters).toEqual(['From the tag?']);
    expect(el.pollTimeout).toBe(90_000);
    await waitUntil(() => el.shadowRoot?.querySelector('[part~="message"][data-role="assistant"]'), 'the queued question was not answered', { timeout: 8_000 });
    expect(el.hasAttribute('open')).toBe(true);
    expect(el.shadowRoot!.querySelector('[part~="message"][data-role="user"]')!.textContent).toContain('queued before load');
    // After loading, calls go straight to the element.
    w.SupportChat('close');
    await el.updateComplete;
    expect(el.hasAttribute('open')).toBe(false);
    el.remove();
    tag.remove();
  });
});
