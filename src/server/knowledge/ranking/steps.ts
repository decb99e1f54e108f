/**
 * @module Work done in steps: a generator that yields between steps runs at once (`drain`) or
 * lets the event loop turn at each step (`stepped`), so an index over a large knowledge base is
 * built while the server keeps answering requests, by the same code that builds a small one at once.
 */
import { setImmediate } from 'node:timers/promises';

/** Runs a stepped computation to its end at once. */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs a stepped computation, letting the event loop turn at each step. */
export async function stepped<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await setImmediate();
  }
}
