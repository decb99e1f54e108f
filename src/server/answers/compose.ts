/** @module Answers and summaries built only from the sources' own sentences: nothing the sources don't say. */
import type { Message } from '../../protocol/index.js';
import { answerSignals, decide } from './decision.js';
import { blockquote, fence, sentences, specificity, tokenize, type PassageBlock, type SearchHit, type Vocabulary } from '../knowledge/index.js';
import { answersAsCode, codeExcerpt } from './code-excerpt.js';
import { bestPassage, INTRODUCED_ROWS, joinUnits, normalized, Quoted, refersBack } from './passage.js';
import { MAX_SOURCES, relatedHits, relevantHits, toSource } from './sources.js';
import type { Answer } from './types.js';
import { asksForCode, isNavigation, PROSE_BUDGET, proseLength, readPart, saysNothing, type PartShape } from './reply-shape.js';

export { answersAsCode, codeExcerpt } from './code-excerpt.js';
export { bestPassage, bestSentences } from './passage.js';

export const NO_ANSWER =
  "I couldn't find anything about that in the documentation, so I'd rather not guess. " +
  'You can rephrase the question, or talk to a human on the team: they will pick it up from here.';

/** How a reply that is not an answer, but has related pages, opens (the pages are its sources). */
export const RELATED_INTRO = "I couldn't find a direct answer to that; these pages look related:";

/** The reply when nothing in the knowledge base is related. */
export const NOTHING_RELATED: Answer = { content: NO_ANSWER, sources: [], isUncertain: true };

/**
 * The share of the question's (specific) words a sentence of a related page must hold to be quoted
 * beside the related pages, as what that page says (never as the answer): one of the question's two
 * most specific words. See docs/benchmarks.md.
 */
const PLAUSIBLE_SHARE = 0.25;
/**
 * The most lines a related page's excerpt holds: its two units when together they are this long at
 * most, else its answering unit alone; one line more for the blank line `joinUnits` sets after a
 * list or table, or for a single unit (a list of nine items is still quoted).
 */
const EXCERPT_LINES = 8;
/** The units a related page's excerpt holds: its answering unit and the one beside it. */
const EXCERPT_UNITS = 2;
/** How many of the question's most specific words name its subject (see `subjectOf`). */
const SUBJECT_WORDS = 2;

/** What the question is about: its `SUBJECT_WORDS` most specific words. */
const subjectOf = (terms: Set<string>): string[] => [...terms].sort((a, b) => specificity(b) - specificity(a)).slice(0, SUBJECT_WORDS);

/**
 * The question's `SUBJECT_WORDS` words that the fewest sections of the knowledge base hold (and at
 * least one; the more specific first among equals): what the question asks that the docs rarely
 * say. On a help center about an email service "email" and "account" are everywhere, and "reset"
 * is what a reset question is about, where English alone would rank "email" above it.
 */
function rarestTerms(terms: Set<string>, vocabulary: Vocabulary): string[] {
  const held = [...terms].map((term) => ({ term, sections: vocabulary.sectionsWith(term) })).filter((t) => t.sections > 0);
  return held.sort((a, b) => a.sections - b.sections || specificity(b.term) - specificity(a.term)).slice(0, SUBJECT_WORDS).map((t) => t.term);
}

/** The most code blocks one section's quote shows: its example and those of other steps it quotes (see `quoteSection`). */
const MOST_EXAMPLES = 3;

/** Longer than this, a docs page's code example is not quoted: the reply links to it (see `moreOn`). */
const LONGEST_EXAMPLE_LINES = 60;

/** The fewest box-drawing characters and arrows (`─`, `│`, `▶`, `→`) that make a code block a diagram. */
const DIAGRAM_MARKS = 3;

/**
 * Whether a code block is a diagram drawn in text, not code: no language, or a plain-text one, and
 * box-drawing characters or arrows (U+2190–U+21FF, U+2500–U+257F, U+25A0–U+25FF), counted in one
 * pass and at most `DIAGRAM_MARKS` of them.
 */
export function isDiagram(block: Pick<PassageBlock, 'text' | 'lang'>): boolean {
  if (block.lang && !['text', 'txt', 'plain', 'plaintext', 'ascii'].includes(block.lang)) return false;
  let marks = 0;
  for (let i = 0; i < block.text.length && marks < DIAGRAM_MARKS; i++) {
    const c = block.text.charCodeAt(i);
    if ((c >= 0x2190 && c <= 0x21ff) || (c >= 0x2500 && c <= 0x257f) || (c >= 0x25a0 && c <= 0x25ff)) marks++;
  }
  return marks >= DIAGRAM_MARKS;
}

