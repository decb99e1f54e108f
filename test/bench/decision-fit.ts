/**
 * @module Refitting the engine's answer/no-answer decision (a logistic model over its signals) and
 * cross-validating it across the development sets: fitted on two sets, scored on the third, so a
 * set's figures say how the decision does on a knowledge base it was not fitted on.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DECISION, type AnswerSignals } from '../../src/server/answers/decision.js';

/** The signals the decision weighs, in the order of the fitted weights (after the bias). */
export const FEATURES = ['general', 'heading', 'known', 'top3', 'meaning'] as const satisfies readonly (keyof AnswerSignals & keyof typeof DECISION)[];

/** One question of a set: whether it should be answered, and its signals (null without hits: never answered). */
export interface Example {
  set: string;
  answer: boolean;
  signals: AnswerSignals | null;
}

const features = (s: AnswerSignals) => [1, ...FEATURES.map((f) => s[f])];

/** Solves the small linear system A x = b (Gaussian elimination with partial pivoting). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let sum = m[r]![n]!;
    for (let k = r + 1; k < n; k++) sum -= m[r]![k]! * x[k]!;
    x[r] = sum / m[r]![r]!;
  }
  return x;
}

/**
 * Logistic regression by Newton's method, each set and class weighed equally, with an L2 penalty on
 * the weights (not the bias). Returns [bias, ...weights in FEATURES order].
 */
export function fitDecision(examples: Example[], l2: number, held: Partial<Record<(typeof FEATURES)[number], number>> = {}): number[] {
  const rows = examples.filter((e): e is Example & { signals: AnswerSignals } => e.signals !== null);
  const groups = new Map<string, number>();
  for (const e of rows) groups.set(`${e.set}/${e.answer}`, (groups.get(`${e.set}/${e.answer}`) ?? 0) + 1);
  const n = FEATURES.length + 1;
  // A held weight keeps its value: its row of the Newton step is the identity with no gradient.
  const isHeld = [false, ...FEATURES.map((f) => held[f] !== undefined)];
  let beta = [0, ...FEATURES.map((f) => held[f] ?? 0)];
  for (let step = 0; step < 50; step++) {
    const gradient = beta.map((b, i) => (i === 0 || isHeld[i] ? 0 : l2 * b));
    // The diagonal: 1 for a held weight (its step is then 0), the penalty for the others, none for the bias.
    const diagonal = (i: number) => (isHeld[i] ? 1 : i > 0 ? l2 : 0);
    const hessian = beta.map((_, i) => beta.map((__, j) => (i === j ? diagonal(i) : 0)));
    for (const e of rows) {
      const x = features(e.signals);
      const weight = 1 / groups.get(`${e.set}/${e.answer}`)!;
      const p = 1 / (1 + Math.exp(-x.reduce((z, v, i) => z + v * beta[i]!, 0)));
      for (let i = 0; i < n; i++) {
        if (isHeld[i]) continue;
        gradient[i]! += weight * (p - (e.answer ? 1 : 0)) * x[i]!;
        for (let j = 0; j < n; j++) if (!isHeld[j]) hessian[i]![j]! += weight * p * (1 - p) * x[i]! * x[j]!;
      }
    }
    const delta = solve(hessian, gradient);
    beta = beta.map((b, i) => b - delta[i]!);
    if (delta.every((d) => Math.abs(d) < 1e-9)) break;
  }
  return beta;
}

/**
 * How the shipped weights are fitted: on the three development sets together, L2 0.001, with
 * `meaning` held at 2 (the weight that changes no help decision: refitted freely it moves every
 * weight and help loses held out; see docs/benchmarks.md).
 */
export const SHIPPED_FIT = { l2: 0.001, held: { meaning: 2 } } as const;

/** The file the shipped weights live in, written by `writeDecision` alone. */
const WEIGHTS_FILE = resolve(import.meta.dirname, '../../src/server/answers/decision-weights.ts');

/** Writes fitted weights (in `fitDecision`'s order) as the shipped table, rounded to 3 decimals. */
export function writeDecision(beta: number[]): void {
  const entries = ['bias', ...FEATURES].map((f, i) => `  ${f}: ${Number(beta[i]!.toFixed(3))},`).join('\n');
  writeFileSync(
    WEIGHTS_FILE,
    `/**
 * @module The answer/no-answer decision's weights (see \`answerOdds\` in decision.ts). Written by
 * test/bench/decision-fit.ts (\`BENCH_REFIT=1 npm run bench -- engine\`), fitted on the
 * development sets with L2 ${SHIPPED_FIT.l2} and \`meaning\` held at ${SHIPPED_FIT.held.meaning}: not edited by hand.
 */
export const DECISION_WEIGHTS = {
${entries}
};
`,
  );
}

/** The shipped weights in `fitDecision`'s order. */
export const shippedDecision = (): number[] => [DECISION.bias, ...FEATURES.map((f) => DECISION[f])];

/** Share of the questions to answer that a decision answers, and of the others it leaves silent. */
export function scoreDecision(beta: number[], examples: Example[]): { answered: number; silent: number } {
  const says = (e: Example) => e.signals !== null && features(e.signals).reduce((z, v, i) => z + v * beta[i]!, 0) > 0;
  const share = (xs: Example[], f: (e: Example) => boolean) => xs.filter(f).length / xs.length;
  return { answered: share(examples.filter((e) => e.answer), says), silent: share(examples.filter((e) => !e.answer), (e) => !says(e)) };
}
