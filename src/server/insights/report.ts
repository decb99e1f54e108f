/**
 * @module The insights report of one organization over a period: activity per day, unanswered
 * questions grouped by similarity ("pages to write"), thumbs-down answers, the sections cited most
 * and the pages never cited. It reads conversations, messages, feedback and the knowledge base;
 * escalations' names and emails are never read, and email addresses typed into questions or
 * comments are masked.
 */
import type { Source } from '../../protocol/index.js';
import type { Db } from '../store/database.js';
import { groupQuestions } from './groups.js';

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
  totals: Omit<DayCounts, 'date'> & { failed: number; pending: number };
  days: DayCounts[];
  unanswered_groups: { count: number; terms: string[]; latest_at: string; examples: { question: string; asked_at: string }[] }[];
  /** Groups in all (the list holds the largest). */
  unanswered_group_count: number;
  /** Unanswered questions the groups were made from: all of the period's, or its newest 1,000. */
  unanswered_grouped: number;
  thumbs_down: { conversation_id: string; message_index: number; question: string; answer: string; comment: string | null; sources: Source[]; rated_at: string }[];
  top_sources: { title: string; url: string; citations: number }[];
  uncited_pages: { title: string; url: string }[];
  /** Pages never cited in all (the list holds the first ones by title). */
  uncited_page_count: number;
}

export interface ReportOptions {
  orgId: string;
  /** Start of the period, inclusive. */
  since: Date;
  /** End of the period, exclusive. */
  until: Date;
  /** Groups, thumbs-down answers, sources and pages listed at most. @default 20, 50, 10, 50 */
  limits?: { groups?: number; thumbsDown?: number; sources?: number; pages?: number };
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** Free text with email addresses masked: visitors sometimes type theirs into a question or a comment. */
export const masked = (text: string) => text.replace(EMAIL, '[email]');
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);
const DAY_MS = 86_400_000;
/** Unanswered questions grouped at most (the newest): reading and grouping them costs time in proportion. */
const MAX_GROUPED = 1_000;

/** One day's questions of one outcome: a count over a range of the covering index (no sort, no table read). */
const QUESTIONS_OF_DAY = `
  SELECT COUNT(*) FROM insight_questions WHERE org_id = @org AND outcome = @outcome AND asked_at >= @from AND asked_at < @to`;

/** The list of sources each answer of the period cited (counted in JavaScript: a sort in SQLite costs more). */
const SOURCE_LISTS = `
  SELECT source_list FROM insight_questions
  WHERE org_id = @org AND outcome IN ('answered', 'escalated') AND asked_at >= @since AND asked_at < @until AND source_list IS NOT NULL`;

/** The newest unanswered questions of the period. */
const UNANSWERED = `
  SELECT conversation_id, seq, asked_at FROM insight_questions
  WHERE org_id = @org AND asked_at >= @since AND asked_at < @until AND outcome = 'unanswered'
  ORDER BY asked_at DESC LIMIT @limit`;

/** Conversations started in one day of the period (a range of an index). */
const CONVERSATIONS_OF_DAY = `SELECT COUNT(*) FROM conversations WHERE org_id = @org AND created_at >= @from AND created_at < @to`;

/** One day's ratings of one kind (a count over a range of an index). */
const FEEDBACK_OF_DAY = `SELECT COUNT(*) FROM feedback WHERE org_id = @org AND rating = @rating AND updated_at >= @from AND updated_at < @to`;

const THUMBS_DOWN = `
  SELECT f.conversation_id, f.comment, f.updated_at, a.content AS answer, a.sources,
         (SELECT content FROM messages WHERE conversation_id = f.conversation_id AND seq = f.message_seq - 1 AND role = 'user') AS question,
         (SELECT COUNT(*) FROM messages WHERE conversation_id = f.conversation_id AND seq < f.message_seq) AS message_index
  FROM feedback f JOIN messages a ON a.conversation_id = f.conversation_id AND a.seq = f.message_seq
  WHERE f.org_id = @org AND f.rating = 'down' AND f.updated_at >= @since AND f.updated_at < @until
  ORDER BY f.updated_at DESC LIMIT @limit`;

/** Each knowledge-base page (tickets left out) with the address of its first section. */
const PAGES = `
  SELECT d.title, (SELECT url FROM kb_sections s WHERE s.org_id = d.org_id AND s.doc_key = d.doc_key AND s.url != '' ORDER BY s.ord LIMIT 1) AS url
  FROM kb_documents d
  WHERE d.org_id = ? AND d.doc_key NOT LIKE 'ticket:%'
  ORDER BY d.title, d.doc_key`;

const OUTCOMES = ['answered', 'unanswered', 'escalated', 'failed', 'pending'] as const;
const minIso = (a: string, b: string) => (a < b ? a : b);

/** Parsed lists of sources by id, per database: an interned list is never changed, so they are kept. */
const listCache = new WeakMap<Db, Map<number, Source[]>>();
function parsedLists(db: Db): Map<number, Source[]> {
  let lists = listCache.get(db);
  if (!lists) listCache.set(db, (lists = new Map()));
  return lists;
}

const pageOf = (url: string) => {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
};