/**
 * The code a reply shows of a section: a source file's excerpt around what the question names
 * (its imports left out), or a docs page's example whole as the page wrote it, imports included
 * (the one the quoted passage introduces, else the section's first); '' when it is too long to
 * quote or holds no code (only imports or comments, a query in a string).
 */
function codeToShow(section: SearchHit['section'], introduced: PassageBlock | null, lines: number, terms: Set<string>): { code: string; lang: string; tooLong: boolean } {
  if (section.kind === 'code') {
    const block = section.passage.blocks.findLast((b) => b.kind === 'code');
    const code = block ? codeExcerpt(block, lines, terms) : '';
    return { code: answersAsCode(code) ? code : '', lang: section.lang, tooLong: false };
  }
  // Unasked, a diagram drawn in a code block is no example of how to do anything.
  const block = introduced ?? section.passage.blocks.find((b) => b.kind === 'code' && !isDiagram(b));
  if (!block) return { code: '', lang: '', tooLong: false };
  if (block.text.split('\n').length > LONGEST_EXAMPLE_LINES) return { code: '', lang: '', tooLong: true };
  return { code: answersAsCode(block.text) ? block.text.replace(/\n+$/, '') : '', lang: block.lang ?? '', tooLong: false };
}

/** A question asking how to do something, whose answer may be an example (a doc section's code block). */
const SHOW_HOW = /\bhow (?:do|can|to|should|would)\b/i;

/** A question asking how to do something: the docs say how, so their sections are quoted before code. */
const HOW_TO = /^\s*(?:how|can|could|where|is there a way)\b|\bhow (?:do|can|to|should)\b/i;


/** What a reply quotes: code or prose, and how much prose is left (see reply-shape.ts). */
interface Shape {
  /** The question asks for code (`asksForCode`): a source file's code is quoted only then. */
  code: boolean;
  /** The question asks how to do something: the best doc section's example is quoted too (else only code its passage introduces). */
  howTo: boolean;
  /** Characters of prose left; the answering unit of the first section is quoted whatever it says. */
  budget: number;
  /** The page of the reply's first source: its other sections go on with its answer. */
  firstPage?: string;
  /** The question's words the knowledge base says least often (see `rarestTerms`). */
  rarest: readonly string[];
}

/**
 * What one section contributes to an answer: its sentences that answer best (more for the best
 * section), as many as `shape.budget` holds (its answering unit always), and its code when the
 * question asks for code or the passage introduces it ("add this:"); nothing when (after the first
 * section) what it would quote holds no word of the question (on another page than the first
 * source's: none of its rarest in the knowledge base and none the reply has not quoted yet), or
 * the section is navigation or history (see `isNavigation`). `cited` without `text` when it holds
 * a word of the question but says nothing new, or all it would quote was quoted already from
 * another section (a passage two pages share): it is a source of that quote too. `cut` when units
 * were left out for space. A later section is held to no share of the question's weight (see
 * docs/benchmarks.md).
 */
