/**
 * @module What a section says about a question, quoted as written: the units of its stored passage
 * (sentences, whole lists, numbered steps and tables; see knowledge/text/passage.ts) that hold
 * most of the question, in page order, never a list in part, never a sentence that points back
 * without the one it points back to.
 */
import { DOC_TAG, isRunOn, LONGEST_SENTENCE, passageOfMarkdown, specificity, tokenize, type Passage, type PassageBlock } from '../knowledge/index.js';
import { onlyLinks, onlyPoints } from './reply-shape.js';

/** How much a question word already quoted counts when choosing the next unit to quote. */
const COVERED_WEIGHT = 0.3;

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
/**
 * A sentence whose subject points back ("It serves…", "This one…", "Each of the four…") or that
 * goes on from the one before ("However, …", "Also, …", "Otherwise, …"): quoted only with the
 * sentence before it, which says what it is about. (One that does something to what the one before
 * named, "Set them inside…", is `THEM`'s.)
 */
const REFERS_BACK =
  /^(?:once you(?:'ve| have)? (?:do|done|did) (?:so|this|that)|to do (?:so|this|that)|(?:follow|use|try|repeat) (?:these|those|the following)|after (?:that|this|doing so)|it|its|this|that|these|those|they|their|each of (?:the|them|these)|both|such|the latter|the former|however|also|otherwise|instead|additionally|in addition|similarly|likewise|therefore|thus|hence|as a result|moreover|furthermore|nevertheless|nonetheless|in (?:this|that|which) case|in both cases|besides|conversely|alternatively|for (?:example|instance)|in other words|that said|even so|then|but)\b/i;
const TABLE_ROW = /^\s*\|.*\|\s*$/;

/**
 * "them" anywhere in a sentence names what an earlier sentence named ("Set `X=true` to allow
 * them"): docs do not name what they mean after it.
 */
const THEM = /\bthem\b/i;

/**
 * "above" anywhere in a sentence points back to what the page said before it ("The `--base-url`
 * above is a placeholder", "as shown above"), most often a code block: quoted alone it points at
 * nothing. Not "above" before a number, an amount, an article or another determiner ("above 90 %",
 * "above the fold", "above your query"), which places or compares. The lookahead reads one run of
 * blanks and a word: linear.
 */
const ABOVE = /\babove\b(?![ \t]*(?:[\d$€£%]|(?:the|a|an|all|any|each|every|some|and|or|average|zero|that|this|these|those|its|their|your|my|our|his|her)\b))/i;

/** Whether a unit is a sentence whose subject or object points back (see `REFERS_BACK`, `THEM`, `ABOVE`). */
export const refersBack = (unit: { text: string; block: boolean }) => !unit.block && (REFERS_BACK.test(unit.text) || THEM.test(unit.text) || ABOVE.test(unit.text));

/** A piece of a section that can be quoted whole: a sentence, or a Markdown list or table. */
interface Unit {
  text: string;
  /** Position in the section. */
  i: number;
  /** A list or table, quoted as Markdown on its own lines. */
  block: boolean;
}

/**
 * How much of a sentence answers: none when it is a question the text asks on a line of its own
 * ("Why don't … in reading view?"), what follows an FAQ's bold question ("**Can I …?** Yes."),
 * else all of it. A question inside a run of text (a site export's "Questions?" link) asks nothing.
 */
function answerLength(sentence: string, lines: Set<string>): number {
  if (/\?[*_"'”’)]*$/.test(sentence) && (lines.has(sentence) || sentence.startsWith('**'))) return 0;
  const asked = sentence.match(/^\*\*[^*]*\?\*\*/);
  return asked ? sentence.length - asked[0].length : Infinity;
}

/** What a question the text asks is quoted with: a sentence of its answer, or more when the first is a bare "Yes."/"No.". */
const ANSWER_CHARS = 40;
/** Up to how long an asked question and its answer are quoted as one unit. */
const ANSWERED_CHARS = 500;

/**
 * A paragraph's sentences (its `lines` joined) with each question the text asks joined to the
 * sentences that answer it: a question alone says nothing, and quoted beside another question's
 * answer it says something wrong.
 */
function withAnswers(said: string[], lines: Set<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < said.length; i++) {
    let unit = said[i]!;
    let answered = answerLength(unit, lines);
    while (answered < ANSWER_CHARS && i + 1 < said.length && answerLength(said[i + 1]!, lines) > 0 && unit.length + said[i + 1]!.length < ANSWERED_CHARS) {
      unit += ` ${said[++i]}`;
      answered += said[i]!.length;
    }
    out.push(unit);
  }
  return out;
}

/**
 * A paragraph that is one bold run and nothing else, not a sentence (a label or a callout's title:
 * no full stop, question or exclamation mark at its end inside the run; one pass, no nested repetition).
 */
const BOLD_LABEL = /^\*\*[^*\n]*[^*\n.!?]\*\*[.:]?$/;

/** The most rows of a list or table a sentence ending in a colon takes with it (see `units`). */
export const INTRODUCED_ROWS = 15;

/**
 * The quotable units of a passage, in page order: each paragraph's sentences (a question the text
 * asks joined to its answer), each list, numbered steps or table whole, a sentence ending in a
 * colon together with the list or table it introduces. Code blocks are not units: `codeAfter`
 * holds, for each unit that code blocks follow, those blocks.
 */
function units(passage: Passage): { units: Unit[]; codeAfter: Map<number, PassageBlock[]> } {
  const out: Unit[] = [];
  const codeAfter = new Map<number, PassageBlock[]>();
  for (const block of passage.blocks) {
    if (block.kind === 'code') {
      // The code blocks between two units follow the first of them, in their order ("in two terminals:").
      const run = codeAfter.get(out.length - 1);
      if (run) run.push(block);
      else if (out.length > 0) codeAfter.set(out.length - 1, [block]);
      continue;
    }
    if (block.kind === 'list' || block.kind === 'steps' || block.kind === 'table') {
      const text = block.text;
      // A sentence that ends in a colon introduces what follows ("When several people sign:"): the
      // list or table is its answer, so the two are one unit, quoted whole, however long the list
      // ("available in the following regions:" before 33 of them).
      const intro = out.at(-1);
      if (intro && !intro.block && intro.text.endsWith(':') && !codeAfter.has(intro.i)) out[out.length - 1] = { text: `${intro.text}\n\n${text}`, i: intro.i, block: true };
      else out.push({ text, i: out.length, block: true });
      continue;
    }
    const alone = new Set((block.alone ?? []).map((k) => block.sentences[k]!));
    for (const sentence of withAnswers(block.sentences, alone)) out.push({ text: sentence, i: out.length, block: false });
  }
  return { units: out, codeAfter };
}

/**
 * What a section says about the question: its sentences, lists and tables that share the most
 * (specific) words with it, the one that says most first, each next one chosen for the words of
 * the question it adds, and each quoted once: exported pages repeat a passage once per tab or
 * language switcher.
 */
export function bestSentences(passage: Passage | string, terms: Set<string>, max: number): string[] {
  return bestPassage(passage, terms, max).units;
}

/** What `bestPassage` quotes of a section. */
export interface QuotedPassage {
  /** The units quoted, in page order. */
  units: string[];
  /** Which of them answers (chosen first: quoted whatever the reply's size). */
  answer: number;
  /**
   * Every unit quoted that ends in a colon with code blocks right after it on the page ("Add
   * this:"), in page order, each with those blocks, whole, as the page wrote them ("Then start the
   * API server, in two terminals:" and its two commands): a how-to's steps written as prose and
   * code. The code goes right after its unit.
   */
  introduced: { unit: string; code: PassageBlock[] }[];
}

/**
 * `bestSentences` with where the answering unit is among them (`answer`: the one chosen first,
 * quoted whatever the reply's size), and the units quoted that introduce code (`introduced`): what
 * such a unit introduced, code blocks, is kept apart from the prose, so the code goes right after it.
 */
export function bestPassage(passage: Passage | string, terms: Set<string>, max: number): QuotedPassage {
  const { units: all, codeAfter } = units(typeof passage === 'string' ? passageOfMarkdown(passage) : passage);
  const shaped = (quoted: string[], answer: number): QuotedPassage => ({
    units: quoted,
    answer,
    introduced: all.filter((u) => !u.block && /:\s*$/.test(u.text) && codeAfter.has(u.i) && quoted.includes(u.text)).map((u) => ({ unit: u.text, code: codeAfter.get(u.i)! })),
  });
  const seen = new Set<string>();
  const candidates = all.filter((u) => {
    if (u.text.length <= 20 || (!u.block && u.text.length >= LONGEST_SENTENCE) || DOC_TAG.test(u.text) || onlyLinks(u.text)) return false;
    // A sentence that introduces what follows it ("To start a presentation:") is quoted with what it
    // introduces: a list or table is one unit with it, code follows it (`codeAfter`); anything else
    // (a bold label, another paragraph) is not quoted with it, and it says nothing alone.
    if (!u.block && /:\s*$/.test(u.text) && !codeAfter.has(u.i)) return false;
    // A bold label alone on its line (a callout's title, "**Zettelkasten link beautifier**") names
    // what follows it: alone it says nothing.
    if (!u.block && BOLD_LABEL.test(u.text)) return false;
    const key = normalized(u.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // A sentence that only sends the reader elsewhere is quoted only when the section says nothing else.
  const saying = candidates.filter((u) => !onlyPoints(u.text));
  const substantive = saying.length > 0 ? saying : candidates;
  const quotable = substantive.filter((u) => u.block || !isRunOn(u.text));
  const matched = (text: string) => {
    const words = new Set(tokenize(text));
    return [...terms].filter((t) => words.has(t));
  };
  const matching = (text: string) => matched(text).reduce((sum, t) => sum + specificity(t), 0);
  const scored = (quotable.length > 0 ? quotable : substantive).map((unit) => {
    const u = { ...unit, text: focusTable(unit.text, matching) };
    // A long list or table matches many words by its length alone.
    const damping = u.block ? Math.max(1, Math.sqrt(u.text.split('\n').length / 3)) : 1;
    return { ...u, words: matched(u.text), damping, key: normalized(u.text) };
  });
  // Greedy: each next unit is the one that adds most of the question's words not yet quoted (words
  // already quoted count a third), so the answer covers more of what was asked.
  const covered = new Set<string>();
  const gain = (c: (typeof scored)[number]) => c.words.reduce((sum, t) => sum + specificity(t) * (covered.has(t) ? COVERED_WEIGHT : 1), 0) / c.damping;
  const chosen: typeof scored = [];
  // A sentence that points back to no sentence (the section's first, or one after a list) says nothing on its own.
  const orphans = new Set(scored.filter((c) => refersBack(c) && !scored.some((o) => o.i === c.i - 1 && !o.block)));
  while (chosen.length < max) {
    let best: (typeof scored)[number] | undefined;
    let bestGain = 0;
    for (const c of scored) {
      if (chosen.includes(c) || orphans.has(c)) continue;
      // A sentence that repeats one already chosen, with a few words more or less, adds nothing.
      if (chosen.some((other) => other.key.includes(c.key) || c.key.includes(other.key))) continue;
      const g = gain(c);
      if (g > bestGain) [best, bestGain] = [c, g];
    }
    if (!best) break;
    chosen.push(best);
    for (const t of best.words) covered.add(t);
  }
  if (chosen.length === 0) {
    const opening = scored.find((c) => !refersBack(c));
    return shaped(opening ? [opening.text] : [], 0);
  }
  // The answering unit first, with the units beside it when fewer than asked for match: they give
  // its context ("Unable to connect to server. On iOS, this message displays as…"). The rest follow
  // in the section's order, so they read on from it.
  // A sentence that points back goes with the one before it, or not at all.
  for (const c of [...chosen]) {
    if (!refersBack(c)) continue;
    // The sentences before it, back to one that says what it is about ("The proxy holds the token. It
    // runs in your app. It is a fetch handler.").
    const before: typeof scored = [];
    for (let at = c; refersBack(at) && before.length < 3; ) {
      const previous = scored.find((o) => o.i === at.i - 1 && !o.block);
      if (!previous) break;
      before.unshift(previous);
      at = previous;
    }
    if (before.length === 0 || refersBack(before[0]!)) chosen.splice(chosen.indexOf(c), 1);
    else chosen.splice(chosen.indexOf(c), 0, ...before.filter((o) => !chosen.includes(o)));
  }
  if (chosen.length === 0) return shaped([], 0);
  const [first, ...rest] = chosen;
  const lead = [first!];
  for (const n of [first!.i - 1, first!.i + 1]) {
    const beside = scored.find((c) => c.i === n);
    if (lead.length + rest.length >= max || !beside || chosen.includes(beside)) continue;
    // Put before the answer, a sentence that points back would point at nothing.
    if (n < first!.i && refersBack(beside)) continue;
    if (chosen.some((other) => other.key.includes(beside.key) || beside.key.includes(other.key))) continue;
    if (n < first!.i) lead.unshift(beside);
    else lead.push(beside);
  }
  // Quoted in the order the page says them.
  const ordered = [...lead, ...rest].sort((a, b) => a.i - b.i);
  return shaped(ordered.map((c) => c.text), ordered.indexOf(first!));
}

/** A long table as its header and the (at most three) rows that match the question best, in their order. */
function focusTable(text: string, matching: (row: string) => number): string {
  const rows = text.split('\n');
  if (!TABLE_ROW.test(rows[0]!) || rows.length <= 7) return text;
  const body = rows.slice(2).map((row, i) => ({ row, i, score: matching(row) }));
  const best = body.filter((r) => r.score > 0).sort((a, b) => b.score - a.score || a.i - b.i).slice(0, 3);
  const kept = (best.length ? best : body.slice(0, 3)).sort((a, b) => a.i - b.i).map((r) => r.row);
  return [rows[0]!, rows[1]!, ...kept].join('\n');
}

/** Joins quoted units: sentences run on as prose, lists and tables stand on their own lines. */
export function joinUnits(quoted: string[]): string {
  let out = '';
  for (const unit of quoted) {
    const block = unit.includes('\n') || LIST_ITEM.test(unit) || TABLE_ROW.test(unit);
    out = out === '' ? unit : block || /\n$/.test(out) ? `${out.trimEnd()}\n\n${unit}` : `${out} ${unit}`;
    if (block) out += '\n';
  }
  return out.trim();
}

/** A sentence's letters and digits, lowercased: exported tabs repeat passages with their spaces lost ("CriteriaBadThe"). */
export const normalized = (sentence: string) => sentence.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** How much of two sentences' words (as retrieval reads them) must be shared for one to restate the other. */
const RESTATED_OVERLAP = 0.7;

/**
 * What a reply has quoted: each unit by its text, and each sentence by its words, so a sentence
 * another section already said in nearly the same words ("If traffic drops back within your
 * tier…" after "If usage drops back within your tier…") is not quoted again. Lists and tables are
 * matched by their text alone.
 */
export class Quoted {
  readonly #texts = new Set<string>();
  readonly #sentences: Set<string>[] = [];
  readonly #terms = new Set<string>();

  /** Whether `unit` says what a quoted unit said. */
  has(unit: string): boolean {
    if (this.#texts.has(normalized(unit))) return true;
    const words = sentenceWords(unit);
    if (!words) return false;
    return this.#sentences.some((other) => {
      let shared = 0;
      for (const w of words) if (other.has(w)) shared++;
      return shared / (words.size + other.size - shared) >= RESTATED_OVERLAP;
    });
  }

  /** Whether a quoted unit holds `term` (as `tokenize` returns it). */
  said(term: string): boolean {
    return this.#terms.has(term);
  }

  add(unit: string): void {
    const terms = tokenize(unit);
    for (const term of terms) this.#terms.add(term);
    this.#texts.add(normalized(unit));
    const words = sentenceWords(unit, terms);
    if (words) this.#sentences.push(words);
  }
}

/** A sentence's distinct words (stems, stopwords left out; `terms` when already read), or null for a list, a table, or a sentence of fewer than four. */
function sentenceWords(unit: string, terms?: string[]): Set<string> | null {
  if (unit.includes('\n')) return null;
  const words = new Set(terms ?? tokenize(unit));
  return words.size >= 4 ? words : null;
}
