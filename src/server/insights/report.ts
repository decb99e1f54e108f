/**
 * @module The insights report of one organization over a period: activity per day, unanswered
 * questions grouped by similarity ("pages to write"), thumbs-down answers, the sections cited most,
 * the pages never cited, and the pages questions come from (the widget says where each was asked). It reads conversations, messages, feedback and the knowledge base;
 * escalations' names and emails are never read, and email addresses typed into questions or
 * comments are masked.
 */
import type { Source } from '../../protocol/index.js';
import { EMAIL_MAX_LENGTH, FEEDBACK_COMMENT_MAX_LENGTH } from '../../protocol/limits.js';
import type { Sql } from '../store/sql.js';
import { groupQuestions } from './groups.js';
import { searchInsights, type SearchInsights } from './searches.js';

export interface DayCounts {
  /** UTC date, `YYYY-MM-DD`. */
  date: string;
  conversations: number;
  questions: number;
  answered: number;
  unanswered: number;
  escalated: number;
  thumbs_up: number;
  thumbs_down: number;
}

export interface InsightsReport {
  organization: string;
  since: string;
  until: string;
  /** `visitors`: distinct visitors (signed-in and anonymous, as the proxy named them) who started a conversation in the period. */
  /** `mcp`: questions asked through the MCP tool `ask` (counted in `questions` too). */
  totals: Omit<DayCounts, 'date'> & { failed: number; pending: number; visitors: number; mcp: number };
  days: DayCounts[];
  /**
   * Questions with no answer: the reply cited nothing, or was uncertain (`is_uncertain`) and showed
   * `related` pages instead, the pages that nearly answered.
   */
  unanswered_groups: { count: number; terms: string[]; latest_at: string; examples: { question: string; asked_at: string; related: Source[] }[] }[];
  /** Groups in all (the list holds the largest). */
  unanswered_group_count: number;
  /** Unanswered questions the groups were made from: all of the period's, or its newest 1,000. */
  unanswered_grouped: number;
  thumbs_down: { conversation_id: string; message_index: number; question: string; answer: string; comment: string | null; sources: Source[]; rated_at: string }[];
  top_sources: { title: string; url: string; citations: number }[];
  uncited_pages: { title: string; url: string }[];
  /** Pages never cited in all (the list holds the first ones by title). */
  uncited_page_count: number;
  /** The pages of the site questions were asked from (`context.page_url`), most questions first, with how many went unanswered. */
  question_pages: { url: string; title: string | null; questions: number; unanswered: number }[];
  /** Pages questions came from in all (the list holds those with the most). */
  question_page_count: number;
  /** Searches (`GET /v0/search`) of the period, by the UTC days it covers: the queries searched most, and those that found nothing. */
  searches: SearchInsights;
}

export interface ReportOptions {
  orgId: string;
  /** Start of the period, inclusive. */
  since: Date;
  /** End of the period, exclusive. */
  until: Date;
  /** Groups, thumbs-down answers, sources, uncited pages, pages questions come from and searches listed at most. @default 20, 50, 10, 50, 20, 20 */
  limits?: { groups?: number; thumbsDown?: number; sources?: number; pages?: number; questionPages?: number; searches?: number };
}

/**
 * An email address. A match may start only where a run of address characters starts (the
 * lookbehind): tried at every position inside a long run with no `@` (`x` × 16,000), the pattern
 * cost time quadratic in the run's length; now each run is scanned once, and the domain's labels
 * are separated by dots no label holds, so the pattern is linear in the text.
 */
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** Free text with email addresses masked: visitors sometimes type theirs into a question or a comment. */
export const masked = (text: string) => text.replace(EMAIL, '[email]');
/**
 * How much of a visitor's text the report reads (a question is shown clipped to 500 characters,
 * and grouped by the words of this much). Cut with room for an address across the cut, then
 * masked, then cut again: an address is never shown in part.
 */
