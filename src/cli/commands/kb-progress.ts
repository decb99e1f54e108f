/**
 * @module An ingest's progress on the terminal: files done of the total, sections written, their
 * rate and the time left. On a terminal, one line rewritten as it goes; elsewhere (a log, CI), a
 * plain line every `everyMs` once the ingest has run `quietMs`, so a short one prints nothing.
 */

/** Where progress is written: stderr, or a test's stand-in. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface IngestProgressOptions {
  /** @default process.stderr */
  stream?: ProgressStream;
  /** @default Date.now */
  now?: () => number;
  /** Off a terminal: nothing is printed before the ingest has run this long. @default 3000 */
  quietMs?: number;
  /** Off a terminal: a line at most this often. @default 10000 */
  everyMs?: number;
}

/** A duration as a person reads it: "40 s", "3 min", "1 h 5 min". */
export function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/**
 * Follows one ingest through `IngestOptions.onProgress`.
 *
 * @example
 * const progress = new IngestProgress();
 * await engine.ingest(orgId, paths, { onProgress: progress.update });
 * progress.end();
 */
export class IngestProgress {
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #quietMs: number;
  readonly #everyMs: number;
  readonly #started: number;
  #lastWrite = 0;
  #drawn = false;

  constructor(options: IngestProgressOptions = {}) {
    this.#stream = options.stream ?? process.stderr;
    this.#now = options.now ?? Date.now;
    this.#quietMs = options.quietMs ?? 3000;
    this.#everyMs = options.everyMs ?? 10_000;
    this.#started = this.#now();
  }

  /** The line for files `done` of `total`, `sections` written so far, as of now. */
  line(done: number, total: number, sections: number): string {
    const elapsed = this.#now() - this.#started;
    const parts = [`${done}/${total} files`, `${sections} sections`];
    if (elapsed >= 1000 && sections > 0) parts.push(`${(sections / (elapsed / 1000)).toFixed(1)} sections/s`);
    if (done > 0 && done < total && elapsed >= 1000) parts.push(`about ${duration((elapsed / done) * (total - done))} left`);
    return parts.join(' · ');
  }

  /** `IngestOptions.onProgress`. */
  readonly update = (done: number, total: number, file: string, sections = 0): void => {
    const now = this.#now();
    if (this.#stream.isTTY) {
      // Redrawn at most ten times a second: a folder of small files reports thousands of times.
      if (now - this.#lastWrite < 100 && done < total) return;
      this.#lastWrite = now;
      const width = 24;
      const filled = total ? Math.round((done / total) * width) : width;
      const name = file.length > 30 ? `…${file.slice(-29)}` : file;
      this.#stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.line(done, total, sections)} ${name}`.padEnd(110));
      this.#drawn = true;
      return;
    }
    if (now - this.#started < this.#quietMs || now - this.#lastWrite < this.#everyMs || done >= total) return;
    this.#lastWrite = now;
    this.#stream.write(`ingest: ${this.line(done, total, sections)}\n`);
  };

  /** Ends the terminal's line (the summary follows on its own). */
  end(): void {
    if (this.#drawn) this.#stream.write('\n');
    this.#drawn = false;
  }
}
