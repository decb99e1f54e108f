/**
 * @module A follow-up keeps its conversation's subject without an LLM: when the question points
 * back ("how often does it send those?") or names no subject of its own, the page the previous
 * reply answered from weighs in with the earlier turns.
 */
import type { Message } from '../../protocol/index.js';
import type { Vocabulary } from '../knowledge/index.js';
import { isQuestionFraming } from '../knowledge/text/text.js';

/** Words that point back to something said before. */
const POINTS_BACK = new Set(['it', 'its', 'they', 'them', 'their', 'those', 'these', 'that', 'this', 'one', 'ones', 'there', 'same']);

/**
 * Whether a question leans on the conversation before it: it holds a word that points back, or
 * at most one word of its own that is not question framing ("and by default?").
 */
export function leansBack(question: string, vocabulary: Vocabulary): boolean {
  const words = question.toLowerCase().split(/[^\p{L}\p{N}']+/u);
  if (words.some((word) => POINTS_BACK.has(word))) return true;
  return vocabulary.terms(question).filter((term) => !isQuestionFraming(term)).length <= 1;
}

/**
 * The earlier turns retrieval and the decision weigh for a question: the earlier user turns, and
 * when the question leans back (see `leansBack`), the title of the page the previous answer came
 * from, read with the last of them (at its weight, below the question's own words).
 */
export function conversationContext(messages: Message[], question: string, earlier: string[], vocabulary: Vocabulary): string[] {
  if (earlier.length === 0) return earlier;
  const previous = messages.slice(0, -1).findLast((m) => m.role === 'assistant');
  // Only an answer has a subject to keep: related pages were a guess.
  const page = previous && !previous.is_uncertain ? previous.sources[0]?.title : undefined;
  if (!page || !leansBack(question, vocabulary)) return earlier;
  return [...earlier.slice(0, -1), `${earlier.at(-1)}\n${page}`];
}
