/** @module Whether to answer at all: signals of how well the best sections fit the question, and the decision over them. */
import type { SearchHit, Vocabulary } from '../knowledge/index.js';
import { isQuestionFraming, MAX_QUERY_WORDS, passageTerms, runInLabels, specificity, tokenize } from '../knowledge/index.js';
import { DECISION_WEIGHTS } from './decision-weights.js';

/** What the decision to answer reads: how well the best section fits the question, in several ways. */
export interface AnswerSignals {
  /** Share of the question's words, weighed by their specificity in everyday English, found in the best section. */
  general: number;
  /** The same share, found in the best section's heading path (its title and the headings above it). */
  heading: number;
  /** Share of the question's weight (idf in the knowledge base) the best section matched. */
  coverage: number;
  /** Share of the question's words (weighed as in `general`) that the knowledge base holds anywhere. */
  known: number;
  /** Share of the question's words (weighed as in `general`) found in one of the three best sections. */
  top3: number;
  /**
   * How much of the question the best section holds, not as a share: each word's specificity times
   * how firmly the section holds it (1 in its heading path or a bold run-in label, else tf/(tf + 1),
   * so a word said once in passing counts half).
   */
  evidence: number;
  /** Share of the next four hits from the best section's page. */
  agreement: number;
  /** How far the best hit's score stands above the second's, 0..1. */
  margin: number;
  /**
   * How close the best section's meaning is to the question's: the cosine of their sentence
   * embeddings less `MEANING_NEUTRAL`; 0 when the best hit has no embedding (code, or a knowledge
   * base stored without them).
   */
  meaning: number;
  /** Whether `meaning` was measured (the best hit has a sentence embedding). */
  embedded: boolean;
  /** The nearest meaning among the first three hits (see `NEAREST_OF`): their best cosine less `MEANING_NEUTRAL`; 0 when none has an embedding. */
  nearest: number;
}

/** The cosine of question and best section that counts for neither answering nor refusing. */
export const MEANING_NEUTRAL = 0.5;

interface SectionTerms {
  /** Every term of the section. */
  all: Set<string>;
  /** Terms of its title and heading path. */
  heading: Set<string>;
  /** Terms of its heading path and the bold run-in labels of its list items. */
  named: Set<string>;
  /** How often each term occurs in its text and code. */
  counts: Map<string, number>;
}

const sectionTerms = new WeakMap<object, SectionTerms>();

/**
 * A section's terms, gathered once per loaded section: its text's and code's from the terms its
 * passage stored at ingest (see knowledge/text/passage.ts), so its text is not tokenized again;
 * its heading path's and its list items' run-in labels' from those few words.
 */
export function termsOfSection(hit: SearchHit): SectionTerms {
  let terms = sectionTerms.get(hit.section);
  if (!terms) {
    const { title, context, passage } = hit.section;
    const heading = new Set(tokenize(`${title}\n${context}`));
    const text = passageTerms(passage);
    const counts = new Map<string, number>();
    for (const t of text) counts.set(t, (counts.get(t) ?? 0) + 1);
    const labels = passage.blocks.flatMap((block) => (block.kind === 'list' || block.kind === 'steps' ? runInLabels(block.text) : []));
    terms = { heading, named: new Set([...heading, ...tokenize(labels.join('\n'))]), counts, all: new Set([...heading, ...text]) };
    sectionTerms.set(hit.section, terms);
  }
  return terms;
}

/**
 * The signals of the answer/no-answer decision for a question and its ranked hits; null without
 * hits. The words of earlier user turns (`earlier`) count half: a follow-up ("and on Windows?")
 * keeps its conversation's subject.
 */
export function answerSignals(question: string, hits: SearchHit[], vocabulary: Vocabulary, earlier: string[] = []): AnswerSignals | null {
  const best = hits[0];
  if (!best) return null;
  const subjectOf = (text: string, read = (words: string) => vocabulary.terms(words)) => {
    // A hyphenated word ("pre-filling", "end-to-end") is judged by its words; identifiers stay whole too.
    const asked = [...new Set(read(text.replace(/(\p{L})-(?=\p{L})/gu, '$1 ')))];
    const subject = asked.filter((t) => !isQuestionFraming(t));
    return subject.length > 0 ? subject : asked;
  };
  const weights = new Map<string, number>();
  // Earlier turns are read as written, not respelled again (see `SearchIndex.search`).
  for (const turn of earlier) for (const term of subjectOf(turn, (words) => tokenize(words, MAX_QUERY_WORDS))) weights.set(term, 0.5);
  for (const term of subjectOf(question)) weights.set(term, 1);
  const { all, heading, named, counts } = termsOfSection(best);
  const others = hits.slice(1, 3).map((hit) => termsOfSection(hit).all);
  let total = 0, found = 0, titled = 0, inKb = 0, inTop3 = 0, evidence = 0;
  for (const [term, share] of weights) {
    const weight = share * specificity(term);
    total += weight;
    if (all.has(term)) found += weight;
    if (heading.has(term)) titled += weight;
    if (vocabulary.has(term)) inKb += weight;
    if (all.has(term) || others.some((o) => o.has(term))) inTop3 += weight;
    const tf = counts.get(term) ?? 0;
    evidence += weight * (named.has(term) ? 1 : tf / (tf + 1));
  }
  const next = hits.slice(1, 5);
  return {
    general: total > 0 ? found / total : 0,
    heading: total > 0 ? titled / total : 0,
    known: total > 0 ? inKb / total : 0,
    top3: total > 0 ? inTop3 / total : 0,
    coverage: best.coverage,
    evidence,
    agreement: next.length ? next.filter((h) => h.section.docKey === best.section.docKey).length / next.length : 0,
    margin: hits[1] ? Math.max(0, 1 - hits[1].score / best.score) : 1,
    meaning: best.similarity !== undefined && best.section.kind !== 'code' ? best.similarity - MEANING_NEUTRAL : 0,
    embedded: best.similarity !== undefined,
    nearest: nearestMeaning(hits),
  };
}

