/**
 * @module The visitor's own words, measured on every set: search on a question's key words beside
 * the chat on the whole question, both again with a typo in the key word, and follow-ups that lean
 * on the turn before. The typo and the follow-up are made from each question by a fixed rule, by
 * code that knows nothing of any question.
 */
import { searchDocs } from '../../src/server/knowledge/search.js';
import { tokenize, words } from '../../src/server/knowledge/text/text.js';
import type { createAnswerEngine } from '../../src/server/answers/index.js';
import type { Message } from '../../src/protocol/index.js';
import type { BenchQuestion, DevSet, StoredRow } from './engine.bench.js';

type Engine = ReturnType<typeof createAnswerEngine>;

/** A question's content words in their order (see search.bench.ts: what a visitor types into search). */
export function keyWords(question: string): string {
  return words(question).filter((w) => w.terms.length > 0).map((w) => w.word).join(' ') || question;
}

/**
 * A typo in a question's longest key word (letters only, five or more): its two middle letters
 * swapped, or the middle letter dropped when they are the same ("password" → "pasword",
 * "export" → "exoprt"). Null when no key word is long enough.
 */
export function typoOf(question: string): { word: string; typo: string } | null {
  const candidates = words(question).filter((w) => w.terms.length > 0 && /^[a-z]{5,}$/i.test(w.word));
  const word = candidates.reduce<string | null>((best, w) => (best === null || w.word.length > best.length ? w.word : best), null);
  if (!word) return null;
  const m = Math.floor(word.length / 2);
  const typo = word[m - 1] === word[m] ? word.slice(0, m) + word.slice(m + 1) : word.slice(0, m - 1) + word[m] + word[m - 1] + word.slice(m + 1);
  return { word, typo };
}

/** `text` with its first whole-word `word` replaced by `by`. */
function replaceWord(text: string, word: string, by: string): string {
  let at = -1;
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
    const before = i === 0 || !/[\p{L}\p{N}]/u.test(text[i - 1]!);
    const after = i + word.length === text.length || !/[\p{L}\p{N}]/u.test(text[i + word.length]!);
    if (before && after) {
      at = i;
      break;
    }
  }
  return at < 0 ? text : text.slice(0, at) + by + text.slice(at + word.length);
}

/**
 * A follow-up pair made from a question and the title of its gold page: the title asked first,
 * then the question with its subject (the words whose terms the title holds) replaced by "it",
 * once, the rest of them left out. Null when the question names nothing of the title, or nothing
 * else (nothing would be left to ask).
 */
export function followUpOf(question: string, pageTitle: string): { first: string; question: string } | null {
  const subject = new Set(tokenize(pageTitle));
  const parts = words(question);
  const named = parts.filter((w) => w.terms.length > 0 && w.terms.every((t) => subject.has(t)));
  const rest = parts.filter((w) => w.terms.length > 0 && !w.terms.every((t) => subject.has(t)));
  if (named.length === 0 || rest.length === 0) return null;
  let text = replaceWord(question, named[0]!.word, 'it');
  for (const w of named.slice(1)) text = replaceWord(text, w.word, '').replace(/ {2,}/g, ' ');
  return { first: pageTitle, question: text.replace(/ +([?.!,])/g, '$1').trim() };
}

/** The title of each page of a set (by its address without the fragment), as the engine stored them. */
function pageTitles(rows: StoredRow[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const s of rows) {
    const page = s.url.replace(/#.*$/, '');
    if (!titles.has(page)) titles.set(page, s.context.split(' › ')[0] || s.title);
  }
  return titles;
}

const pageOf = (url: string) => url.replace(/#.*$/, '');
/** Whether one of the first five addresses lies on a gold page (code: a gold file). */
const onGoldPage = (set: DevSet, q: BenchQuestion, urls: string[]) => urls.slice(0, 5).some((u) => q.gold.some((g) => set.match(pageOf(u), pageOf(g)) || set.match(u, g)));

const ask = (question: string): Message[] => [{ role: 'user', content: question, sources: [] }];

/** One set's row: search and chat Hit@5 (pages), clean and with a typo, and follow-up pairs. */
export async function visitorWordsRow(engine: Engine, set: DevSet, rows: StoredRow[]): Promise<(string | number)[]> {
  const signal = new AbortController().signal;
  const asked = set.questions.filter((q) => q.kind !== 'followup' && q.kind !== 'out_of_scope');
  const search = async (text: string) => (await searchDocs(engine, set.name, text.slice(0, 500), { limit: 5 })).map((r) => r.url);
  const chat = async (messages: Message[]) => (await engine.answer({ orgId: set.name, messages, signal })).sources.map((s) => s.url);
  let searchHits = 0, chatHits = 0, typoSearch = 0, typoChat = 0, typos = 0, pairs = 0, pairHits = 0;
  const titles = set.name === 'code' ? new Map<string, string>() : pageTitles(rows);
  for (const q of asked) {
    if (onGoldPage(set, q, await search(keyWords(q.question)))) searchHits++;
    if (onGoldPage(set, q, await chat(ask(q.question)))) chatHits++;
    const typo = typoOf(q.question);
    if (typo) {
      typos++;
      if (onGoldPage(set, q, await search(replaceWord(keyWords(q.question), typo.word, typo.typo)))) typoSearch++;
      if (onGoldPage(set, q, await chat(ask(replaceWord(q.question, typo.word, typo.typo))))) typoChat++;
    }
    const title = titles.get(pageOf(q.gold[0] ?? ''));
    const pair = title ? followUpOf(q.question, title) : null;
    if (pair) {
      pairs++;
      const earlier = await engine.answer({ orgId: set.name, messages: ask(pair.first), signal });
      const messages: Message[] = [...ask(pair.first), { role: 'assistant', content: earlier.content, sources: earlier.sources, is_uncertain: earlier.isUncertain }, ...ask(pair.question)];
      if (onGoldPage(set, q, await chat(messages))) pairHits++;
    }
  }
  const n = asked.length;
  return [set.name, n, searchHits / n, chatHits / n, typos, typos ? typoSearch / typos : '–', typos ? typoChat / typos : '–', pairs, pairs ? pairHits / pairs : '–'];
}

export const VISITOR_WORDS_COLUMNS = ['set', 'questions', 'search Hit@5, key words', 'chat Hit@5, whole question', 'typo variants', 'search Hit@5, typo', 'chat Hit@5, typo', 'follow-up pairs', 'chat Hit@5, follow-up'];

export const VISITOR_WORDS_NOTES = [
  'Hit@5 of gold pages (code: files). Search: the first five results of `searchDocs` for the question\'s key words (its content words, as in the search bench); chat: the first five sources of the reply to the whole question, as asked. Follow-ups and out-of-scope questions are left out.',
  'Typo: the longest key word of five letters or more with its two middle letters swapped (the middle letter dropped when they are the same), in the key words and in the question. Follow-up pairs: the gold page\'s title asked first, then the question with the words of that title replaced by "it" (questions naming none of them, or nothing else, are left out; code has no page titles).',
  'Goal: chat Hit@5 on the whole question ≥ search Hit@5 on its key words, on every set.',
];
