/**
 * @module A follow-up keeps its conversation's subject without an LLM: when the question points
 * back ("how often does it send those?") or names no subject of its own, the page the previous
 * reply answered from weighs in with the earlier turns.
 */
import type { Message } from '../../protocol/index.js';
import type { Vocabulary } from '../knowledge/index.js';
import { isQuestionFraming } from '../knowledge/index.js';

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
  const page = leanedOn(messages, question, earlier, vocabulary)?.title;
  if (!page) return earlier;
  return [...earlier.slice(0, -1), `${earlier.at(-1)}\n${page}`];
}

/**
 * What a follow-up leans on: the first source of the reply before it, when the question leans
 * back (see `leansBack`) and that reply was an answer (related pages were a guess, and have no
 * subject to keep); undefined otherwise.
 */
function leanedOn(messages: Message[], question: string, earlier: string[], vocabulary: Vocabulary): { url: string; title: string } | undefined {
  if (earlier.length === 0) return undefined;
  const previous = messages.slice(0, -1).findLast((m) => m.role === 'assistant');
  if (!previous || previous.is_uncertain || !leansBack(question, vocabulary)) return undefined;
  return previous.sources[0];
}

/**
 * The page a follow-up that leans back is asked from (see knowledge/ranking/page-boost.ts): the
 * page the previous answer came from, whose sections and neighbours then weigh more ("can more
 * than one person get it?" after the weekly email report asks the email report's page first).
 * Undefined for a question that does not lean back or follows no answer.
 */
export function conversationPage(messages: Message[], question: string, earlier: string[], vocabulary: Vocabulary): string | undefined {
  return leanedOn(messages, question, earlier, vocabulary)?.url;
}

/**
 * The text whose sentence embedding stands for a question in retrieval: the question itself, or
 * for a follow-up that leans back (see `leansBack`), the question read with its conversation's
 * subject (the earlier turn and the heading of the section that answered it, as `conversationContext`
 * gives it). "ok and how do i switch it off again" means nothing alone; after "how do I turn on
 * two factor", answered from "Enable 2FA — Two-factor authentication", it means switching 2FA off.
 */
export function meaningOf(question: string, earlier: string[], context: string[]): string {
  if (context.length === 0 || context === earlier || context.at(-1) === earlier.at(-1)) return question;
  return `${question}\n${context.at(-1)}`;
}

/**
 * What a follow-up that found nothing replies: it says so plainly and offers a human, without
 * asking the visitor to rephrase a question that only made sense after the one before.
 */
export const FOLLOW_UP_NO_ANSWER =
  "I couldn't find anything about that in the documentation, so I'd rather not guess. " + 'A human on the team can pick it up from here.';
