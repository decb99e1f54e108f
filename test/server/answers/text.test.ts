import { describe, expect, it } from 'vitest';
import { sentences, stem, tokenize } from '../../../src/server/answers/text.js';

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
