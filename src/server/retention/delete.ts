/** @module Deleting conversations with everything derived from them: messages, answer jobs and feedback (cascaded by the schema). */
import type { Db } from '../store/database.js';

/**
 * Deletes one conversation of `orgId` and everything derived from it, now. Messages, answer jobs
 * and feedback go with it (`ON DELETE CASCADE`); a worker still answering it finds its job gone and
 * stores nothing. Returns false when the organization has no such conversation.
 *
 * @example
 * if (!deleteConversation(db, 'acme', 'conv_123')) throw notFound();
 */
export function deleteConversation(db: Db, orgId: string, id: string): boolean {
  return db.prepare('DELETE FROM conversations WHERE id = ? AND org_id = ?').run(id, orgId).changes === 1;
}

/**
 * Deletes up to `limit` of the organization's conversations whose last activity is before `before`
 * (oldest first), in one transaction. Returns how many were deleted.
 */
export function deleteExpiredBatch(db: Db, orgId: string, before: string, limit: number): number {
  return db
    .prepare('DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE org_id = ? AND updated_at < ? ORDER BY updated_at LIMIT ?)')
    .run(orgId, before, limit).changes;
}
