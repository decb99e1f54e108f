/**
 * @module Dense retrieval: the sections whose sentence embeddings are nearest a question's, by
 * brute force over typed arrays. Each vector's signs (512 bits) are scanned first by Hamming
 * distance, which costs 16 integer operations per section, and only the nearest few hundred are
 * scored by their exact cosine: about a twentieth of the work of scoring every vector, with the
 * same top hits in practice (the sign pattern of a vector keeps most of its angle).
 */
import { drain, stepped } from './steps.js';

/** Sections scored by their exact cosine after the sign scan: at least this many, or this share of all. */
const RESCORED = 512;
const RESCORED_SHARE = 1 / 16;
/** Bits per vector component sign word. */
const WORD = 32;

/** A hit of the dense index: the section's position in the list the index was built from, and its cosine with the question. */
export interface DenseHit {
  index: number;
  cosine: number;
}

/** Population count of a 32-bit word. */
function bits(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** A vector's signs, one bit per component (set when positive), in 32-bit words. */
function signs(vector: Int8Array, words: number, out: Int32Array = new Int32Array(words), offset = 0): Int32Array {
  for (let w = 0; w < words; w++) {
    let word = 0;
    for (let b = 0; b < WORD; b++) if ((vector[w * WORD + b] ?? 0) > 0) word |= 1 << b;
    out[offset + w] = word;
  }
  return out;
}

/** Vectors `DenseIndex.build` copies in between two turns of the event loop (a few milliseconds' work). */
const VECTORS_PER_TURN = 4_000;

export class DenseIndex {
  /** The sections that have a vector, by their position in the list the index was built from. */
  readonly #rows: Int32Array;
  /** Each section's row in `#matrix`, by its position in that list; -1 for a section with no vector. */
  readonly #rowOf: Int32Array;
  /** Their vectors, one after another. */
  readonly #matrix: Int8Array;
  readonly #norms: Float32Array;
  readonly #signs: Int32Array;
  readonly #dimensions: number;
  readonly #words: number;

  /**
   * An index over the vectors given, built a few thousand vectors at a time, letting the event loop
   * turn in between (50,000 vectors at once held it a third of a second).
   */
  static async build(vectors: readonly (Int8Array | null)[]): Promise<DenseIndex> {
    const index = new DenseIndex(vectors, false);
    await stepped(index.#filling(vectors));
    return index;
  }

  /** An index over the vectors given (null entries have none: code, or sections stored without one); `DenseIndex.build` does the same without holding the event loop. */
  constructor(vectors: readonly (Int8Array | null)[], fill = true) {
    const rows: number[] = [];
    let dimensions = 0;
    vectors.forEach((v, i) => {
      if (v && (dimensions === 0 || v.length === dimensions)) {
        dimensions = v.length;
        rows.push(i);
      }
    });
    this.#dimensions = dimensions;
    this.#words = Math.ceil(dimensions / WORD);
    this.#rows = Int32Array.from(rows);
    this.#rowOf = new Int32Array(vectors.length).fill(-1);
    rows.forEach((index, r) => (this.#rowOf[index] = r));
    this.#matrix = new Int8Array(rows.length * dimensions);
    this.#norms = new Float32Array(rows.length);
    this.#signs = new Int32Array(rows.length * this.#words);
    if (fill) drain(this.#filling(vectors));
  }

  /** Copies the vectors in, with their norms and signs, a step every `VECTORS_PER_TURN`. */
  *#filling(vectors: readonly (Int8Array | null)[]): Generator<void, void> {
    const dimensions = this.#dimensions;
    for (let r = 0; r < this.#rows.length; r++) {
      const v = vectors[this.#rows[r]!]!;
      this.#matrix.set(v, r * dimensions);
      let norm = 0;
      for (let k = 0; k < dimensions; k++) norm += v[k]! * v[k]!;
      this.#norms[r] = Math.sqrt(norm);
      signs(v, this.#words, this.#signs, r * this.#words);
      if (r % VECTORS_PER_TURN === VECTORS_PER_TURN - 1) yield;
    }
  }

  /** How many sections have a vector here. */
  get size(): number {
    return this.#rows.length;
  }

  /** Bytes the index holds (vectors, norms, signs and row numbers). */
  get bytes(): number {
    return this.#matrix.byteLength + this.#norms.byteLength + this.#signs.byteLength + this.#rows.byteLength + this.#rowOf.byteLength;
  }

  /** The vector of the section at `index` in the list the index was built from (a view of the index's own copy), or null when it has none. */
  vector(index: number): Int8Array | null {
    const r = this.#rowOf[index] ?? -1;
    return r < 0 ? null : this.#matrix.subarray(r * this.#dimensions, (r + 1) * this.#dimensions);
  }

  /**
   * The `k` sections nearest the question, best first, among those `accept` lets through (by
   * their position in the list the index was built from).
   */
  nearest(question: Int8Array, k: number, accept: (index: number) => boolean = () => true): DenseHit[] {
    const n = this.#rows.length;
    if (n === 0 || k <= 0 || question.length !== this.#dimensions) return [];
    const words = this.#words;
    const q = signs(question, words);
    // Hamming distance of every vector's signs; a histogram of the distances gives the cut that keeps the nearest RESCORED.
    const distance = new Uint16Array(n);
    const histogram = new Int32Array(this.#dimensions + 1);
    for (let r = 0; r < n; r++) {
      const o = r * words;
      let d = 0;
      for (let w = 0; w < words; w++) d += bits(q[w]! ^ this.#signs[o + w]!);
      distance[r] = d;
      histogram[d]!++;
    }
    const keep = Math.max(RESCORED, k * 4, Math.ceil(n * RESCORED_SHARE));
    let cut = 0;
    for (let seen = 0; cut < histogram.length && seen < keep; cut++) seen += histogram[cut]!;
    let qNorm = 0;
    for (let i = 0; i < question.length; i++) qNorm += question[i]! * question[i]!;
    qNorm = Math.sqrt(qNorm);
    if (qNorm === 0) return [];
    const dims = this.#dimensions;
    const scored: DenseHit[] = [];
    for (let r = 0; r < n; r++) {
      if (distance[r]! >= cut || !accept(this.#rows[r]!)) continue;
      const o = r * dims;
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += question[i]! * this.#matrix[o + i]!;
      const norm = this.#norms[r]!;
      scored.push({ index: this.#rows[r]!, cosine: norm === 0 ? 0 : dot / (qNorm * norm) });
    }
    return scored.sort((a, b) => b.cosine - a.cosine || a.index - b.index).slice(0, k);
  }
}