function quoteSection(hit: SearchHit, terms: Set<string>, rank: number, quoted: Quoted, shape: Shape): { text: string; cited: boolean; cut: boolean } {
  const section = hit.under ?? hit.section;
  if (isNavigation(section.title)) return { text: '', cited: false, cut: false };
  const max = rank === 0 ? 3 : rank < 3 ? 2 : 1;
  const passage = bestPassage(section.passage, terms, max);
  // The first unit quoted that introduces code, and its first block: the section's example.
  const [lead] = passage.introduced;
  // The answering unit and each sentence that introduces a code block ("Set up once, in the site's
  // folder:", said with its code: a step), then the others in their order while the budget holds them.
  const kept = (unit: string, i: number) => i === passage.answer || passage.introduced.some((step) => step.unit === unit);
  let room = shape.budget - passage.units.reduce((sum, unit, i) => sum + (kept(unit, i) ? unit.length : 0), 0);
  const best = passage.units.filter((unit, i) => {
    if (kept(unit, i)) return true;
    if (unit.length + 1 > room) return false;
    room -= unit.length + 1;
    return true;
  });
  const cut = best.length < passage.units.length;
  // A doc section's example is shown to a how-to or code question when it is the best section, when
  // its prose says nothing that stands alone ("Each of the four is tested…" under the four mounting
  // examples), or when the passage quoted introduces it. A prose question gets prose: the sentence
  // that would introduce the example is then left out (below). A source file's code only to a
  // question that asks for code.
  const wanted =
    section.kind === 'code'
      ? shape.code
      : (shape.code || shape.howTo) && (rank === 0 || !section.passage.blocks.some((b) => b.kind !== 'code') || best.length === 0 || (lead !== undefined && best.length === passage.units.length));
  const lines = rank < 3 ? 14 : 6;
  const shown = wanted ? codeToShow(section, lead?.code[0] ?? null, lines, terms) : { code: '', lang: '', tooLong: false };
  const excerpt = shown.code;
  // With the example shown, each unit quoted that introduces code ("Then start the API server, in
  // two terminals:") goes with its blocks, up to `MOST_EXAMPLES` in all: a how-to's steps written as
  // prose and code. A unit whose code cannot be shown whole is not said (below).
  const examples = new Map<string, string[]>();
  if (excerpt && section.kind !== 'code' && lead) {
    let count = 0;
    for (const { unit, code } of passage.introduced) {
      const first = unit === lead.unit;
      const others = (first ? code.slice(1) : code).map((block) => codeToShow(section, block, lines, terms));
      const whole = others.every((b) => b.code) && count + (first ? 1 : 0) + others.length <= MOST_EXAMPLES;
      if (!first && !whole) continue;
      const blocks = first ? [shown, ...(whole ? others : [])] : others;
      examples.set(unit, blocks.map((b) => fence(b.code, b.lang)));
      count += blocks.length;
    }
  }
  // A code piece's doc comment is its text: quoted once, in the excerpt, when the excerpt shows it.
  const inCode = normalized(excerpt);
  const fresh = best.filter((unit) => !(inCode && inCode.includes(normalized(unit))));
  // A sentence that introduces what is not quoted after it ("open it from anything:", "Calls made
  // before the script has loaded are queued and replayed:" without its example) says nothing alone:
  // only the one that introduced the code shown goes, with the code right after it, or the best
  // section's answering unit when it is all the section has to quote.
  const leadsIn = excerpt ? (lead?.unit ?? null) : null;
  const says = (unit: string) => !quoted.has(unit) && (!unit.endsWith(':') || unit === leadsIn || examples.has(unit) || (fresh.length === 1 && rank === 0));
  // A sentence that points back is said only after the sentence it points back to.
  const said = fresh.filter((unit, i) => says(unit) && !(i > 0 && refersBack({ text: unit, block: false }) && !says(fresh[i - 1]!)));
  // After the best section, a section of its page is quoted when what it quotes holds a word of the
  // question; one of another page only when it holds one of the question's words the knowledge base
  // says least often, or one the reply has not quoted yet: another page that only says the
  // question's common words again is about something else of theirs (how to sign up for the email
  // service, after how to reset its password). It is still a source when it holds a word of the
  // question, where the visitor reads on.
  const matches = (text: string) => tokenize(text).some((t) => terms.has(t));
  const adds = (text: string) => tokenize(text).some((t) => terms.has(t) && (shape.rarest.includes(t) || !quoted.said(t)));
  const speaks = section.docKey === shape.firstPage ? matches : adds;
  // A doc section of another page speaks in its prose, unless the question asks for code: the
  // names in its example ("acme-docs" in an MCP client's config) are no word of a question asked
  // in words ("how do i add my own docs?").
  const codeSpeaks = excerpt !== '' && (section.kind === 'code' || shape.code || section.docKey === shape.firstPage) && speaks(excerpt);
  if (rank > 0 && !said.some(speaks) && !codeSpeaks) {
    return { text: '', cited: said.some(matches) || (excerpt !== '' && matches(excerpt)) || fresh.some((unit) => quoted.has(unit) && matches(unit)), cut: cut || shown.tooLong };
  }
  // Each example goes right after the sentence that introduces it; the section's example after the
  // prose when that sentence is not said here.
  const block = withExamples(said, examples);
  if (excerpt && !(leadsIn && said.includes(leadsIn) && examples.has(leadsIn))) block.push(fence(excerpt, shown.lang));
  for (const unit of said) quoted.add(unit);
  return { text: block.join('\n\n'), cited: block.length > 0, cut: cut || shown.tooLong };
}

/**
 * Quoted units as the reply's blocks: the prose joined (see `joinUnits`), and each unit's code
 * blocks (`examples`, fenced) right after it, where the page has them.
 */
function withExamples(units: string[], examples: Map<string, string[]>): string[] {
  const blocks: string[] = [];
  let prose: string[] = [];
  for (const unit of units) {
    prose.push(unit);
    const code = examples.get(unit);
    if (!code) continue;
    blocks.push(joinUnits(prose), ...code);
    prose = [];
  }
  if (prose.length > 0) blocks.push(joinUnits(prose));
  return blocks;
}

