import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/protocol/index.js';
import { history, READ_LIMITS } from '../../../src/server/answers/index.js';

const user = (content: string): Message => ({ role: 'user', content, sources: [] });
const assistant = (content: string): Message => ({ role: 'assistant', content, sources: [] });

describe('how much of a conversation an answer reads', () => {
  it('reads a short question whole, and a long one by its start and its end', () => {
    expect(history([user('How do I embed the widget?')]).question).toBe('How do I embed the widget?');
    const long = `${'log line\n'.repeat(1_700)}Why does the proxy answer 502?`;
    const { question } = history([user(long)]);
    expect(question.length).toBeLessThanOrEqual(READ_LIMITS.questionHead + READ_LIMITS.questionTail + 3);
    expect(question.startsWith('log line')).toBe(true);
    expect(question.endsWith('Why does the proxy answer 502?')).toBe(true);
  });

  it('reads the last few earlier user turns of a long conversation, each clipped', () => {
    const messages = Array.from({ length: 20 }, (_, i) => [user(`turn ${i} ${'x'.repeat(16_000)}`), assistant('answer')]).flat();
    messages.push(user('and on Windows?'));
    const { question, earlier } = history(messages);
    expect(question).toBe('and on Windows?');
    expect(earlier.map((turn) => turn.split(' ')[1])).toEqual(['17', '18', '19']);
    for (const turn of earlier) expect(turn.length).toBe(READ_LIMITS.earlierChars);
  });

  it('never splits a character outside the Basic Multilingual Plane', () => {
    const { question, earlier } = history([user(`a${'😀'.repeat(4_000)}`), user(`a${'😀'.repeat(4_000)}a`)]);
    const wellFormed = (text: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
    expect(wellFormed(question)).toBe(true);
    expect(wellFormed(earlier[0]!)).toBe(true);
  });
});
