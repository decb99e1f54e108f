/** Icons render without an emoji or symbol font: inline SVG in the text colour, or a Latin-1 character. */
import { describe, expect, it } from 'vitest';
import './setup.js';
import { mount, typeAndSend } from './helpers.js';

describe('icons', () => {
  it('draws the thumbs as SVG, sized and in the text colour, with no character to fall back to a box', async () => {
    const m = await mount({ answerDelayMs: 10 }, { mode: 'inline' });
    await typeAndSend(m, 'How do I embed the widget?');
    await m.answered();
    await m.el.updateComplete;
    const thumbs = m.parts('feedback');
    expect(thumbs.map((b) => b.getAttribute('aria-label'))).toEqual(['Helpful', 'Not helpful']);
    for (const button of thumbs) {
      expect(button.textContent!.trim()).toBe('');
      const icon = button.querySelector('svg')!;
      expect(icon.getAttribute('aria-hidden')).toBe('true');
      const box = icon.getBoundingClientRect();
      expect(box.width).toBeGreaterThan(10);
      expect(box.height).toBeGreaterThan(10);
      expect(getComputedStyle(icon).stroke).toBe(getComputedStyle(button).color);
    }
    // Thumbs down is thumbs up turned over, not another character.
    expect(thumbs[1]!.querySelector('svg')!.getAttribute('transform')).toBe('scale(1 -1)');
  });

  it('closes the launcher with ×, a character every font has', async () => {
    const m = await mount({}, {});
    m.el.open();
    await m.el.updateComplete;
    const close = m.el.shadowRoot!.querySelector<HTMLButtonElement>('.header button[aria-label]')!;
    expect(close.textContent!.trim()).toBe('×');
    expect(close.textContent!.trim().codePointAt(0)).toBeLessThan(0x100);
  });
});
