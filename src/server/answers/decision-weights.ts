/**
 * @module The answer/no-answer decision's weights (see `answerOdds` in decision.ts). Written by
 * test/bench/decision-fit.ts (`BENCH_REFIT=1 npm run bench -- engine`), fitted on the
 * development sets with L2 0.001 and `meaning` held at 2: not edited by hand.
 */
export const DECISION_WEIGHTS = {
  bias: -6.908,
  general: 6.317,
  heading: 1.892,
  known: 3.305,
  top3: 1.392,
  meaning: 2,
};