/**
 * How many of the first hits the "nothing related" floor reads: the best by words and the first
 * section placed beside it by its meaning (see `NEAREST_SHOWN` in knowledge/ranking/rank.ts). Fewer
 * hides related pages, more shows pages for questions from elsewhere: see docs/benchmarks.md.
 */
const NEAREST_OF = 3;

/** The best cosine among the first `NEAREST_OF` hits, less `MEANING_NEUTRAL` (0 when none has an embedding). */
function nearestMeaning(hits: SearchHit[]): number {
  const measured = hits.slice(0, NEAREST_OF).flatMap((hit) => (hit.similarity === undefined ? [] : [hit.similarity]));
  return measured.length ? Math.max(...measured) - MEANING_NEUTRAL : 0;
}

/**
 * The answer/no-answer decision: a logistic model over the signals, its weights fitted on the
 * development sets together (docs, code and help of the benchmark; each set's answerable
 * questions whose gold source is among the first five hits against its out-of-scope questions and
 * the other sets' questions, each set and class weighed equally) by test/bench/decision-fit.ts,
 * which writes them to decision-weights.ts. Answers when the odds favour it. `meaning` is held at
 * a weight that changes no help decision while the others are fitted: see docs/benchmarks.md.
 */
export const DECISION = DECISION_WEIGHTS;

/**
 * The least `evidence` an answer needs, whatever the model says: a question that says little ("How
 * much does it cost?": one everyday word) is not answered from a section that mentions that word
 * once in passing. No answerable question of the development sets falls under it.
 */
const MIN_EVIDENCE = 0.4;

/**
 * The least share of the question's weight (`coverage`: its words by their idf in the knowledge
 * base) the best section must hold to answer, whatever the model says, scaled by `known` (the
 * share of the question's words the knowledge base holds at all): `coverage` weighs a word no page
 * uses as rare as can be, and a small site's docs lack everyday words such as "change". A section
 * that holds under a third of what the question asks is about something near it ("ignore
 * everything under /staging/" answered by how to check that one's own visits are excluded): the
 * reply shows related pages. The least an answer with a gold source held on the development sets
 * was 0.31.
 */
const MIN_COVERAGE = 0.3;

/** The decision's log-odds for the signals (see `DECISION`). */
export function answerOdds(signals: AnswerSignals): number {
  return (
    DECISION.general * signals.general + DECISION.heading * signals.heading + DECISION.known * signals.known + DECISION.top3 * signals.top3 + DECISION.meaning * signals.meaning + DECISION.bias
  );
}

/**
 * Where the three outcomes part. The reply is an answer (`is_uncertain: false`) above `answer`
 * log-odds (with `MIN_EVIDENCE`); between `related` and `answer` it shows the best hits as related
 * pages, unless none of the first three sections is nearer in meaning to the question than `meaning`
 * (the cosine less `MEANING_NEUTRAL`: the weather, a recipe); otherwise nothing in the knowledge
 * base is related. Chosen on the development sets together (see docs/engine.md): a borderline
 * answer shown as related pages costs the visitor little, an answer from the wrong page costs their
 * trust. A section among the first three whose meaning is at least `close` is related whatever its words: dense retrieval finds "Refunds"
 * for "money back", with no word in common. (The meaning floor does not hold back an answer: a
 * short question's embedding is often far from the long section that answers it, "Which languages
 * does it support?" 0.30, "Is it accessible?" on the demo.)
 */
export const THRESHOLDS = { answer: 0.5, related: -2.5, meaning: -0.16, close: 0 };

/** The three outcomes of a reply: an answer, related pages, or nothing related. */
export type Outcome = 'answer' | 'related' | 'none';

/** Which of the three outcomes the signals call for. */
export function decide(signals: AnswerSignals | null): Outcome {
  if (!signals) return 'none';
  const z = answerOdds(signals);
  // Under `MIN_COVERAGE`, and so a section that holds none of the question's own words, which
  // answers only the turns before it ("and later kick them out?" after "let a freelancer see one
  // site"): it would say again what was said.
  if (z > THRESHOLDS.answer && signals.evidence >= MIN_EVIDENCE && signals.coverage >= MIN_COVERAGE * signals.known) return 'answer';
  if (signals.embedded && signals.nearest < THRESHOLDS.meaning) return 'none';
  return z > THRESHOLDS.related || (signals.embedded && signals.nearest >= THRESHOLDS.close) ? 'related' : 'none';
}

/** Whether the signals call for an answer (`decide(signals) === 'answer'`). */
export function shouldAnswer(signals: AnswerSignals | null): boolean {
  return decide(signals) === 'answer';
}
