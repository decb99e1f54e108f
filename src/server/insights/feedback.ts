/** @module Visitors' ratings of answers: one per assistant message, a later rating replacing the earlier one. */
import type { Db } from '../store/database.js';

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

export class FeedbackStore {
  readonly #record;
  readonly #now: () => number;

  constructor(db: Db, now: () => number = Date.now) {
    this.#now = now;
    const conversation = db.prepare('SELECT 1 FROM conversations WHERE id = ? AND org_id = ?').pluck();
    const atIndex = db.prepare('SELECT seq, role FROM messages WHERE conversation_id = ? ORDER BY seq LIMIT 1 OFFSET ?');
    const lastAnswer = db.prepare("SELECT MAX(seq) FROM messages WHERE conversation_id = ? AND role = 'assistant'").pluck();
    const upsert = db.prepare(
      `INSERT INTO feedback (conversation_id, message_seq, org_id, rating, comment, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (conversation_id, message_seq) DO UPDATE SET rating = excluded.rating, comment = excluded.comment, updated_at = excluded.updated_at`,
    );
    this.#record = db.transaction((input: FeedbackInput): FeedbackOutcome => {
      if (!conversation.get(input.conversationId, input.orgId)) return { ok: false, reason: 'not_found' };
      let seq: number;
      if (input.messageIndex === undefined) {
        const last = lastAnswer.get(input.conversationId) as number | null;
        if (last === null) return { ok: false, reason: 'no_answer' };
        seq = last;
      } else {
        const row = atIndex.get(input.conversationId, input.messageIndex) as { seq: number; role: string } | undefined;
        if (!row || row.role !== 'assistant') return { ok: false, reason: 'not_an_answer' };
        seq = row.seq;
      }
      const iso = new Date(this.#now()).toISOString();
      upsert.run(input.conversationId, seq, input.orgId, input.rating, input.comment ?? null, iso, iso);
      return { ok: true, messageSeq: seq };
    });
  }

  /** Records (or replaces) the rating of one answer, checking that the conversation is the organization's. */
  record(input: FeedbackInput): FeedbackOutcome {
    return this.#record(input);
  }
}