const READ_CHARS = 1_000;
const readText = (text: string, max = READ_CHARS) => clip(masked(text.slice(0, max + EMAIL_MAX_LENGTH)), max);
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const DAY_MS = 86_400_000;
/** Unanswered questions grouped at most (the newest): reading and grouping them costs time in proportion. */
const MAX_GROUPED = 1_000;

type Outcome = 'answered' | 'unanswered' | 'escalated' | 'failed' | 'pending';

/**
 * The period's questions per outcome and UTC day (the day is the ISO text's date): ranges of the
 * covering index, one per outcome, counted in the database (PostgreSQL: one round trip).
 */
const QUESTIONS_PER_DAY = `
  SELECT outcome, substr(asked_at, 1, 10) AS day, COUNT(*) AS n FROM insight_questions
  WHERE org_id = ? AND outcome IN ('answered', 'unanswered', 'escalated', 'failed', 'pending') AND asked_at >= ? AND asked_at < ?
  GROUP BY outcome, substr(asked_at, 1, 10)`;

/** Conversations started per day of the period (a range of an index). */
const CONVERSATIONS_PER_DAY = `
  SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS n FROM conversations
  WHERE org_id = ? AND created_at >= ? AND created_at < ?
  GROUP BY substr(created_at, 1, 10)`;

/** Ratings per kind and day (ranges of an index). */
const FEEDBACK_PER_DAY = `
  SELECT rating, substr(updated_at, 1, 10) AS day, COUNT(*) AS n FROM feedback
  WHERE org_id = ? AND rating IN ('up', 'down') AND updated_at >= ? AND updated_at < ?
  GROUP BY rating, substr(updated_at, 1, 10)`;

/**
 * The same counts one day at a time (SQLite): a count over a range of an index needs no sort,
 * and a statement costs no round trip, so this is several times faster there than grouping.
 */
const QUESTIONS_OF_DAY = 'SELECT COUNT(*) AS n FROM insight_questions WHERE org_id = ? AND outcome = ? AND asked_at >= ? AND asked_at < ?';
/** Visitors who started a conversation in the period (conversations that name none are not counted). */
const DISTINCT_VISITORS = 'SELECT COUNT(DISTINCT visitor_id) AS n FROM conversations WHERE org_id = ? AND created_at >= ? AND created_at < ? AND visitor_id IS NOT NULL';
/** Questions of the period asked through MCP: the channel's conversations (a range of an index), then their questions by primary key. */
const MCP_QUESTIONS = `
  SELECT COUNT(*) AS n FROM conversations c JOIN insight_questions q ON q.conversation_id = c.id
  WHERE c.org_id = ? AND c.channel = 'mcp' AND c.created_at < ? AND q.asked_at >= ? AND q.asked_at < ?`;
const CONVERSATIONS_OF_DAY = 'SELECT COUNT(*) AS n FROM conversations WHERE org_id = ? AND created_at >= ? AND created_at < ?';
const FEEDBACK_OF_DAY = 'SELECT COUNT(*) AS n FROM feedback WHERE org_id = ? AND rating = ? AND updated_at >= ? AND updated_at < ?';

const OUTCOMES: readonly Outcome[] = ['answered', 'unanswered', 'escalated', 'failed', 'pending'];

interface PeriodCounts {
  questions: { outcome: Outcome; day: string; n: number }[];
  conversations: { day: string; n: number }[];
  feedback: { rating: 'up' | 'down'; day: string; n: number }[];
}

