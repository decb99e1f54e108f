/** @module Visitors' ratings of answers: one per assistant message, a later rating replacing the earlier one. */
import type { Sql } from '../store/sql.js';

export { FEEDBACK_COMMENT_MAX_LENGTH } from '../../protocol/index.js';

export type Rating = 'up' | 'down';
export const RATINGS: readonly Rating[] = ['up', 'down'];

export interface FeedbackInput {
  orgId: string;
  conversationId: string;
  /** Index in the conversation's `messages` array (as GET /v0/chat/{id} returns it); the last assistant message when absent. */
  messageIndex?: number;
  rating: Rating;
  comment?: string;
}

/** What recording a rating came to: stored, or why not. */
export type FeedbackOutcome =
  | { ok: true; messageSeq: number }
  | { ok: false; reason: 'not_found' }
  /** The conversation has no answer yet (its first turn is still processing or failed). */
  | { ok: false; reason: 'no_answer' }
  /** `message_index` is past the end or names a user message. */
  | { ok: false; reason: 'not_an_answer' };

const UPSERT = `
  INSERT INTO feedback (conversation_id, message_seq, org_id, rating, comment, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (conversation_id, message_seq) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, updated_at = excluded.updated_at`;

export class FeedbackStore {
  readonly #sql: Sql;
  readonly #now: () => number;

  constructor(sql: Sql, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
  }

  /** Records (or replaces) the rating of one answer, checking that the conversation is the organization's. */
  record(input: FeedbackInput): Promise<FeedbackOutcome> {
    return this.#sql.transaction(async (tx): Promise<FeedbackOutcome> => {
      // On PostgreSQL the conversation is kept from being deleted until the rating is stored with it.
      const share = tx.dialect === 'postgres' ? ' FOR SHARE' : '';
      if (!(await tx.get(`SELECT 1 AS found FROM conversations WHERE id = ? AND org_id = ?${share}`, [input.conversationId, input.orgId]))) return { ok: false, reason: 'not_found' };
      let seq: number;
      if (input.messageIndex === undefined) {
        const last = await tx.get<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM messages WHERE conversation_id = ? AND role = 'assistant'", [input.conversationId]);
        if (last?.seq == null) return { ok: false, reason: 'no_answer' };
        seq = last.seq;
      } else {
        const row = await tx.get<{ seq: number; role: string }>('SELECT seq, role FROM messages WHERE conversation_id = ? ORDER BY seq LIMIT 1 OFFSET ?', [input.conversationId, input.messageIndex]);
        if (!row || row.role !== 'assistant') return { ok: false, reason: 'not_an_answer' };
        seq = row.seq;
      }
      const iso = new Date(this.#now()).toISOString();
      await tx.run(UPSERT, [input.conversationId, seq, input.orgId, input.rating, input.comment ?? null, iso, iso]);
      return { ok: true, messageSeq: seq };
    });
  }
}
