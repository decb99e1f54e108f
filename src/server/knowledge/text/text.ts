/** @module Tokenizing for retrieval: identifiers split (camelCase, snake_case, kebab-case), stopwords dropped, words stemmed. */
import lemmatizer from 'wink-lemmatizer';
import porter2 from 'wink-porter2-stemmer';
import { LRUCache } from 'lru-cache';

/**
 * Longest token read, in UTF-16 units: a longer one (a pasted hash, a visitor's `x` × 16,000) is
 * cut to its start before it is split, lowercased and stemmed. The stemmer's and the splitter's
 * regular expressions take time quadratic in a word's length; cut, no token costs more than a
 * fixed amount, and no real word or identifier part is that long.
 */
export const MAX_TOKEN_CHARS = 100;

const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by
  can could did do does doing down during each few for from further had has have having he her here hers herself him himself
  his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
  ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
  those through to too under until up very was we were what when where which while who whom why will with would you your
  yours yourself yourselves use used using can't cannot don't i'm it's let's get got also may might must shall via way ways
  e g eg ie etc`.split(/\s+/),
);

/**
 * Words that frame a support question rather than name its subject ("what are the two main
 * benefits…", "how does X differ…", "what do you recommend…", "how long…", "how many…"). In a query they count for less,
 * so the subject words decide the ranking; in the indexed text they are ordinary words.
 */
const QUESTION_FRAMING = new Set(
  `one two three four five six seven eight nine ten first second third key main primary important specific particular
  several various certain kind sort recommend recommended recommendation suggest suggested benefit benefits advantage
  advantages differ difference differences different help helps explain describe mean means meaning happen happens need
  needs want able possible exactly actually typically generally usually long often much many work works working`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => stem(w)),
);

/** Whether a query term (as `tokenize` returns it) frames the question rather than naming its subject. */
export function isQuestionFraming(term: string): boolean {
  return QUESTION_FRAMING.has(term);
}

/**
 * A word's stem, so inflections and derived forms meet: "refunds"/"refund", "emailed"/"email",
 * "sent"/"send", "configuration"/"configure". Irregular forms are first mapped to their lemma from
 * WordNet's exception lists (wink-lemmatizer), then the Porter2 stemmer (Snowball English) strips
 * the regular endings. Words with digits and very short words are kept as they are.
 */
export function stem(word: string): string {
  // Cut again here: lowercasing may lengthen a word ('İ' is 'i̇').
  word = clipToken(word);
  if (word.length <= 2 || /\d/.test(word)) return word;
  // Plurals of acronyms ("SDKs", "URLs", "PRs"): Porter2 keeps an s that no vowel precedes.
  if (/^[^aeiouy]+s$/.test(word)) return word.slice(0, -1);
  const verb = lemmatizer.verb(word);
  const lemma = verb !== word ? verb : lemmatizer.noun(word);
  return porter2(lemma);
}

/** A token cut to `MAX_TOKEN_CHARS` (never between the two halves of a surrogate pair). */
function clipToken(token: string): string {
  if (token.length <= MAX_TOKEN_CHARS) return token;
  const end = /[\uD800-\uDBFF]/.test(token[MAX_TOKEN_CHARS - 1]!) ? MAX_TOKEN_CHARS - 1 : MAX_TOKEN_CHARS;
  return token.slice(0, end);
}

/** Splits an identifier into its words: `parseHTTPResponse_v2` → `parse`, `http`, `response`, `v2`. */
export function identifierParts(token: string): string[] {
  return token
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/(?<=[A-Z])(?=[A-Z][a-z])/g, ' ')
    .split(/[\s_\-.:]+/)
    .filter(Boolean);
}

/** The terms of one raw token (see `tokenize`). */
function tokenTerms(token: string): string[] {
  const out: string[] = [];
  // Most words are one part (lowercase, or capitalised): no identifier splitting to do.
  const parts = /^[A-Z]?[a-z0-9]*$/.test(token) ? [token] : identifierParts(token);
  if (parts.length > 1) {
    const whole = token.toLowerCase().replace(/[-.:]/g, '_');
    if (whole.length <= 40) out.push(whole);
  }
  for (const part of parts) {
    const lower = part.toLowerCase();
    if (lower.length < 2 && !/\d/.test(lower)) continue;
    if (STOPWORDS.has(lower)) continue;
    out.push(stem(lower));
  }
  return out;
}

/** Raw token → its terms, for the words seen lately: a knowledge base repeats its vocabulary. */
const termsOf = new LRUCache<string, string[]>({ max: 100_000, memoMethod: (token) => tokenTerms(token) });

/** A raw token: letters and digits, joined by `_`, `-`, `.` or `:` inside an identifier. */
const TOKEN = /[\p{L}\p{N}]+(?:[_\-.:][\p{L}\p{N}]+)*/gu;

function termsOfToken(token: string): string[] {
  const clipped = clipToken(token);
  return termsOf.memo(clipped);
}

/**
 * A Markdown link's target (`](https://…)`): where the link goes, not what the text says. A target
 * holds no parenthesis or space, so no run of `](` is read again from each of its starts.
 */
const LINK_TARGET = /\]\([^()\s]*\)/g;

