/** @module How much of a conversation an answer reads: the question and the last few earlier user turns, each clipped. */
import type { Message } from '../../protocol/index.js';

/**
 * How much of a conversation an answer reads: the question's first and last characters (a pasted
 * log with the question after it keeps its question), and the last few earlier user turns, each
 * clipped. Retrieval, the decision and the composition then do a bounded amount of work whatever
 * the visitor sends (16,000 characters a message, twenty turns).
 */
export const READ_LIMITS = { questionHead: 1_500, questionTail: 500, earlierTurns: 3, earlierChars: 1_000 };

/** The question (its head and tail when long) and the last earlier user turns, each clipped (see `READ_LIMITS`). */
export function history(messages: Message[]): { question: string; earlier: string[] } {
  const users = messages.filter((m) => m.role === 'user');
  const last = users.at(-1)?.content ?? '';
  const { questionHead, questionTail, earlierTurns, earlierChars } = READ_LIMITS;
  const question = last.length <= questionHead + questionTail ? last : `${clip(last, 0, questionHead)}\n…\n${clip(last, last.length - questionTail, last.length)}`;
  const earlier = users.slice(Math.max(0, users.length - 1 - earlierTurns), -1).map((m) => clip(m.content, 0, earlierChars));
  return { question, earlier };
}

/** `text.slice(start, end)`, moved inward so as not to split a surrogate pair. */
function clip(text: string, start: number, end: number): string {
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start++;
  if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  return text.slice(start, end);
}
