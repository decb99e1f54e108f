/** @module The least wall-clock time of a few runs of synchronous work, for tests that compare how cost grows with input size. */

/** The least time of `runs` runs of `run`, in milliseconds. */
export function leastTime(run: () => void, runs = 2): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}
