/** @module The sources an answer cites: which hits, and their titles as a person reads them. */
import type { Source } from '../../protocol/index.js';
import { MEANING_NEUTRAL, termsOfSection } from './decision.js';
import { isNavigation } from './reply-shape.js';
import type { SearchHit } from '../knowledge/index.js';
import { splitSentences, tokenize, type Passage } from '../knowledge/index.js';

/**
 * Another page's section is cited beside the answer's own page only when it matches at least this
 * share of the question's weight (idf).
 */
const MIN_OTHER_PAGE_COVERAGE = 0.25;
export const MAX_SOURCES = 5;
/**
 * How many doc sections of one page other than the best hit's an answer may cite. Measured on
 * 2026-11-30 against no such limit: Plausible gold shown 0.750 → 0.767, answered without gold
 * 0.117 → 0.100, chat Hit@5 0.836 → 0.855 (search's own: "why does plausible show more visitors
 * than google analytics does" cites the dashboard FAQ instead of a third Google Analytics import
 * section); every other set's figures as before. One section per page: help gold shown 0.863 → 0.804.
 */
const OTHER_PAGE_SECTIONS = 2;
/**
 * The least cosine with the question of a section cited for its meaning alone (see
 * `relevantHits`): the cosine that counts for neither answering nor refusing. Measured against
 * 0.55 (2026-11-30): Plausible gold shown 0.700 → 0.717 and answered without gold 0.167 → 0.150
 * ("can i switch the country on my plan?" cites the billing FAQ's "How do I change the country on
 * my subscription?", which matches a fifth of its words and is the nearest in meaning); 0.45 and
 * 0.40 gave the same; every other set's replies as before.
 */
const MEANT_COSINE = MEANING_NEUTRAL;

/**
 * The hits worth citing: relevant enough, one per URL, best first, at most five. A section of the
 * page the answer comes from is cited on its score alone: the page already matched the question,
 * and its other sections ("Get started", "Examples") often hold the rest of the answer in words
 * the question doesn't use. Sections elsewhere must also match enough of the question.
 */
export function relevantHits(hits: SearchHit[], question?: string): SearchHit[] {
  const best = hits[0];
  if (!best) return [];
  const asked = question ? new Set(tokenize(question)) : null;
  const seen = new Set<string>();
  /** Per page, the question's words its cited sections hold. */
  const said = new Map<string, Set<string>>();
  const out: SearchHit[] = [];
  const nearest = Math.max(MEANT_COSINE, best.similarity ?? 0);
  for (const hit of hits) {
    // A section placed by its meaning alone (dense retrieval: few or none of the question's words)
    // is relevant when it is nearer the question than the best hit, and at least `MEANT_COSINE`.
    const meant = hit.section.kind !== 'code' && (hit.similarity ?? 0) >= nearest;
    if (!meant && hit.score < best.score * 0.2) continue;
    if (!meant && hit.section.docKey !== best.section.docKey && hit.coverage < MIN_OTHER_PAGE_COVERAGE) continue;
    const url = hit.section.url;
    if (!url || seen.has(url)) continue;
    // Another piece of a source file already cited must add a word of the question its cited pieces
    // lack. Doc sections of one page are not held to this: they hold the rest of the answer in
    // other words (see docs/benchmarks.md).
    const words = asked ? [...termsOfSection(hit).all].filter((t) => asked.has(t)) : [];
    const page = said.get(hit.section.docKey);
    if (hit.section.kind === 'code' && page && words.every((t) => page.has(t))) continue;
    // Another page gives at most `OTHER_PAGE_SECTIONS` doc sections: the places left go to other pages.
    if (hit.section.kind !== 'code' && hit.section.docKey !== best.section.docKey && out.filter((o) => o.section.docKey === hit.section.docKey).length >= OTHER_PAGE_SECTIONS) continue;
    seen.add(url);
    if (asked) said.set(hit.section.docKey, new Set([...(page ?? []), ...words]));
    out.push(hit);
    if (out.length === MAX_SOURCES) break;
  }
  return out;
}

/**
 * The pages shown when the reply is not an answer: the best hits, best first, one per address (a
 * source file once, whichever of its pieces ranked), at most five. A section of navigation ("Learn
 * More", "See also": links to other pages) is not one: its words are those of the pages it links to.
 */
export function relatedHits(hits: SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const hit of hits) {
    const { url, kind } = hit.section;
    if (isNavigation(hit.section.title)) continue;
    const key = kind === 'code' ? url.replace(/#L\d+(?:-L\d+)?$/, '') : url;
    if (!url || seen.has(key)) continue;
    seen.add(key);
    out.push(hit);
    if (out.length === MAX_SOURCES) break;
  }
  return out;
}

