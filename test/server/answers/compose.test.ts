import { describe, expect, it } from 'vitest';
import { bestSentences } from '../../../src/server/answers/compose.js';
import { tokenize } from '../../../src/server/answers/text.js';

const terms = (question: string) => new Set(tokenize(question));

describe('quoted sentences', () => {
  it('quotes a passage repeated once per tab of an exported page once, even with its spaces lost', () => {
    const body = [
      'Criteria Bad The model should classify sentiments well.',
      'Our sentiment model should reach an F1 score of 0.85 on held-out posts.',
      'Our sentiment model should reach an F1 score of 0.85 on held-out posts.',
      'CriteriaBadThe model should classify sentiments well.',
      'Example criteria Our sentiment model should reach an F1 score of 0.85 on held-out posts.',
    ].join('\n');
    const quoted = bestSentences(body, terms('What F1 score should a sentiment model reach?'), 3);
    expect(quoted).toEqual(['Criteria Bad The model should classify sentiments well.', 'Our sentiment model should reach an F1 score of 0.85 on held-out posts.']);
  });

  it('skips a long run of words with no sentence end (a menu or a list of links) when there is a sentence to quote', () => {
    const menu = Array.from({ length: 12 }, (_, i) => `Install the sheets add-on step ${i}`).join(' ');
    const body = `${menu}\nTo install the add-on, open the marketplace and choose Install.`;
    expect(bestSentences(body, terms('How do I install the sheets add-on?'), 2)).toEqual(['To install the add-on, open the marketplace and choose Install.']);
    // With nothing else to quote, the run-on is still better than nothing.
    expect(bestSentences(menu, terms('How do I install the sheets add-on?'), 2)).toEqual([menu]);
  });
});