/** The text without its links' targets (their labels stay). */
const withoutTargets = (text: string) => (text.includes('](') ? text.replace(LINK_TARGET, ']') : text);

/**
 * Terms of a text, in order (of its first `maxWords` words). Identifiers yield their parts and,
 * when compound, the whole identifier too, so both `maxTokens` and "max tokens" match. A Markdown
 * link counts by its label: its target's words (`https`, `docs`, `en`) are not what it says.
 */
export function tokenize(text: string, maxWords = Infinity): string[] {
  const out: string[] = [];
  let read = 0;
  for (const [token] of withoutTargets(text).matchAll(TOKEN)) {
    if (read++ >= maxWords) break;
    for (const term of termsOfToken(token)) out.push(term);
  }
  return out;
}

/**
 * The words of a text as written, each with its terms (see `tokenize`): a misspelled word is read
 * whole. At most `max` words, the first ones.
 */
export function words(text: string, max = Infinity): { word: string; terms: string[] }[] {
  const out: { word: string; terms: string[] }[] = [];
  for (const [word] of withoutTargets(text).matchAll(TOKEN)) {
    if (out.length >= max) break;
    out.push({ word: clipToken(word), terms: termsOfToken(word) });
  }
  return out;
}

/** The words of a text with where each is (`[start, end)` in UTF-16 code units) and its terms (see `tokenize`). */
export function wordSpans(text: string): { start: number; end: number; terms: string[] }[] {
  const out: { start: number; end: number; terms: string[] }[] = [];
  for (const match of text.matchAll(TOKEN)) out.push({ start: match.index, end: match.index + match[0].length, terms: termsOfToken(match[0]) });
  return out;
}

/** GitHub's heading anchors: lowercase, punctuation dropped (except - and _), spaces to hyphens. */
export function slugify(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^<>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** An abbreviation's full stop ("e.g. `set X`", "cf. Mounting"): the sentence goes on after it. */
const ABBREVIATED = /(?:^|[\s(])(?:e\.g|i\.e|cf|vs)\.$/i;

/**
 * Sentences of a paragraph of prose (keeps code spans, bold runs and URLs whole: "**Does it
 * expire? Will I lose my data?**" is one sentence, not two with an open `**` each; an
 * abbreviation's full stop ends none).
 */
export function sentences(text: string): string[] {
  const out: string[] = [];
  let open = '';
  // The bold marks and backticks of the pieces joined so far, counted piece by piece (counted
  // again over the joined text at each piece, a long unbalanced run cost time quadratic in it).
  let bold = 0;
  let ticks = 0;
  for (const piece of text.split(/(?<=[.!?])\s+(?=[A-Z0-9`*"([])/)) {
    open = open ? `${open} ${piece}` : piece;
    bold += piece.match(/\*\*/g)?.length ?? 0;
    ticks += piece.match(/`/g)?.length ?? 0;
    if (bold % 2 === 0 && ticks % 2 === 0 && !ABBREVIATED.test(piece.slice(-8))) {
      if (open.trim()) out.push(open.trim());
      open = '';
      bold = ticks = 0;
    }
  }
  if (open.trim()) out.push(open.trim());
  return out;
}