/** Builds the report; one synchronous read of the database. */
export function insightsReport(db: Db, options: ReportOptions): InsightsReport {
  const { orgId } = options;
  const limits = {
    groups: options.limits?.groups ?? 20,
    thumbsDown: options.limits?.thumbsDown ?? 50,
    sources: options.limits?.sources ?? 10,
    pages: options.limits?.pages ?? 50,
  };
  const since = options.since.toISOString();
  const until = options.until.toISOString();
  const params = { org: orgId, since, until };

  const days = new Map<string, DayCounts>();
  const firstDay = Date.UTC(options.since.getUTCFullYear(), options.since.getUTCMonth(), options.since.getUTCDate());
  for (let t = firstDay; t < options.until.getTime(); t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    days.set(date, { date, conversations: 0, questions: 0, answered: 0, unanswered: 0, escalated: 0, thumbs_up: 0, thumbs_down: 0 });
  }
  const totals = { conversations: 0, questions: 0, answered: 0, unanswered: 0, escalated: 0, failed: 0, pending: 0, thumbs_up: 0, thumbs_down: 0 };

  // Each question by its outcome: the answer cited sources, cited none, failed or is not there yet;
  // the question an escalated conversation ended on counts as escalated (a human took it over).
  const questionsOfDay = db.prepare(QUESTIONS_OF_DAY).pluck();
  const conversationsOfDay = db.prepare(CONVERSATIONS_OF_DAY).pluck();
  const feedbackOfDay = db.prepare(FEEDBACK_OF_DAY).pluck();
  for (const counts of days.values()) {
    const range = {
      org: orgId,
      from: counts.date === since.slice(0, 10) ? since : `${counts.date}T00:00:00.000Z`,
      to: minIso(new Date(Date.parse(`${counts.date}T00:00:00.000Z`) + DAY_MS).toISOString(), until),
    };
    counts.conversations = conversationsOfDay.get(range) as number;
    totals.conversations += counts.conversations;
    for (const rating of ['up', 'down'] as const) {
      const key = rating === 'up' ? 'thumbs_up' : 'thumbs_down';
      counts[key] = feedbackOfDay.get({ ...range, rating }) as number;
      totals[key] += counts[key];
    }
    for (const outcome of OUTCOMES) {
      const n = questionsOfDay.get({ ...range, outcome }) as number;
      if (outcome !== 'failed' && outcome !== 'pending') counts[outcome] = n;
      counts.questions += n;
      totals.questions += n;
      totals[outcome] += n;
    }
  }
  const citedLists = new Map<number, number>();
  for (const id of db.prepare(SOURCE_LISTS).pluck().all(params) as number[]) citedLists.set(id, (citedLists.get(id) ?? 0) + 1);
  const content = db.prepare('SELECT content FROM messages WHERE conversation_id = ? AND seq = ?').pluck();
  const questions = (db.prepare(UNANSWERED).raw().all({ ...params, limit: MAX_GROUPED }) as [string, number, string][]).map(([conversationId, seq, askedAt]) => ({
    text: masked(content.get(conversationId, seq) as string),
    askedAt,
  }));

  // Sections cited most: each distinct list of sources is read and parsed once (and kept: a list never changes).
  const citations = new Map<string, { title: string; url: string; citations: number }>();
  const lists = parsedLists(db);
  const sourceList = db.prepare('SELECT sources FROM insight_source_lists WHERE id = ?').pluck();
  for (const [id, n] of citedLists) {
    let sources = lists.get(id);
    if (!sources) {
      if (lists.size >= 100_000) lists.clear();
      lists.set(id, (sources = JSON.parse(sourceList.get(id) as string) as Source[]));
    }
    for (const source of sources) {
      const entry = citations.get(source.url);
      if (entry) entry.citations += n;
      else citations.set(source.url, { title: source.title, url: source.url, citations: n });
    }
  }
  const citedPages = new Set([...citations.keys()].map(pageOf));
  const uncited = (db.prepare(PAGES).all(orgId) as { title: string; url: string | null }[]).filter((p) => p.url && !citedPages.has(pageOf(p.url)));

  const grouped = groupQuestions(questions, { limit: limits.groups });

  const thumbsDown = (
    db.prepare(THUMBS_DOWN).all({ ...params, limit: limits.thumbsDown }) as {
      conversation_id: string;
      comment: string | null;
      updated_at: string;
      answer: string;
      sources: string;
      question: string | null;
      message_index: number;
    }[]
  ).map((r) => ({
    conversation_id: r.conversation_id,
    message_index: r.message_index,
    question: clip(masked(r.question ?? ''), 500),
    answer: clip(r.answer, 1000),
    comment: r.comment === null ? null : masked(r.comment),
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
      examples: g.examples.map((e) => ({ question: clip(e.text, 500), asked_at: e.askedAt })),
    })),
    unanswered_group_count: grouped.total,
    unanswered_grouped: questions.length,
    thumbs_down: thumbsDown,
    top_sources: [...citations.values()].sort((a, b) => b.citations - a.citations || a.url.localeCompare(b.url)).slice(0, limits.sources),
    uncited_pages: uncited.slice(0, limits.pages).map((p) => ({ title: p.title, url: p.url! })),
    uncited_page_count: uncited.length,
  };
}
