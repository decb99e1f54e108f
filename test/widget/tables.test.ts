/** A table in the panel scrolls sideways in its own box and never breaks a word, at phone widths too. */
import { afterEach, describe, expect, it } from 'vitest';
import { page } from 'vitest/browser';
import './setup.js';
import { mount, typeAndSend } from './helpers.js';

const TABLE = [
  'The settings:',
  '',
  '| Unit | Example | Description |',
  '| --- | --- | --- |',
  '| Milliseconds | SUPPORT_CHAT_REQUEST_TIMEOUT_MS=30000 | How long the proxy waits for the API before answering 504 |',
  '| Characters | SUPPORT_CHAT_MAX_MESSAGE_CHARACTERS | The longest message a visitor may send |',
].join('\n');

/** The widest word of a cell, measured in the cell's own font. */
function longestWord(cell: HTMLElement): number {
  const canvas = document.createElement('canvas').getContext('2d')!;
  canvas.font = getComputedStyle(cell).font;
  return Math.max(...(cell.textContent ?? '').split(/\s+/).filter(Boolean).map((w) => canvas.measureText(w).width));
}

afterEach(async () => {
  await page.viewport(1280, 800);
});

describe('a table in an answer', () => {
  for (const width of [360, 400]) {
    it(`keeps every word whole and scrolls sideways in a ${width} px panel`, async () => {
      await page.viewport(width, 700);
      const m = await mount({ answerDelayMs: 10, answer: TABLE, sources: [] }, { mode: 'inline' });
      m.el.style.width = `${width}px`;
      await typeAndSend(m, 'which settings are there?');
      await m.answered();
      await m.el.updateComplete;
      const box = m.el.shadowRoot!.querySelector<HTMLElement>('.content .table')!;
      const cells = [...box.querySelectorAll<HTMLElement>('th, td')];
      expect(cells.length).toBe(9);
      for (const cell of cells) {
        const padding = parseFloat(getComputedStyle(cell).paddingLeft) + parseFloat(getComputedStyle(cell).paddingRight);
        // A cell narrower than its longest word has broken it across lines.
        expect(cell.clientWidth - padding, cell.textContent!).toBeGreaterThanOrEqual(Math.floor(longestWord(cell)));
      }
      // The table is wider than the panel: its own box scrolls, the message and the panel do not.
      expect(box.scrollWidth).toBeGreaterThan(box.clientWidth);
      expect(getComputedStyle(box).overflowX).toBe('auto');
      const message = box.closest<HTMLElement>('[part~="message"]')!;
      expect(message.scrollWidth).toBeLessThanOrEqual(message.clientWidth + 1);
      expect(m.el.getBoundingClientRect().width).toBeLessThanOrEqual(width);
    });
  }
});
