/**
 * The decision's fit (test/bench/decision-fit.ts, which writes the shipped weights): on examples
 * drawn from a known logistic model it finds that model's weights again, and a held weight keeps
 * its value while the others are fitted around it.
 */
import { describe, expect, it } from 'vitest';
import { FEATURES, fitDecision, type Example } from '../bench/decision-fit.js';
import type { AnswerSignals } from '../../src/server/answers/decision.js';

/** A deterministic stream of numbers in [0, 1) (a linear congruential generator). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

const TRUE = [-3, 2, 1, 1.5, 0.5, 4];

/** Many examples whose answer is drawn with the probability the true weights give their signals. */
function examples(count: number): Example[] {
  const next = numbers(7);
  return Array.from({ length: count }, (_, i) => {
    const values = FEATURES.map(() => next());
    const z = TRUE[0]! + values.reduce((sum, v, k) => sum + v * TRUE[k + 1]!, 0);
    const signals = Object.fromEntries(FEATURES.map((f, k) => [f, values[k]!])) as unknown as AnswerSignals;
    return { set: i % 2 ? 'a' : 'b', answer: next() < 1 / (1 + Math.exp(-z)), signals };
  });
}

describe('the decision fit', () => {
  const data = examples(20_000);

  it('finds the weights the examples were drawn with', () => {
    const fitted = fitDecision(data, 0);
    // Each set and class is weighed equally, which moves the bias alone.
    fitted.slice(1).forEach((w, k) => expect(w, FEATURES[k]).toBeCloseTo(TRUE[k + 1]!, 0));
  });

  it('keeps a held weight and fits the others', () => {
    const fitted = fitDecision(data, 0, { meaning: 1 });
    expect(fitted[1 + FEATURES.indexOf('meaning')]).toBe(1);
    fitted.forEach((w) => expect(Number.isFinite(w)).toBe(true));
    expect(fitted[1 + FEATURES.indexOf('general')]).toBeCloseTo(TRUE[1 + FEATURES.indexOf('general')]!, 0);
  });
});
