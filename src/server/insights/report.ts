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

/** Every question of the period with its reply: one row per user message (the reply, when any, is the next message). */
const QUESTIONS = `
  SELECT u.conversation_id, u.created_at, a.sources, c.status, c.escalation_state,
         CASE WHEN a.sources IS NULL OR a.sources = '[]' THEN u.content END AS content
  FROM conversations c
  JOIN messages u ON u.conversation_id = c.id AND u.role = 'user'
  LEFT JOIN messages a ON a.conversation_id = u.conversation_id AND a.seq = u.seq + 1
  WHERE c.org_id = @org AND c.updated_at >= @since AND c.created_at < @until
    AND u.created_at >= @since AND u.created_at < @until
  ORDER BY u.conversation_id, u.seq`;

const CONVERSATIONS_PER_DAY = `
  SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS n FROM conversations
  WHERE org_id = @org AND updated_at >= @since AND created_at >= @since AND created_at < @until
  GROUP BY day`;

const FEEDBACK_PER_DAY = `
  SELECT substr(updated_at, 1, 10) AS day, rating, COUNT(*) AS n FROM feedback
  WHERE org_id = @org AND updated_at >= @since AND updated_at < @until
  GROUP BY day, rating`;

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
  const day = (iso: string) => days.get(iso.slice(0, 10))!;
  const totals = { conversations: 0, questions: 0, answered: 0, unanswered: 0, escalated: 0, failed: 0, pending: 0, thumbs_up: 0, thumbs_down: 0 };

  for (const row of db.prepare(CONVERSATIONS_PER_DAY).all(params) as { day: string; n: number }[]) {
    day(row.day).conversations += row.n;
    totals.conversations += row.n;
  }
  for (const row of db.prepare(FEEDBACK_PER_DAY).all(params) as { day: string; rating: 'up' | 'down'; n: number }[]) {
    const key = row.rating === 'up' ? 'thumbs_up' : 'thumbs_down';
    day(row.day)[key] += row.n;
    totals[key] += row.n;
  }

  // One pass over the questions. The last question of an escalated conversation counts as escalated
  // (a human took it over); every other question by its reply: sources cited, none, or no reply.
  const unanswered: { text: string; askedAt: string }[] = [];
  const citedLists = new Map<string, number>();
  type Row = [conversationId: string, askedAt: string, sources: string | null, status: string, escalation: string | null, content: string | null];
  let previous: Row | undefined;
  const classify = (row: Row, last: boolean) => {
    const [, askedAt, sources, status, escalation, content] = row;
    const counts = day(askedAt);
    counts.questions++;
    totals.questions++;
    if (last && escalation === 'done') {
      counts.escalated++;
      totals.escalated++;
    } else if (sources === null) {
      if (last && status === 'processing') totals.pending++;
      else totals.failed++;
      return;
    } else if (sources === '[]') {
      counts.unanswered++;
      totals.unanswered++;
    } else {
      counts.answered++;
      totals.answered++;
    }
    if (sources === '[]' && content !== null) unanswered.push({ text: masked(content), askedAt });
    if (sources !== null && sources !== '[]') citedLists.set(sources, (citedLists.get(sources) ?? 0) + 1);
  };
  for (const row of db.prepare(QUESTIONS).raw().iterate(params) as IterableIterator<Row>) {
    if (previous) classify(previous, previous[0] !== row[0]);
    previous = row;
  }
  if (previous) classify(previous, true);

  // Sections cited most: each distinct list of sources is parsed once.
  const citations = new Map<string, { title: string; url: string; citations: number }>();
  for (const [list, n] of citedLists) {
    for (const source of JSON.parse(list) as Source[]) {
      const entry = citations.get(source.url);
      if (entry) entry.citations += n;
      else citations.set(source.url, { title: source.title, url: source.url, citations: n });
    }
  }
  const citedPages = new Set([...citations.keys()].map(pageOf));
  const uncited = (db.prepare(PAGES).all(orgId) as { title: string; url: string | null }[]).filter((p) => p.url && !citedPages.has(pageOf(p.url)));

  unanswered.sort((a, b) => (a.askedAt < b.askedAt ? 1 : a.askedAt > b.askedAt ? -1 : 0));
  const grouped = groupQuestions(unanswered, { limit: limits.groups });

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
    thumbs_down: thumbsDown,
    top_sources: [...citations.values()].sort((a, b) => b.citations - a.citations || a.url.localeCompare(b.url)).slice(0, limits.sources),
    uncited_pages: uncited.slice(0, limits.pages).map((p) => ({ title: p.title, url: p.url! })),
    uncited_page_count: uncited.length,
  };
}
