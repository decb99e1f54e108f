/** The question-embedding cache: a repeated question is embedded once, per organization; a failure is not kept. */
import { describe, expect, it } from 'vitest';
import { cachedQuestions } from '../../../src/server/knowledge/ranking/question-cache.js';

function counting(result: () => Promise<Int8Array | null> = async () => new Int8Array([1])) {
  const calls: [string, string | undefined][] = [];
  const embed = cachedQuestions((text, orgId) => {
    calls.push([text, orgId]);
    return result();
  });
  return { embed, calls };
}

describe('the question-embedding cache', () => {
  it('embeds a question an organization asks again once, its blanks aside', async () => {
    const { embed, calls } = counting();
    await Promise.all([embed('How do I  reset my password?', 'acme'), embed(' How do I reset my password? ', 'acme')]);
    await embed('How do I reset my password?', 'acme');
    expect(calls).toEqual([['How do I reset my password?', 'acme']]);
  });

  it("never answers one organization's question from another's", async () => {
    const { embed, calls } = counting();
    await embed('How do I reset my password?', 'acme');
    await embed('How do I reset my password?', 'globex');
    expect(calls.map(([, org]) => org)).toEqual(['acme', 'globex']);
  });

  it('keeps no failure and no missing vector: the next ask tries again', async () => {
    let outcome: 'fail' | 'none' | 'ok' = 'fail';
    const { embed, calls } = counting(async () => {
      if (outcome === 'fail') throw new Error('model down');
      return outcome === 'none' ? null : new Int8Array([1]);
    });
    await expect(embed('refunds', 'acme')).rejects.toThrow('model down');
    outcome = 'none';
    expect(await embed('refunds', 'acme')).toBeNull();
    outcome = 'ok';
    expect(await embed('refunds', 'acme')).toEqual(new Int8Array([1]));
    expect(calls).toHaveLength(3);
  });
});
