/**
 * @module Questions' sentence embeddings, kept for the queries people repeat: search-as-you-type
 * and popular questions ask the same text again and again, and embedding it costs tens of
 * milliseconds of the model's thread each time.
 */
import { LRUCache } from 'lru-cache';

/** How many distinct questions' embeddings are kept (512 bytes each): the least recently asked go first. */
export const QUESTION_CACHE_SIZE = 2_000;

/**
 * A question as it is embedded and looked up: Unicode NFKC (as the model's tokenizer reads it),
 * blanks collapsed, trimmed. Case is kept: the model reads "API" and "api" differently.
 */
export const normalizeQuestion = (text: string) => text.normalize('NFKC').replace(/\s+/g, ' ').trim();

/**
 * `embed` with the embeddings of recent questions kept, by organization and normalized text: a
 * question an organization asks again (or while it is still being embedded) is embedded once. One
 * organization's questions never answer another's from the cache, so how fast a search comes back
 * tells nothing of what others asked. A failure or a missing vector (no embedder, the model down)
 * is not kept, so the next ask tries again.
 */
export function cachedQuestions(
  embed: (text: string, orgId?: string) => Promise<Int8Array | null>,
  max = QUESTION_CACHE_SIZE,
): (text: string, orgId?: string) => Promise<Int8Array | null> {
  const cache = new LRUCache<string, Promise<Int8Array | null>>({ max });
  return (text, orgId) => {
    const question = normalizeQuestion(text);
    const key = `${orgId ?? ''}\u0000${question}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const vector = embed(question, orgId);
    cache.set(key, vector);
    const forget = () => {
      if (cache.peek(key) === vector) cache.delete(key);
    };
    vector.then((v) => {
      if (!v) forget();
    }, forget);
    return vector;
  };
}
