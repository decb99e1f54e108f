/**
 * @module The CPU time this process's main thread spends between two turns of its event loop
 * (Linux: the thread's `/proc` stat): how long work held the event loop, told apart from a machine
 * too busy to run the process at all, which wall-clock gaps cannot.
 */
import { readFileSync } from 'node:fs';

/** The main thread's CPU time, user and system, in milliseconds (clock ticks of 10 ms). */
export function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs `work` and measures the most CPU time the main thread spent between two turns of its event loop meanwhile. */
export async function longestTurn<T>(work: () => Promise<T>): Promise<{ result: T; longestMs: number; turns: number }> {
  let last = mainThreadCpuMs();
  let longestMs = 0;
  let turns = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = mainThreadCpuMs();
    longestMs = Math.max(longestMs, now - last);
    last = now;
    turns++;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  try {
    const result = await work();
    tick();
    return { result, longestMs, turns };
  } finally {
    clearTimeout(timer);
  }
}
