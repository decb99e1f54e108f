/** @module Answers and summaries built only from the sources' own sentences: nothing the sources don't say. */
import type { Message } from '../../protocol/index.js';
import { answerSignals, decide } from './decision.js';
import type { SearchHit, Vocabulary } from '../knowledge/index.js';
import { relatedHits, relevantHits, toSource } from './sources.js';
import type { Answer } from './types.js';
import { asksForCode, isNavigation, onlyLinks, onlyPoints, PROSE_BUDGET, proseLength, saysNothing } from './reply-shape.js';
import { specificity } from '../knowledge/text/specificity.js';
import { sentences, tokenize } from '../knowledge/text/text.js';

/** How much a question word already quoted counts when choosing the next unit to quote. */
const COVERED_WEIGHT = 0.3;

export const NO_ANSWER =
  "I couldn't find anything about that in the documentation, so I'd rather not guess. " +
  'You can rephrase the question, or talk to a human on the team: they will pick it up from here.';

/** How a reply that is not an answer, but has related pages, opens (the pages are its sources). */
export const RELATED_INTRO = "I couldn't find a direct answer to that; these pages look related:";

/** The reply when nothing in the knowledge base is related. */
export const NOTHING_RELATED: Answer = { content: NO_ANSWER, sources: [], isUncertain: true };

/**
 * The share of the question's (specific) words a sentence of a related page must hold to be quoted
 * beside the related pages, as what that page says (never as the answer). Measured on the help
 * development set: at a half, 3 of its 21 related-pages replies quoted a sentence; at a quarter,
 * with one of the question's two most specific words held, 12 did (help keywords 0.451 → 0.520).
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
/** How many of the question's most specific words name its subject (see `relatedReply`). */
const SUBJECT_WORDS = 2;

/**
 * A long run of words with no sentence end is a menu, a table flattened to text or a list of links
 * (docs exported from a site keep their navigation): no sentence to quote.
 */
const isRunOn = (s: string) => s.length > 200 && !/[.!?:;)]["'”’]?$/.test(s);

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
const NUMBERED = /^\s*\d+[.)](?:\s|$)/;
const FIRST_NUMBERED = /^\s*0*1[.)](?:\s|$)/;
/** A doc comment's tag line (`@default 10000`, `@param x`): notes for tools, not sentences for people. */
const DOC_TAG = /^@[a-z]+\b/i;
/**
 * A sentence whose subject points back ("It serves…", "This one…", "Each of the four…"), that
 * does something to what the one before named ("Set them inside…"), or that goes on from it
 * ("However, …", "Also, …", "Otherwise, …"): quoted only with the sentence before it, which says
 * what it is about.
 */
const REFERS_BACK =
  /^(?:it|its|this|that|these|those|they|their|each of (?:the|them|these)|both|such|the latter|the former|however|also|otherwise|instead|additionally|in addition|similarly|likewise|therefore|thus|hence|as a result|moreover|furthermore|nevertheless|nonetheless|in (?:this|that|which) case|in both cases|besides|conversely|alternatively|[a-z]+ them)\b/i;
const TABLE_ROW = /^\s*\|.*\|\s*$/;

/** Whether a unit is a sentence whose subject points back (see `REFERS_BACK`). */
const refersBack = (unit: { text: string; block: boolean }) => !unit.block && REFERS_BACK.test(unit.text);

/** A piece of a section that can be quoted whole: a sentence, or a Markdown list or table. */
interface Unit {
  text: string;
  /** Position in the section. */
  i: number;
  /** A list or table, quoted as Markdown on its own lines. */
  block: boolean;
}

/**
 * Prose as a visitor reads it, with other Markdown kept: wiki-style links (`[[Page|label]]`) read
 * as their label, or as "Page › Heading"; an embedded image or icon (`![[send.svg#icon]]`) goes,
 * as do callout markers (`[!note]-`). Code spans are left as written: they show the syntax itself.
 * A link's target holds no bracket, so a run of `[[` without a close is read once, not once per
 * `[[` (tried at every one, `[^\]]*` ran to the end of the text: quadratic).
 */
