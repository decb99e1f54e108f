/** @module How many turns the event loop takes while some work runs: whether that work lets other work in. */

/** Runs `work` and counts the event loop's turns (setImmediate callbacks) meanwhile. */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let finished = false;
  const tick = () => {
    if (finished) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    finished = true;
  }
}
