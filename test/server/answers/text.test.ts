import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_CHARS, sentences, stem, tokenize, words } from '../../../src/server/knowledge/text/text.js';

describe('words as users say them', () => {
  it('stems inflected, irregular and derived forms to the same term', () => {
    const same: [string, string][] = [
      ['refunds', 'refund'],
      ['sent', 'send'],
      ['emailed', 'email'],
      ['took', 'take'],
      ['invoices', 'invoice'],
      ['configuration', 'configure'],
      ['running', 'run'],
      ['SDKs'.toLowerCase(), 'sdk'],
    ];
    for (const [a, b] of same) expect(stem(a), `${a} / ${b}`).toBe(stem(b));
  });

  it('keeps identifiers whole beside their stemmed parts', () => {
    expect(tokenize('maxTokens')).toEqual(['maxtokens', 'max', stem('tokens')]);
    expect(tokenize('HTTP2 v1.2')).toContain('http2');
  });

  it('splits prose into sentences, never inside a bold run or a code span', () => {
    expect(sentences('**Does it expire? Will I lose data?** No. Run `a. B` to check. Done!')).toEqual(['**Does it expire? Will I lose data?** No.', 'Run `a. B` to check.', 'Done!']);
  });
});

describe('hostile tokens', () => {
  it('cuts a long token before splitting, lowercasing and stemming it, whatever its shape', () => {
    for (const token of ['x'.repeat(16_000), 'İ'.repeat(16_000), `${'A'.repeat(15_999)}1`, `${'a'.repeat(8_000)}Sses${'b'.repeat(8_000)}`, '𝐚'.repeat(8_000)]) {
      const terms = tokenize(token);
      expect(terms.length, token.slice(0, 10)).toBeGreaterThan(0);
      for (const term of terms) expect(term.length, token.slice(0, 10)).toBeLessThanOrEqual(MAX_TOKEN_CHARS);
      expect(stem(token.toLowerCase()).length).toBeLessThanOrEqual(MAX_TOKEN_CHARS);
    }
  });

  it('never cuts a character outside the Basic Multilingual Plane in half', () => {
    const [term] = tokenize(`a${'𝐚'.repeat(100)}`);
    expect(term).toBe(`a${'𝐚'.repeat((MAX_TOKEN_CHARS - 2) / 2)}`);
  });

  it('reads the words of a text up to a bound, the first ones', () => {
    const text = Array.from({ length: 1_000 }, (_, i) => `w${i}`).join(' ');
    expect(words(text, 300).map((w) => w.word)).toEqual(Array.from({ length: 300 }, (_, i) => `w${i}`));
    expect(words(text)).toHaveLength(1_000);
  });
});