const readable = (text: string) =>
  text
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/(?<!\s)\s*!\[\[[^[\]]*\.(?:png|jpe?g|gif|svg|webp|avif|bmp)(?:[#|][^[\]]*)?\]\]/gi, '')
            .replace(/!?\[\[([^[\]|]*)\|([^[\]]*)\]\]/g, '$2')
            .replace(/!?\[\[([^[\]]*)\]\]/g, (_, target: string) => target.replace(/#\^[\w-]+$/, '').split('#').filter(Boolean).join(' › '))
            .replace(/\[![\w-]+\][-+]?\s*/g, ''),
    )
    .join('');

/** A table's rows as Markdown: the header row, its separator (site exports lose it), the rest. */
function tableMarkdown(rows: string[]): string {
  const body = rows.filter((row) => !/^\s*\|[\s:|-]*\|\s*$/.test(row));
  const columns = (body[0]!.match(/(?<!\\)\|/g)?.length ?? 2) - 1;
  return [body[0]!, `|${' --- |'.repeat(Math.max(1, columns))}`, ...body.slice(1, 12)].join('\n');
}

/**
 * A list as quotable units: whole when it is a few short items or numbered steps (steps make sense
 * together), else each item with its own lines, so one item of a long list can be quoted.
 */
function listUnits(rows: string[]): string[] {
  const items: string[][] = [];
  const indent = Math.min(...rows.filter((r) => LIST_ITEM.test(r)).map((r) => r.match(/^\s*/)![0].length));
  for (const row of rows) {
    if (LIST_ITEM.test(row) && row.match(/^\s*/)![0].length === indent) items.push([row]);
    else if (items.length) items.at(-1)!.push(row);
    else items.push([row]);
  }
  const numbered = /^\s*\d+[.)]\s/.test(rows[0]!);
  if ((numbered && rows.length <= 15) || (items.every((item) => item.length === 1) && items.length <= 12)) return [rows.join('\n')];
  return items.map((item) => item.join('\n'));
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

/** The most rows of a list or table a sentence ending in a colon takes with it (see `units`). */
const INTRODUCED_ROWS = 15;

/** Longer than this, a sentence is too long to quote (see `bestSentences`). */
const LONGEST_SENTENCE = 600;
/** A sentence end whose space a site export lost ("product teams.Content Generation"). */
const GLUED_END = /(?<=\p{Ll}[.!?])(?=\p{Lu}\p{Ll})/u;

/**
 * A sentence too long to quote, cut where an export glued sentences together (a table flattened
 * to text: "…for product teams.Content GenerationCraft…"); any other sentence as it is.
 */
const unglued = (sentence: string) => (sentence.length < LONGEST_SENTENCE ? [sentence] : sentence.split(GLUED_END));

/**
 * The quotable units of a section's text: each paragraph's sentences (its lines joined first, so
 * a sentence wrapped over two lines is one sentence), and each list or table whole.
 */
function units(text: string): Unit[] {
  const out: Unit[] = [];
  const blocks = text.split(/\n\s*\n/);
  let pending = null as { rows: string[]; kind: 'list' | 'table' } | null;
  const flush = () => {
    if (!pending) return;
    const block = pending.kind === 'table' ? [tableMarkdown(pending.rows)] : listUnits(pending.rows);
    // A sentence that ends in a colon introduces what follows ("When several people sign:"): the
    // list or table is its answer, so the two are one unit, quoted whole.
    const intro = out.at(-1);
    if (intro && !intro.block && intro.text.endsWith(':') && pending.rows.length <= INTRODUCED_ROWS) {
      out[out.length - 1] = { text: `${intro.text}\n\n${readable(block.join('\n'))}`, i: intro.i, block: true };
    } else for (const item of block) out.push({ text: readable(item), i: out.length, block: true });
    pending = null;
  };
  for (const block of blocks) {
    let paragraph: string[] = [];
    const flushParagraph = () => {
      const said = sentences(paragraph.join(' ').replace(/\s+/g, ' ')).flatMap(unglued);
      for (const sentence of withAnswers(said, new Set(paragraph.map((line) => line.replace(/\s+/g, ' '))))) out.push({ text: readable(sentence), i: out.length, block: false });
      paragraph = [];
    };
    for (const line of block.split('\n')) {
      if (!line.trim()) continue;
      // A doc comment's tag line ends the prose before it and is not quoted.
      if (DOC_TAG.test(line.trim())) {
        flushParagraph();
        continue;
      }
      // A line right after a list item, with no blank line between, goes on with that item. A
      // numbered line does not interrupt a paragraph unless it starts at 1 (CommonMark): a hard
      // wrap before "10000)" goes on with the sentence.
      const continues = paragraph.length > 0 && !pending && NUMBERED.test(line) && !FIRST_NUMBERED.test(line);
      const kind: 'list' | 'table' | null = continues ? null : TABLE_ROW.test(line) ? 'table' : LIST_ITEM.test(line) || pending?.kind === 'list' ? 'list' : null;
      if (kind) {
        flushParagraph();
        if (pending && pending.kind !== kind) flush();
        pending ??= { rows: [], kind };
        pending.rows.push(line);
        continue;
      }
      flush();
      // A long line with no sentence end (a menu kept by a site export) is not joined to the prose around it.
      if (isRunOn(line.trim())) {
        flushParagraph();
        paragraph.push(line.trim());
        flushParagraph();
      } else paragraph.push(line.trim());
    }
    flushParagraph();
    // A table whose header row the export set apart by a blank line continues in the next block.
    if (pending?.kind === 'list') flush();
  }
  flush();
  return out;
}

/**
 * What a section says about the question: its sentences, lists and tables that share the most
 * (specific) words with it, the one that says most first, each next one chosen for the words of
 * the question it adds, and each quoted once: exported pages repeat a passage once per tab or
 * language switcher.
 */
export function bestSentences(text: string, terms: Set<string>, max: number): string[] {
  return bestPassage(text, terms, max).units;
}

/**
 * `bestSentences` with where the answering unit is among them (`answer`: the one chosen first,
 * quoted whatever the reply's size), and whether the last unit quoted is the section's last and
 * ends in a colon (`introducesCode`: it introduces the code block that follows it). `leadsIn` is
 * the first unit quoted that ends in a colon with prose (or nothing) after it in the section: what
 * it introduced, a code block, is kept apart from the prose, so the code goes right after it.
 */
export function bestPassage(text: string, terms: Set<string>, max: number): { units: string[]; answer: number; introducesCode: boolean; leadsIn: string | null } {
  const all = units(text);
  const last = all.at(-1);
  const leadsIn = (quoted: string[]) => all.find((u, k) => !u.block && /:\s*$/.test(u.text) && !all[k + 1]?.block && quoted.includes(u.text))?.text ?? null;
  const shaped = (quoted: string[], answer: number) => ({
    units: quoted,
    answer,
    introducesCode: Boolean(last && quoted.includes(last.text) && /:\s*$/.test(last.text)),
    leadsIn: leadsIn(quoted),
  });
  const seen = new Set<string>();
  const candidates = all.filter((u) => {
    if (u.text.length <= 20 || (!u.block && u.text.length >= LONGEST_SENTENCE) || DOC_TAG.test(u.text) || onlyLinks(u.text)) return false;
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
  return shaped([...lead, ...rest.sort((a, b) => a.i - b.i)].map((c) => c.text), lead.indexOf(first!));
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
function joinUnits(quoted: string[]): string {
  let out = '';
  for (const unit of quoted) {
    const block = unit.includes('\n') || LIST_ITEM.test(unit) || TABLE_ROW.test(unit);
    out = out === '' ? unit : block || /\n$/.test(out) ? `${out.trimEnd()}\n\n${unit}` : `${out} ${unit}`;
    if (block) out += '\n';
  }
  return out.trim();
}

/** A sentence's letters and digits, lowercased: exported tabs repeat passages with their spaces lost ("CriteriaBadThe"). */
const normalized = (sentence: string) => sentence.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** How much of two sentences' words (as retrieval reads them) must be shared for one to restate the other. */
const RESTATED_OVERLAP = 0.7;

/**
 * What a reply has quoted: each unit by its text, and each sentence by its words, so a sentence
 * another section already said in nearly the same words ("If traffic drops back within your
 * tier…" after "If usage drops back within your tier…") is not quoted again. Lists and tables are
 * matched by their text alone.
 */
class Quoted {
  readonly #texts = new Set<string>();
  readonly #sentences: Set<string>[] = [];

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

  add(unit: string): void {
    this.#texts.add(normalized(unit));
    const words = sentenceWords(unit);
    if (words) this.#sentences.push(words);
  }
}

/** A sentence's distinct words (stems, stopwords left out), or null for a list, a table, or a sentence of fewer than four. */
function sentenceWords(unit: string): Set<string> | null {
  if (unit.includes('\n')) return null;
  const words = new Set(tokenize(unit));
  return words.size >= 4 ? words : null;
}

/** An import line. No two neighbouring repeats match the same characters (`use\s+[\w, ]+` did): linear in the line. */
const IMPORT_LINE = /^\s*(?:import\b|export\s+\*|export\s+\{[^}]*\}\s+from\b|from\s+\S+\s+import\b|use\s[\s\w:{},*]*;|#include\b|require\b|package\s|using\s+[\w.]+;|extern\s+crate\b|mod\s+\w+;)|^\s*(?:const|let|var)\s.*=\s*require\(/;

/** Bracket depth change of a line of code (strings and comments are not told apart: good enough to find statement ends). */
const depthChange = (line: string) => (line.match(/[({[]/g)?.length ?? 0) - (line.match(/[)}\]]/g)?.length ?? 0);

/**
 * About `lines` lines of code around the lines that match the question best: never the import
 * block, starting where a statement starts and ending where the brackets opened inside it close,
 * with nothing left out in between (what is shown is what "Copy code" copies).
 */
export function codeExcerpt(code: string, lines: number, terms: Set<string>): string {
  const all = code.split('\n');
  if (all.length <= lines && !all.some((l) => IMPORT_LINE.test(l))) return code;
  const body = all.map((line, i) => ({ line, i })).filter(({ line }) => !IMPORT_LINE.test(line));
  if (body.length === 0) return all.slice(0, lines).join('\n');
  // The best line: the most specific question words; the first code line when none match.
  let best = body.find(({ line }) => line.trim())?.i ?? 0;
  let bestScore = 0;
  for (const { line, i } of body) {
    const words = new Set(tokenize(line));
    let score = 0;
    for (const t of terms) if (words.has(t)) score += specificity(t);
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  // Start at the statement holding the best line: go up to a line at the same or lower indentation
  // whose previous line ends a statement, a block or is blank.
  const indent = (l: string) => l.match(/^\s*/)![0].length;
  let start = best;
  while (start > 0 && !IMPORT_LINE.test(all[start - 1]!) && best - start < Math.floor(lines / 3)) {
    const previous = all[start - 1]!.trim();
    if (indent(all[start]!) <= indent(all[best]!) && (previous === '' || /[;{}]$/.test(previous) || previous.startsWith('//') || previous.startsWith('#'))) break;
    start--;
  }
  while (start < best && !all[start]!.trim()) start++;
  // Never from inside a block comment: from its opening line, or past its end.
  if (/^\s*\*(?!\/)/.test(all[start]!)) {
    let open = start;
    while (open > 0 && start - open < lines && !all[open]!.includes('/*')) open--;
    if (all[open]!.includes('/*')) start = open;
    else while (start < all.length - 1 && /^\s*\*/.test(all[start]!)) start++;
  }
  // End where the brackets opened since the start close again, after at least `lines` lines when the code goes on.
  let end = start;
  let depth = 0;
  const limit = Math.min(all.length, start + lines * 2);
  while (end < limit) {
    depth += depthChange(all[end]!);
    end++;
    if (end - start >= lines && depth <= 0 && /[;})\],]\s*$|^\s*$/.test(all[end - 1]!)) break;
  }
  const shown = all.slice(start, end);
  while (shown.length && (IMPORT_LINE.test(shown.at(-1)!) || !shown.at(-1)!.trim())) shown.pop();
  return shown.join('\n').trimEnd();
}

/** A comment line, or a line inside a block comment (starting with `*`). */
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*|#(?!\[|include|define|!)|--\s|"""|''')/;

/** A string literal opening (SQL, a Lua script, a worker's source). */
const OPENS_STRING = /^(?:String\.raw`|`|'''|"""|'|[rbf]?")/;

/** The statement (comments and blank lines left out) gives a name a string: `const CLAIM = `UPDATE jobs…``. */
function isStringConstant(code: string[]): boolean {
  const first = code[0]!;
  const assign = first.search(/[^=!<>]=(?![=>])/);
  if (assign < 0 || first.slice(0, assign + 1).includes('(')) return false;
  const value = first.slice(assign + 2).trimStart();
  if (!OPENS_STRING.test(value)) return false;
  // Text for a database or another program, not code that answers: a string that goes on past its
  // first line (its quote opens and does not close there), or a query.
  const quote = value.startsWith('`') || value.startsWith('String.raw`') ? '`' : value.startsWith('"""') ? '"""' : value.startsWith("'''") ? "'''" : null;
  const goesOn = quote !== null && value.split(quote).length % 2 === 0;
  return goesOn || /^\W*(?:select|insert|update|delete|create|with|alter|drop)\s/i.test(value.replace(OPENS_STRING, ''));
}

/**
 * Whether a code excerpt can answer: it holds code, not only imports and comments (a `@module` or
 * `@default` tag), and is not a query or script held in a string.
 */
export function answersAsCode(excerpt: string): boolean {
  const code = excerpt.split('\n').filter((line) => line.trim() && !COMMENT_LINE.test(line) && !IMPORT_LINE.test(line));
  return code.length > 0 && !isStringConstant(code);
}

function fence(code: string, lang: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${code}\n${ticks}`;
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
}

/**
 * What one section contributes to an answer: its sentences that answer best (more for the best
 * section), as many as `shape.budget` holds (its answering unit always), and its code when the
 * question asks for code or the passage introduces it ("add this:"); nothing when (after the first
 * section) what it would quote holds no word of the question, or the section is navigation or
 * history (see `isNavigation`). `cited` without `text` when all it would quote was quoted already
 * from another section (a passage two pages share): it is a source of that quote too. `cut` when
 * units were left out for space.
 * (Holding such a section to a quarter of the question's weight was measured: help's figures
 * unchanged, replies a little shorter, but docs Recall@5 0.813 → 0.786.)
 */
function quoteSection(hit: SearchHit, terms: Set<string>, rank: number, quoted: Quoted, shape: Shape): { text: string; cited: boolean; cut: boolean } {
  const section = hit.under ?? hit.section;
  if (isNavigation(section.title)) return { text: '', cited: false, cut: false };
  const max = rank === 0 ? 3 : rank < 3 ? 2 : 1;
  const passage = bestPassage(section.body, terms, max);
  // The answering unit, then the others in their order while the budget holds them.
  let room = shape.budget - (passage.units[passage.answer]?.length ?? 0);
  const best = passage.units.filter((unit, i) => {
    if (i === passage.answer) return true;
    if (unit.length + 1 > room) return false;
    room -= unit.length + 1;
    return true;
  });
  const cut = best.length < passage.units.length;
  // A doc section's example is shown to a how-to or code question when it is the best section, or
  // when its prose says nothing that stands alone ("Each of the four is tested…" under the four
  // mounting examples); to any question when the passage introduces it. A source file's code only
  // to a question that asks for code.
  const wanted =
    section.kind === 'code'
      ? shape.code
      : ((shape.code || shape.howTo) && (rank === 0 || !section.body.trim() || best.length === 0)) || (passage.introducesCode && best.length === passage.units.length);
  const showCode = Boolean(section.code) && wanted;
  let excerpt = showCode ? codeExcerpt(section.code, section.kind === 'code' ? (rank < 3 ? 14 : 6) : 10, terms) : '';
  if (excerpt && !answersAsCode(excerpt)) excerpt = '';
  // A code piece's doc comment is its text: quoted once, in the excerpt, when the excerpt shows it.
  const shown = normalized(excerpt);
  const fresh = best.filter((unit) => !(shown && shown.includes(normalized(unit))));
  // A sentence that introduces what is not quoted after it ("open it from anything:") says nothing alone.
  // The one that introduced the code shown goes with it, and the code right after it.
  const leadsIn = excerpt ? passage.leadsIn : null;
  const says = (unit: string) => !quoted.has(unit) && (!unit.endsWith(':') || unit === leadsIn || (excerpt !== '' && passage.introducesCode) || fresh.length === 1);
  // A sentence that points back is said only after the sentence it points back to.
  const said = fresh.filter((unit, i) => says(unit) && !(i > 0 && refersBack({ text: unit, block: false }) && !says(fresh[i - 1]!)));
  // After the best section, a section is quoted only when what it quotes holds a word of the question.
  const matches = (text: string) => tokenize(text).some((t) => terms.has(t));
  if (rank > 0 && !said.some(matches) && !(excerpt && matches(excerpt))) return { text: '', cited: fresh.some((unit) => quoted.has(unit) && matches(unit)), cut };
  const block: string[] = [];
  const split = leadsIn ? said.indexOf(leadsIn) + 1 : said.length;
  if (split > 0) block.push(joinUnits(said.slice(0, split)));
  if (excerpt) block.push(fence(excerpt, section.lang));
  if (split < said.length) block.push(joinUnits(said.slice(split)));
  for (const unit of said) quoted.add(unit);
  return { text: block.join('\n\n'), cited: block.length > 0, cut };
}

/**
 * The reply: a Markdown answer quoting the relevant sections (three units of the best, two of the
 * next two, one of the others) within about `PROSE_BUDGET` characters of prose, then "More on
 * <page>" when some was left out; it cites the sections it quotes or left out for space, docs first
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
  // Where no doc page answers (a knowledge base of code alone), the code is the answer.
  const code = asksForCode(question) || !cited.some((hit) => hit.section.kind !== 'code');
  // "How do I…" asks for the steps, an example too; "Can I…?" asks whether, answered in prose.
  const howTo = SHOW_HOW.test(question);
  const docsFirst = HOW_TO.test(question) || !code;
  const ordered = docsFirst ? [...cited.filter((h) => h.section.kind !== 'code'), ...cited.filter((h) => h.section.kind === 'code')] : cited;
  const parts: string[] = [];
  const sources: SearchHit[] = [];
  const quoted = new Quoted();
  let budget = PROSE_BUDGET;
  let cut = false;
  for (const hit of ordered) {
    // To a prose question, a source file says nothing once a doc page has answered.
    if (!code && hit.section.kind === 'code' && parts.length > 0) continue;
    const part = quoteSection(hit, terms, sources.length, quoted, { code, howTo, budget });
    cut ||= part.cut;
    if (part.text && parts.length > 0 && proseLength(part.text) > budget) {
      // Left out for space: still a source, where the visitor reads on.
      cut = true;
      sources.push(hit);
      continue;
    }
    if (part.text) {
      parts.push(part.text);
      budget -= proseLength(part.text);
    }
    if (part.cited) sources.push(hit);
  }
  if (parts.length === 0 || saysNothing(parts.join('\n\n'))) return relatedReply(hits, terms);
  const best = toSource(sources[0]!);
  if (cut) parts.push(moreOn(best));
  return { content: parts.join('\n\n'), sources: sources.map(toSource), isUncertain: false };
}

/** The link to the rest of an answer's page: "More on [Refunds — Billing](…)". */
const moreOn = (source: { title: string; url: string }) => `More on [${source.title.replace(/[[\]]/g, '')}](${source.url.replace(/\(/g, '%28').replace(/\)/g, '%29')}).`;

/**
 * The reply that is not an answer: it says so, quotes what the best related page says, and its
 * sources are the related pages, best first (the widget lists them as links). The page quoted is
 * the one whose passage holds most of the question (a quarter of its weight and one of its two
 * most specific words: "“Refunds — Billing” says: > …"), else the first related page's passage
 * that answers best: never a reply of links alone. Its passage is quoted whole, a sentence ending
 * in a colon with the list, table or code block after it; never as the answer.
 */
export function relatedReply(hits: SearchHit[], terms: Set<string>): Answer {
  const related = relatedHits(hits);
  if (related.length === 0) return NOTHING_RELATED;
  const weight = [...terms].reduce((sum, t) => sum + specificity(t), 0);
  // What the question is about: its most specific words, of which a passage that may answer holds one.
  const subject = [...terms].sort((a, b) => specificity(b) - specificity(a)).slice(0, SUBJECT_WORDS);
  const excerpts = related.flatMap((hit, at) => {
    const section = hit.under ?? hit.section;
    if (section.kind === 'code' || isNavigation(section.title)) return [];
    const found = bestPassage(section.body, terms, EXCERPT_UNITS);
    const units = found.units;
    let passage = units.length > 1 && units.join('\n').split('\n').length <= EXCERPT_LINES ? joinUnits(units) : units[found.answer];
    if (!passage || passage.split('\n').length > INTRODUCED_ROWS + 3) return [];
    // A passage that introduces the section's code ("Add this:") comes with it.
    const excerpt = section.code && found.introducesCode && /:\s*$/.test(passage) ? codeExcerpt(section.code, 10, terms) : '';
    if (excerpt && answersAsCode(excerpt)) passage = `${passage}\n\n${fence(excerpt, section.lang)}`;
    // Judged by the unit that answers best alone: the unit beside it is context, not evidence.
    const words = new Set(tokenize(units[found.answer] ?? ''));
    const held = weight > 0 ? [...terms].filter((t) => words.has(t)).reduce((sum, t) => sum + specificity(t), 0) / weight : 0;
    const plausible = held >= PLAUSIBLE_SHARE && subject.some((t) => words.has(t));
    return [{ hit, at, passage, held: plausible ? held : -1 }];
  });
  // The most plausible passage, else the first page's.
  const best = excerpts.sort((a, b) => b.held - a.held || a.at - b.at)[0];
  const quote = best ? `“${toSource(best.hit).title}” says:\n\n${best.passage.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n')}` : '';
  return { content: [RELATED_INTRO, quote].filter(Boolean).join('\n\n'), sources: related.map(toSource), isUncertain: true };
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
