/** Typing re-renders the panel; the answers on screen are not parsed again (issue 28). */
import { describe, expect, it } from 'vitest';
import { userEvent } from 'vitest/browser';
import './setup.js';
import { mount, typeAndSend } from './helpers.js';
import { parseStats } from '../../src/widget/markdown.js';

describe('answers on screen while the visitor types', () => {
  it('are parsed once, not at every keystroke', async () => {
    const answer = '## Steps\n\n1. Open **Settings**\n2. Press `Save`\n\n```sh\nacme save\n```';
    const m = await mount({ answer, answerDelayMs: 20 }, { mode: 'inline' });
    await typeAndSend(m, 'first question');
    await m.answered();
    await typeAndSend(m, 'second question');
    await m.answered(2);
    await m.el.updateComplete;
    expect(m.parts('message')).toHaveLength(4);

    const before = parseStats.count;
    const input = m.part('input') as HTMLTextAreaElement;
    input.focus();
    await userEvent.keyboard('a follow-up question');
    await m.el.updateComplete;
    expect(input.value).toBe('a follow-up question');
    // Every keystroke renders the panel again (without the cache: two parses a key); no answer was parsed again.
    expect(parseStats.count - before).toBe(0);
  });
});