/** Questions, conversations and ratings of the period per UTC day, in the way that is fastest on each engine. */
async function countsPerDay(sql: Sql, orgId: string, since: string, until: string, dates: Iterable<string>): Promise<PeriodCounts> {
  if (sql.dialect === 'postgres') {
    const period = [orgId, since, until];
    return {
      questions: await sql.all(QUESTIONS_PER_DAY, period),
      conversations: await sql.all(CONVERSATIONS_PER_DAY, period),
      feedback: await sql.all(FEEDBACK_PER_DAY, period),
    };
  }
  const counts: PeriodCounts = { questions: [], conversations: [], feedback: [] };
  const count = async (text: string, params: unknown[]) => (await sql.get<{ n: number }>(text, params))!.n;
  for (const day of dates) {
    const from = day === since.slice(0, 10) ? since : `${day}T00:00:00.000Z`;
    const next = new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS).toISOString();
    const to = next < until ? next : until;
    counts.conversations.push({ day, n: await count(CONVERSATIONS_OF_DAY, [orgId, from, to]) });
    for (const rating of ['up', 'down'] as const) counts.feedback.push({ rating, day, n: await count(FEEDBACK_OF_DAY, [orgId, rating, from, to]) });
    for (const outcome of OUTCOMES) counts.questions.push({ outcome, day, n: await count(QUESTIONS_OF_DAY, [orgId, outcome, from, to]) });
  }
  return counts;
}

/** How many answers of the period cited each list of sources (a few rows: answers to similar questions cite the same sections). */
const SOURCE_LISTS = `
  SELECT source_list, COUNT(*) AS n FROM insight_questions
  WHERE org_id = ? AND outcome IN ('answered', 'escalated') AND asked_at >= ? AND asked_at < ? AND source_list IS NOT NULL
  GROUP BY source_list`;

/** The newest unanswered questions of the period, with as much of their text as the report reads, and the related pages an uncertain reply showed. */
const UNANSWERED = `
  SELECT q.asked_at, substr(m.content, 1, ${READ_CHARS + EMAIL_MAX_LENGTH}) AS content, q.source_list FROM insight_questions q
  JOIN messages m ON m.conversation_id = q.conversation_id AND m.seq = q.seq
  WHERE q.org_id = ? AND q.asked_at >= ? AND q.asked_at < ? AND q.outcome = 'unanswered'
  ORDER BY q.asked_at DESC LIMIT ?`;

const THUMBS_DOWN = `
  SELECT f.conversation_id, f.comment, f.updated_at, a.content AS answer, a.sources,
         (SELECT content FROM messages WHERE conversation_id = f.conversation_id AND seq = f.message_seq - 1 AND role = 'user') AS question,
         (SELECT COUNT(*) FROM messages WHERE conversation_id = f.conversation_id AND seq < f.message_seq) AS message_index
  FROM feedback f JOIN messages a ON a.conversation_id = f.conversation_id AND a.seq = f.message_seq
  WHERE f.org_id = ? AND f.rating = 'down' AND f.updated_at >= ? AND f.updated_at < ?
  ORDER BY f.updated_at DESC LIMIT ?`;

/** Each knowledge-base page (tickets left out) with the address of its first section. */
const PAGES = `
  SELECT d.title, (SELECT url FROM kb_sections s WHERE s.org_id = d.org_id AND s.doc_key = d.doc_key AND s.url != '' ORDER BY s.ord LIMIT 1) AS url
  FROM kb_documents d
  WHERE d.org_id = ? AND d.doc_key NOT LIKE 'ticket:%'
  ORDER BY d.title, d.doc_key`;

/**
 * The pages questions were asked from in the period, with how many and how many went unanswered
 * (an index holds exactly what this reads: questions asked from a page).
 */
const QUESTION_PAGES = `
  SELECT page_url, MAX(page_title) AS title, COUNT(*) AS n, COUNT(CASE WHEN outcome = 'unanswered' THEN 1 END) AS unanswered FROM insight_questions
  WHERE org_id = ? AND asked_at >= ? AND asked_at < ? AND page_url IS NOT NULL
  GROUP BY page_url`;

/** Lists of sources read from the database in one statement at most. */
const LISTS_PER_READ = 500;

