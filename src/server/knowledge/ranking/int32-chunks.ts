/**
 * @module A growing run of 32-bit integers held in fixed-size chunks: growing adds a chunk and
 * never copies what is held. An index over a large knowledge base holds tens of millions of term
 * records while it is built; doubling one array that size held the event loop half a second.
 */

const SHIFT = 20;
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

export class Int32Chunks {
  readonly #chunks: Int32Array[] = [];

  /** Makes room for entries `0 .. size - 1` (new entries are 0). */
  reserve(size: number): void {
    while (this.#chunks.length * CHUNK < size) this.#chunks.push(new Int32Array(CHUNK));
  }

  get(at: number): number {
    return this.#chunks[at >>> SHIFT]![at & MASK]!;
  }

  set(at: number, value: number): void {
    this.#chunks[at >>> SHIFT]![at & MASK] = value;
  }

  increment(at: number): void {
    this.#chunks[at >>> SHIFT]![at & MASK]!++;
  }

  /** The first `size` entries as one array, copied a chunk at a step (see steps.ts). */
  *joined(size: number): Generator<void, Int32Array<ArrayBuffer>> {
    const out = new Int32Array(size);
    for (let start = 0, i = 0; start < size; start += CHUNK, i++) {
      out.set(this.#chunks[i]!.subarray(0, Math.min(CHUNK, size - start)), start);
      yield;
    }
    return out;
  }
}
