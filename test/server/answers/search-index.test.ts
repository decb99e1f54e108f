import { describe, expect, it } from 'vitest';
import { SearchIndex } from '../../../src/server/answers/search-index.js';
import { isQuestionFraming, tokenize } from '../../../src/server/answers/text.js';

const section = (id: number, title: string, body: string) => ({ id, title, context: '', body, code: '' });

describe('question framing', () => {
  it('recognizes the words that frame a question, after tokenizing', () => {
    expect(tokenize('What are the two main benefits you recommend?').filter(isQuestionFraming)).toEqual(tokenize('two main benefits recommend'));
    expect(tokenize('webhook signature').some(isQuestionFraming)).toBe(false);
  });

  it('lets the subject of a question decide the ranking over the words that frame it', () => {
    const index = new SearchIndex([
      section(0, 'Main benefits', 'Two main benefits we recommend for every team: speed and one clear key workflow.'),
      section(1, 'Webhook retries', 'Webhook deliveries are retried with backoff when the receiver fails.'),
    ]);
    const hits = index.search('What are the two main benefits of webhook retries you recommend?');
    expect(hits[0]!.index).toBe(1);
  });
});
