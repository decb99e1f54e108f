/** On a phone: the launcher's full-screen panel is a modal dialog, and nothing overflows (issue 14). */
import { afterEach, describe, expect, it } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { fixture, html, waitUntil } from '@open-wc/testing-helpers';
import './setup.js';
import { mount, typeAndSend } from './helpers.js';

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe('on a phone', () => {
  it('makes the open launcher panel a modal dialog that Tab never leaves', async () => {
    await page.viewport(375, 700);
    // Page links that the full-screen panel covers.
    const behind = await fixture(html`<div><a href="#one">one</a><a href="#two">two</a></div>`);
    const m = await mount();
    (m.part('launcher') as HTMLButtonElement).click();
    await m.el.updateComplete;
    expect(m.part('panel')!.getAttribute('aria-modal')).toBe('true');
    (m.part('input') as HTMLTextAreaElement).focus();
    for (let i = 0; i < 12; i++) {
      await userEvent.keyboard(i % 3 === 2 ? '{Shift>}{Tab}{/Shift}' : '{Tab}');
      expect(document.activeElement, `Tab ${i + 1} left the panel`).toBe(m.el);
      expect(behind.contains(document.activeElement)).toBe(false);
    }
    // Focus sent behind the panel by other means comes back.
    behind.querySelector('a')!.focus();
    await waitUntil(() => document.activeElement === m.el, 'focus stayed behind the modal panel');
    await expect(m.el).to.be.accessible();
  });

  it('keeps the panel non-modal on a desktop', async () => {
    const m = await mount();
    (m.part('launcher') as HTMLButtonElement).click();
    await m.el.updateComplete;
    expect(m.part('panel')!.getAttribute('aria-modal')).toBe('false');
  });

  it('does not grow past the screen after an answer with a long code line', async () => {
    await page.viewport(375, 700);
    const answer = 'Set it:\n\n```sh\n' + 'export SUPPORT_CHAT_LLM_BASE_URL=https://llm.example.com/v1/a/very/long/path/that/does/not/wrap/anywhere/at/all\n```';
    const m = await mount({ answerDelayMs: 10, answer }, { mode: 'inline' });
    // A page layout like the docs demo's on a phone: one grid column holding the panel.
    const grid = document.createElement('div');
    grid.style.display = 'grid';
    grid.style.gridTemplateColumns = '1fr';
    m.el.parentElement!.append(grid);
    grid.append(m.el);
    m.el.style.height = '500px';
    await typeAndSend(m, 'long code');
    await m.answered();
    await m.el.updateComplete;
    expect(m.el.getBoundingClientRect().width).toBeLessThanOrEqual(375);
    expect(document.documentElement.scrollWidth).toBeLessThanOrEqual(375);
    grid.remove();
  });
});