/**
 * The least share of the question's weight (idf) a relevant section with nothing to quote must
 * match to be listed among an answer's sources, unless it is as near the question's meaning as the
 * first source. Measured on 2026-11-30 against listing every such section: the same gold shown and
 * answers on every set, docs Recall@5 0.838 → 0.818, 36 replies with a source more instead of 55.
 */
const UNQUOTED_COVERAGE = 0.5;

/**
 * The reply: a Markdown answer quoting the relevant sections (three units of the best, two of the
 * next two, one of the others) within about `PROSE_BUDGET` characters of prose, then "More on
 * <page>" when some was left out; it cites the sections it quotes or left out for space, then the
 * relevant ones it had nothing to quote from, docs first
 * for a how-to question and for one that does not ask for code (a source file's code is then never
 * quoted, and its doc comment only when no doc page says anything). When the best hits fit the
 * question too loosely to answer from, or all the answer would say is links, the related pages
 * (see `relatedReply`); when nothing is related, the no-answer reply, citing nothing.
 */
export function composeAnswer(question: string, hits: SearchHit[], vocabulary: Vocabulary, earlier: string[] = []): Answer {
  const outcome = decide(answerSignals(question, hits, vocabulary, earlier));
  if (outcome === 'none') return NOTHING_RELATED;
  const terms = new Set(vocabulary.terms(question));
  const cited = outcome === 'answer' ? relevantHits(hits, question) : [];
  if (cited.length === 0) return relatedReply(hits, terms);
  const rarest = rarestTerms(terms, vocabulary);
  // Where no doc page answers (a knowledge base of code alone), the code is the answer.
  const code = asksForCode(question) || !cited.some((hit) => hit.section.kind !== 'code');
  // "How do I…" asks for the steps, an example too; "Can I…?" asks whether, answered in prose.
  const howTo = SHOW_HOW.test(question);
  const docsFirst = HOW_TO.test(question) || !code;
  const ordered = docsFirst ? [...cited.filter((h) => h.section.kind !== 'code'), ...cited.filter((h) => h.section.kind === 'code')] : cited;
  const parts: string[] = [];
  /** Each part as a visitor reads it: parsed once, for the budget and for whether the reply says anything. */
  const read: PartShape[] = [];
  const sources: SearchHit[] = [];
  /** The relevant sections that had nothing to quote (see below). */
  const unquoted: SearchHit[] = [];
  const quoted = new Quoted();
  let budget = PROSE_BUDGET;
  let cut = false;
  for (const hit of ordered) {
    // To a prose question, a source file says nothing once a doc page has answered.
    if (!code && hit.section.kind === 'code' && parts.length > 0) continue;
    const part = quoteSection(hit, terms, sources.length, quoted, { code, howTo, budget, firstPage: sources[0]?.section.docKey, rarest });
    cut ||= part.cut;
    const shape = part.text ? readPart(part.text) : null;
    if (shape && parts.length > 0 && shape.prose > budget) {
      // Left out for space: still a source, where the visitor reads on.
      cut = true;
      sources.push(hit);
      continue;
    }
    if (shape) {
      // A later section's words are captioned with where they come from: never read as more of the first's.
      parts.push(parts.length > 0 ? `From ${linkTo(toSource(hit))}:\n\n${part.text}` : part.text);
      read.push(shape);
      budget -= shape.prose;
    }
    if (part.cited) sources.push(hit);
    else unquoted.push(hit);
  }
  // A relevant section with nothing to quote for the question's words (found by what it means, or
  // by what other pages' links call it) is still where the visitor reads on when it matches half
  // the question's weight or is as near its meaning as the first source: listed after the
  // sections quoted, in the order ranked, up to five sources.
  const first = sources[0] ?? cited[0]!;
  // A section of links ("Learn more", "See also") is not one: its words are those of the pages it links to.
  const readOn = (hit: SearchHit) => !isNavigation(hit.section.title) && (hit.coverage >= UNQUOTED_COVERAGE || (hit.similarity ?? 0) >= (first.similarity ?? Infinity));
  for (const hit of unquoted) if (sources.length < MAX_SOURCES && readOn(hit)) sources.push(hit);
  if (parts.length === 0 || saysNothing(read)) return relatedReply(hits, terms);
  const best = toSource(sources[0]!);
  if (cut) parts.push(moreOn(best));
  return { content: parts.join('\n\n'), sources: sources.map(toSource), isUncertain: false };
}

/** A Markdown link to a source, named by its title: "[Refunds — Billing](…)". */
const linkTo = (source: { title: string; url: string }) => `[${source.title.replace(/[[\]]/g, '')}](${source.url.replace(/\(/g, '%28').replace(/\)/g, '%29')})`;