/** A comment that opens a code piece (its doc comment, above the declaration): it says what the piece is. */
const DOC_COMMENT = /^\s*(?:\/\*|\/\/|#(?:\s|$)|"""|''')/;
/** What a file's header comment says instead of what the code is. */
const NOT_A_SUMMARY = /copyright|licen[cs]e|spdx|https?:\/\/|generated|do not edit|^by /i;
/** A Python docstring, on the line after the declaration. */
const DOCSTRING = /^\s*(?:"""|''')/;
const MAX_TITLE = 70;

/**
 * What a code piece's doc comment says it is, as a short title: the first sentence of its first
 * paragraph as a reader reads it (links as their text, no code marks; ingest parsed the comment),
 * cut at its first clause end (":", ";", " — ") or else at a word when long. Empty when the piece
 * has no doc comment of its own (a later window of a long piece starts mid-code), or when the
 * comment is a note rather than a sentence.
 */
export function docSummary(section: { title: string; code: string; passage: Passage }): string {
  const lines = section.code.split('\n').filter((l) => l.trim());
  if (section.title.endsWith(' (continued)') || (!DOC_COMMENT.test(lines[0] ?? '') && !DOCSTRING.test(lines[1] ?? ''))) return '';
  const first = section.passage.blocks.find((block) => block.kind === 'paragraph');
  let summary = (first ? (splitSentences(first.plain, section.passage.lang)[0] ?? '') : '').replace(/[.:]$/, '').trim();
  if (summary.length > MAX_TITLE) {
    const head = summary.slice(0, MAX_TITLE);
    const clause = head.search(/(?<=.{15}): |; | — /);
    if (clause >= 0) summary = outsideParenthesis(head, clause);
    else summary = `${outsideParenthesis(head, head.lastIndexOf(' '))}…`;
  }
  // A sentence, not a note ("update chain values", "THEN GIVEN WHEN") or a licence header.
  // A sentence may open with a name in code marks ("`parse` reads…").
  const opens = /^\p{Lu}/u.test(summary) || first?.sentences[0]?.startsWith('`');
  const sentence = opens && /\p{Ll}/u.test(summary) && summary.split(/\s+/).length >= 2;
  return sentence && !NOT_A_SUMMARY.test(summary) ? summary : '';
}

/**
 * `text` cut at `cut`, or earlier, before a parenthesis the cut would leave open ("embedded at all
 * (prose: docs…)" ends "embedded at all"), unless that leaves fewer than 15 characters.
 */
function outsideParenthesis(text: string, cut: number): string {
  const open = text.lastIndexOf(' (', cut);
  return text.slice(0, open >= 15 && text.indexOf(')', open) < 0 ? open : cut);
}

/** What a declaration's keyword makes it, as a person says it. */
const DECLARED_AS: Record<string, string> = {
  function: 'function', def: 'function', fn: 'function', func: 'function', fun: 'function',
  class: 'class', interface: 'interface', type: 'type', enum: 'enum', struct: 'struct', trait: 'trait',
  const: 'constant', let: 'variable', var: 'variable', static: 'constant', module: 'module', namespace: 'namespace', object: 'object', protocol: 'protocol',
};

/**
 * What kind of thing a code piece declares ("function", "class", "constant"), read from the first
 * line that names it; empty when no such line is found (a later window of a long piece).
 */
function declaredAs(code: string, name: string): string {
  for (const line of code.split('\n', 40)) {
    const at = line.indexOf(` ${name}`);
    if (at < 0 || DOC_COMMENT.test(line)) continue;
    const keyword = line.slice(0, at).trim().split(/\s+/).pop()?.replace(/[^\w]/g, '') ?? '';
    if (DECLARED_AS[keyword]) return DECLARED_AS[keyword];
  }
  return '';
}

/**
 * A source's title as a person reads it: the section and its page ("Mounting — The proxy"), the
 * page alone when the section repeats its name; a code piece by what its doc comment says it is,
 * else by its name and what it is ("errorBody function"), with its file ("A JSON error response in
 * the spec's shape — src/proxy/errors.ts"). Never the "(continued)" of a long piece's later part.
 */
export function toSource(hit: SearchHit): Source {
  const { section } = hit;
  const page = section.context.split(' › ')[0] ?? '';
  if (section.kind === 'code') {
    const declared = section.title.replace(/ \(continued\)$/, '');
    const file = section.context.split('/').pop();
    const kind = file === declared ? '' : declaredAs(section.code, declared);
    const name = docSummary(section) || (kind ? `${declared} ${kind}` : declared);
    // A file's opening piece without a doc comment is named after the file.
    return { title: file === name ? section.context : `${name} — ${section.context}`, url: section.url };
  }
  const title = page && page.toLowerCase() !== section.title.toLowerCase() ? `${section.title} — ${page}` : section.title;
  return { title, url: section.url };
}