/** Parsed lists of sources by id, per database: an interned list is never changed, so they are kept. */
const listCache = new WeakMap<Sql, Map<number, Source[]>>();

/** The parsed lists of sources `ids`, read from the database once each. */
async function sourceLists(sql: Sql, ids: Iterable<number>): Promise<Map<number, Source[]>> {
  let lists = listCache.get(sql);
  if (!lists) listCache.set(sql, (lists = new Map()));
  const missing = [...ids].filter((id) => !lists.has(id));
  if (lists.size + missing.length > 100_000) lists.clear();
  for (let i = 0; i < missing.length; i += LISTS_PER_READ) {
    const chunk = missing.slice(i, i + LISTS_PER_READ);
    const rows = await sql.all<{ id: number; sources: string }>(`SELECT id, sources FROM insight_source_lists WHERE id IN (${chunk.map(() => '?').join(', ')})`, chunk);
    for (const row of rows) lists.set(row.id, JSON.parse(row.sources) as Source[]);
  }
  return lists;
}

const pageOf = (url: string) => {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
};

/** Builds the report from reads of the database. */
export async function insightsReport(sql: Sql, options: ReportOptions): Promise<InsightsReport> {
  const { orgId } = options;
  const limits = {
    groups: options.limits?.groups ?? 20,
    thumbsDown: options.limits?.thumbsDown ?? 50,
    sources: options.limits?.sources ?? 10,
    pages: options.limits?.pages ?? 50,
    questionPages: options.limits?.questionPages ?? 20,
    searches: options.limits?.searches ?? 20,
  };
  const since = options.since.toISOString();
  const until = options.until.toISOString();
  const period = [orgId, since, until];

  const days = new Map<string, DayCounts>();
  const firstDay = Date.UTC(options.since.getUTCFullYear(), options.since.getUTCMonth(), options.since.getUTCDate());
  for (let t = firstDay; t < options.until.getTime(); t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    days.set(date, { date, conversations: 0, questions: 0, answered: 0, unanswered: 0, escalated: 0, thumbs_up: 0, thumbs_down: 0 });
  }
  const totals = { conversations: 0, visitors: 0, questions: 0, answered: 0, unanswered: 0, escalated: 0, failed: 0, pending: 0, thumbs_up: 0, thumbs_down: 0, mcp: 0 };

  // One statement after another: a report holds one pooled connection at a time, however many run.
  const { questions: questionCounts, conversations: conversationCounts, feedback: feedbackCounts } = await countsPerDay(sql, orgId, since, until, days.keys());
  const citedRows = await sql.all<{ source_list: number; n: number }>(SOURCE_LISTS, period);
  const unanswered = await sql.all<{ asked_at: string; content: string; source_list: number | string | null }>(UNANSWERED, [...period, MAX_GROUPED]);
  const thumbsDownRows = await sql.all<{ conversation_id: string; comment: string | null; updated_at: string; answer: string; sources: string; question: string | null; message_index: number }>(
    THUMBS_DOWN,
    [...period, limits.thumbsDown],
  );
  const pages = await sql.all<{ title: string; url: string | null }>(PAGES, [orgId]);
  const askedFrom = await sql.all<{ page_url: string; title: string | null; n: number | string; unanswered: number | string }>(QUESTION_PAGES, period);
  totals.visitors = Number((await sql.get<{ n: number | string }>(DISTINCT_VISITORS, period))?.n ?? 0);
  totals.mcp = Number((await sql.get<{ n: number | string }>(MCP_QUESTIONS, [orgId, until, since, until]))?.n ?? 0);
  const searches = await searchInsights(sql, { orgId, since: options.since, until: options.until, limit: limits.searches });

  // Each question by its outcome: the answer cited sources, cited none, failed or is not there yet;
  // the question an escalated conversation ended on counts as escalated (a human took it over).
  for (const { outcome, day, n } of questionCounts) {
    const counts = days.get(day);
    if (!counts) continue;
    if (outcome !== 'failed' && outcome !== 'pending') counts[outcome] += n;
    counts.questions += n;
    totals.questions += n;
    totals[outcome] += n;
  }
  for (const { day, n } of conversationCounts) {
    const counts = days.get(day);
    if (!counts) continue;
    counts.conversations += n;
    totals.conversations += n;
  }
  for (const { rating, day, n } of feedbackCounts) {
    const counts = days.get(day);
    if (!counts) continue;
    const key = rating === 'up' ? 'thumbs_up' : 'thumbs_down';
    counts[key] += n;
    totals[key] += n;
  }
  const citedLists = new Map<number, number>();
  for (const { source_list: id, n } of citedRows) citedLists.set(id, n);
  const questions = unanswered.map((r) => ({ text: readText(r.content), askedAt: r.asked_at }));
  // The related pages each unanswered question was shown (an uncertain reply's sources), by question.
  const shownLists = await sourceLists(sql, new Set(unanswered.flatMap((r) => (r.source_list === null ? [] : [Number(r.source_list)]))));
  const related = new Map(questions.map((q, i) => [q, unanswered[i]!.source_list === null ? [] : (shownLists.get(Number(unanswered[i]!.source_list)) ?? [])]));

  // Sections cited most: each distinct list of sources is read and parsed once (and kept: a list never changes).
  const citations = new Map<string, { title: string; url: string; citations: number }>();
  const lists = await sourceLists(sql, citedLists.keys());
  for (const [id, n] of citedLists) {
    for (const source of lists.get(id) ?? []) {
      const entry = citations.get(source.url);
      if (entry) entry.citations += n;
      else citations.set(source.url, { title: source.title, url: source.url, citations: n });
    }
  }
  const citedPages = new Set([...citations.keys()].map(pageOf));
  const uncited = pages.filter((p) => p.url && !citedPages.has(pageOf(p.url)));

  const grouped = await groupQuestions(questions, { limit: limits.groups });

  const thumbsDown = thumbsDownRows.map((r) => ({
    conversation_id: r.conversation_id,
    message_index: r.message_index,
    question: readText(r.question ?? '', 500),
    answer: clip(r.answer, 1000),
    comment: r.comment === null ? null : readText(r.comment, FEEDBACK_COMMENT_MAX_LENGTH),
    sources: JSON.parse(r.sources) as Source[],
    rated_at: r.updated_at,
  }));

  return {
    organization: orgId,
    since,
    until,
    totals,
    days: [...days.values()],
    unanswered_groups: grouped.groups.map((g) => ({
      count: g.count,
      terms: g.terms,
      latest_at: g.latestAt,
      examples: g.examples.map((e) => ({ question: clip(e.text, 500), asked_at: e.askedAt, related: related.get(e) ?? [] })),
    })),
    unanswered_group_count: grouped.total,
    unanswered_grouped: questions.length,
    thumbs_down: thumbsDown,
    top_sources: [...citations.values()].sort((a, b) => b.citations - a.citations || a.url.localeCompare(b.url)).slice(0, limits.sources),
    uncited_pages: uncited.slice(0, limits.pages).map((p) => ({ title: p.title, url: p.url! })),
    uncited_page_count: uncited.length,
    question_pages: askedFrom
      .map((r) => ({ url: r.page_url, title: r.title, questions: Number(r.n), unanswered: Number(r.unanswered) }))
      .sort((a, b) => b.questions - a.questions || a.url.localeCompare(b.url))
      .slice(0, limits.questionPages),
    question_page_count: askedFrom.length,
    // Visitors sometimes search for their own address: masked here, as in questions.
    searches: {
      ...searches,
      top_searches: searches.top_searches.map((q) => ({ ...q, query: masked(q.query) })),
      zero_result_searches: searches.zero_result_searches.map((q) => ({ ...q, query: masked(q.query) })),
    },
  };
}