/** The link to the rest of an answer's page: "More on [Refunds — Billing](…)". */
const moreOn = (source: { title: string; url: string }) => `More on ${linkTo(source)}.`;

/**
 * The reply that is not an answer: it says so, quotes what the best related page says, and its
 * sources are the related pages, best first (the widget lists them as links). The page quoted is
 * the one whose passage holds most of the question (a quarter of its weight and one of its two
 * most specific words: "“Refunds — Billing” says: > …"), else the first related page's passage
 * that answers best: never a reply of links alone. Its passage is quoted whole, a sentence ending
 * in a colon with the list, table or code block after it; never as the answer. The page quoted is
 * the first source listed.
 */
export function relatedReply(hits: SearchHit[], terms: Set<string>): Answer {
  const related = relatedHits(hits);
  if (related.length === 0) return NOTHING_RELATED;
  const weight = [...terms].reduce((sum, t) => sum + specificity(t), 0);
  // What the question is about: its most specific words, of which a passage that may answer holds one.
  const subject = subjectOf(terms);
  const excerpts = related.flatMap((hit, at) => {
    const section = hit.under ?? hit.section;
    if (section.kind === 'code' || isNavigation(section.title)) return [];
    const found = bestPassage(section.passage, terms, EXCERPT_UNITS);
    const units = found.units;
    const quoted = units.length > 1 && units.join('\n').split('\n').length <= EXCERPT_LINES ? units : units.slice(found.answer, found.answer + 1);
    const prose = joinUnits(quoted);
    // An excerpt, not a page: a list or table too long to read at a glance is left to its link.
    if (!prose || prose.split('\n').length > INTRODUCED_ROWS + 3 || proseLength(prose) > PROSE_BUDGET) return [];
    // A sentence that introduces code ("Add this:", "On Windows:") comes with its first block, right after it.
    const examples = new Map<string, string[]>();
    for (const { unit, code } of found.introduced) {
      const example = quoted.includes(unit) ? codeToShow(section, code[0]!, 10, terms) : null;
      if (example?.code) examples.set(unit, [fence(example.code, example.lang)]);
    }
    const passage = withExamples(quoted, examples).join('\n\n');
    // Judged by the unit that answers best alone: the unit beside it is context, not evidence.
    const words = new Set(tokenize(units[found.answer] ?? ''));
    const held = weight > 0 ? [...terms].filter((t) => words.has(t)).reduce((sum, t) => sum + specificity(t), 0) / weight : 0;
    const plausible = held >= PLAUSIBLE_SHARE && subject.some((t) => words.has(t));
    return [{ hit, at, passage, held: plausible ? held : -1 }];
  });
  // The most plausible passage, else the first page's.
  const best = excerpts.sort((a, b) => b.held - a.held || a.at - b.at)[0];
  const quote = best ? `“${toSource(best.hit).title}” says:\n\n${blockquote(best.passage)}` : '';
  // The page quoted is listed first: the visitor opens the page whose words they just read.
  const listed = best ? [best.hit, ...related.filter((hit) => hit !== best.hit)] : related;
  return { content: [RELATED_INTRO, quote].filter(Boolean).join('\n\n'), sources: listed.map(toSource), isUncertain: true };
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** A ticket title: the customer's first question, shortened. */
export function extractiveTitle(messages: Message[]): string {
  const first = messages.find((m) => m.role === 'user');
  return first ? clip(first.content, 80) : 'Support conversation';
}

/** A faithful summary: the customer's questions in their words, what the assistant answered, and the request for a human. */
export function extractiveSummary(messages: Message[]): string {
  const questions = messages.filter((m) => m.role === 'user');
  const answers = messages.filter((m) => m.role === 'assistant');
  const lines: string[] = [];
  if (questions[0]) lines.push(`The customer asked: "${clip(questions[0].content, 400)}"`);
  for (const q of questions.slice(1, 4)) lines.push(`They followed up: "${clip(q.content, 300)}"`);
  const last = answers.at(-1);
  if (last) {
    const firstLines = sentences(last.content.replace(/```[\s\S]*?```/g, ' ').replace(/\*\*/g, '')).slice(0, 2).join(' ');
    lines.push(`The assistant answered: "${clip(firstLines, 400)}"`);
    if (last.sources.length) lines.push(`Sources shown: ${last.sources.map((s) => s.title).join('; ')}.`);
  } else {
    lines.push('The assistant could not produce an answer.');
  }
  lines.push('The customer asked to talk to a human.');
  return lines.join('\n');
}
