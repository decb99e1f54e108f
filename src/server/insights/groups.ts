/**
 * @module Unanswered questions grouped by similarity: two questions belong together when their
 * terms overlap enough (Dice coefficient, 2·shared / (terms of one + terms of the other)). Terms come from the retrieval tokenizer (`knowledge/text/text.ts`), so
 * questions are compared with the same stemming, stopwords and identifier splitting the search used
 * when it found nothing: "reset password", "How do I reset my passwords?" and "password_reset"
 * share their terms. No library is needed for this, and none would know the search's vocabulary.
 */
import { setImmediate } from 'node:timers/promises';
import { isQuestionFraming, MAX_QUERY_WORDS, tokenize } from '../knowledge/index.js';

export interface Question {
  text: string;
  /** ISO 8601 time it was asked. */
  askedAt: string;
}

export interface QuestionGroup {
  /** How many questions the group holds. */
  count: number;
  /** The words most of its questions share, most frequent first, as first written (a label for the group). */
  terms: string[];
  /** A few of its questions, newest first, each once. */
  examples: Question[];
  /** When its newest question was asked. */
  latestAt: string;
}

export interface GroupingOptions {
  /** Least Dice similarity of a question's terms with a group's first question to join it. @default 0.5 */
  threshold?: number;
  /** Examples kept per group. @default 3 */
  examples?: number;
  /** Groups returned (largest first). @default 20 */
  limit?: number;
}

/**
 * Most terms of one question compared (its first distinct ones): a question has far fewer, and a
 * planted one with thousands would make each comparison cost in proportion.
 */
export const MAX_QUESTION_TERMS = 32;
/** Questions grouped between two turns of the event loop (a few milliseconds' work, even when each shares its terms with hundreds of groups). */
const QUESTIONS_PER_TURN = 25;

/**
 * The subject terms of a question (at most `MAX_QUESTION_TERMS`): framing words ("how",
 * "explain", "recommend") are left out when anything else is left.
 */
export function questionTerms(text: string): Set<string> {
  // A masked address says nothing about the subject.
  const all = tokenize(text.replaceAll('[email]', ' '), MAX_QUERY_WORDS);
  const subject = all.filter((t) => !isQuestionFraming(t));
  const terms = new Set<string>();
  for (const term of subject.length > 0 ? subject : all) {
    if (terms.size >= MAX_QUESTION_TERMS) break;
    terms.add(term);
  }
  return terms;
}

/** Each term of a text mapped to the word it came from (`invoic` → `invoices`), for labels people can read. */
function surfaceWords(text: string, into: Map<string, string>): void {
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+(?:[_\-.:][\p{L}\p{N}]+)*/gu) ?? []) {
    for (const term of tokenize(word)) if (!into.has(term)) into.set(term, word);
  }
}

interface Building {
  /** The terms of the question that started the group. */
  seed: Set<string>;
  counts: Map<string, number>;
  count: number;
  examples: Question[];
  seen: Set<string>;
  latestAt: string;
  words: Map<string, string>;
}

/**
 * Groups questions (given newest first) by similarity, greedily: each joins the existing group it
 * resembles most, or starts one. Candidate groups are found through the terms they share, so the
 * cost follows the overlap, not the number of groups. Groups come largest first, ties newest first.
 * Other work (the server's requests) runs between every few questions.
 *
 * @example
 * await groupQuestions([{ text: 'reset my password', askedAt }, { text: 'password reset?', askedAt }]) // one group of 2
 */
export async function groupQuestions(questions: Question[], options: GroupingOptions = {}): Promise<{ groups: QuestionGroup[]; total: number }> {
  const threshold = options.threshold ?? 0.5;
  const keep = options.examples ?? 3;
  const limit = options.limit ?? 20;
  const groups: Building[] = [];
  const byTerm = new Map<string, number[]>();
  const shared = new Map<number, number>();
  for (const [i, question] of questions.entries()) {
    if (i > 0 && i % QUESTIONS_PER_TURN === 0) await setImmediate();
    const terms = questionTerms(question.text);
    const key = question.text.trim().toLowerCase();
    shared.clear();
    for (const term of terms) {
      for (const g of byTerm.get(term) ?? []) shared.set(g, (shared.get(g) ?? 0) + 1);
    }
    let best = -1;
    let bestScore = 0;
    for (const [g, common] of shared) {
      const score = (2 * common) / (terms.size + groups[g]!.seed.size);
      if (score > bestScore || (score === bestScore && best >= 0 && groups[g]!.count > groups[best]!.count)) {
        best = g;
        bestScore = score;
      }
    }
    let group: Building;
    if (best >= 0 && bestScore >= threshold) group = groups[best]!;
    else {
      group = { seed: terms, counts: new Map(), count: 0, examples: [], seen: new Set(), latestAt: question.askedAt, words: new Map() };
      const index = groups.push(group) - 1;
      for (const term of terms) {
        let list = byTerm.get(term);
        if (!list) byTerm.set(term, (list = []));
        list.push(index);
      }
    }
    group.count++;
    if (question.askedAt > group.latestAt) group.latestAt = question.askedAt;
    for (const term of terms) group.counts.set(term, (group.counts.get(term) ?? 0) + 1);
    if (group.examples.length < keep && !group.seen.has(key)) {
      group.seen.add(key);
      group.examples.push(question);
      surfaceWords(question.text, group.words);
    }
  }
  const ordered = groups.sort((a, b) => b.count - a.count || (a.latestAt < b.latestAt ? 1 : a.latestAt > b.latestAt ? -1 : 0));
  return {
    total: groups.length,
    groups: ordered.slice(0, limit).map((g) => ({
      count: g.count,
      terms: [...g.counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([term]) => g.words.get(term) ?? term),
      examples: [...g.examples].sort((a, b) => (a.askedAt < b.askedAt ? 1 : a.askedAt > b.askedAt ? -1 : 0)),
      latestAt: g.latestAt,
    })),
  };
}
