/** @module Conversations and their messages in SQLite, with the job that answers each user turn. */
import { randomUUID } from 'node:crypto';
import type { Conversation, ConversationStatus, Message, Source } from '../../protocol/index.js';
import { changeTracker, type ChangeTracker, type Db } from './database.js';

interface ConversationRow {
  id: string;
  org_id: string;
  status: ConversationStatus;
  created_at: string;
  updated_at: string;
  escalation_state: 'pending' | 'done' | null;
  escalation_claimed_at: number | null;
  ticket_integration: string | null;
  ticket_id: string | null;
  ticket_url: string | null;
}

interface MessageRow {
  role: 'user' | 'assistant';
  content: string;
  sources: string;
}

export interface ConversationRecord {
  id: string;
  orgId: string;
  status: ConversationStatus;
  createdAt: string;
  updatedAt: string;
  escalation: { state: 'pending' | 'done' | null; claimedAt: number | null; integration: string | null; ticketId: string | null; ticketUrl: string | null };
}

function toRecord(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    escalation: {
      state: row.escalation_state,
      claimedAt: row.escalation_claimed_at,
      integration: row.ticket_integration,
      ticketId: row.ticket_id,
      ticketUrl: row.ticket_url,
    },
  };
}

export type SendOutcome = { ok: true; conversationId: string } | { ok: false; reason: 'not_found' | 'processing' | 'full' };

export class ConversationStore {
  readonly #db: Db;
  readonly #now: () => number;
  readonly #get;
  readonly #messages;
  /** Statements of `send`, prepared once: preparing costs more than running them. */
  readonly #insertConversation;
  readonly #reopen;
  readonly #nextSeq;
  readonly #insertUserMessage;
  readonly #insertJob;
  readonly #userTurns;
  readonly #send;
  /** Serialized conversations by id, valid while `updated_at` is unchanged (polling reads the same one often). */
  readonly #wire = new Map<string, { updatedAt: string; status: string; json: string }>();
  readonly #changes: ChangeTracker;
  /** Records read, by id, valid while the database is unchanged (see ChangeTracker). */
  readonly #records = new Map<string, { orgId: string; record: ConversationRecord | null; stamp: number }>();

  constructor(db: Db, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
    this.#changes = changeTracker(db);
    this.#get = db.prepare('SELECT * FROM conversations WHERE id = ? AND org_id = ?');
    this.#messages = db.prepare('SELECT role, content, sources FROM messages WHERE conversation_id = ? ORDER BY seq');
    this.#insertConversation = db.prepare("INSERT INTO conversations (id, org_id, status, created_at, updated_at) VALUES (?, ?, 'processing', ?, ?)");
    this.#reopen = db.prepare("UPDATE conversations SET status = 'processing', updated_at = ? WHERE id = ?");
    this.#nextSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM messages WHERE conversation_id = ?').pluck();
    this.#insertUserMessage = db.prepare("INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, ?, 'user', ?, '[]', ?)");
    this.#insertJob = db.prepare(
      "INSERT INTO jobs (conversation_id, org_id, state, attempts, run_after, created_at, updated_at) VALUES (?, ?, 'queued', 0, ?, ?, ?)",
    );
    this.#userTurns = db.prepare("SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND role = 'user'").pluck();
    this.#send = db.transaction((orgId: string, message: string, conversationId: string | undefined, maxTurns: number, inTransaction?: (id: string) => void): SendOutcome => {
      const outcome = this.#sendNow(orgId, message, conversationId, maxTurns);
      if (outcome.ok) inTransaction?.(outcome.conversationId);
      return outcome;
    });
  }

  /** The conversation when it exists in `orgId`; another organization's is treated as absent. */
  get(orgId: string, id: string): ConversationRecord | null {
    const stamp = this.#changes.stamp();
    const cached = this.#records.get(id);
    if (cached && cached.stamp === stamp && cached.orgId === orgId) return cached.record;
    const row = this.#get.get(id, orgId) as ConversationRow | undefined;
    const record = row ? toRecord(row) : null;
    if (this.#records.size >= 10_000) this.#records.clear();
    this.#records.set(id, { orgId, record, stamp });
    return record;
  }

  messages(id: string): Message[] {
    return (this.#messages.all(id) as MessageRow[]).map((row) => ({
      role: row.role,
      content: row.content,
      sources: JSON.parse(row.sources) as Source[],
    }));
  }

  /** The wire object of GET /v0/chat/{id}. */
  toWire(record: ConversationRecord): Conversation {
    return {
      id: record.id,
      status: record.status,
      messages: this.messages(record.id),
      created_at: record.createdAt,
      updated_at: record.updatedAt,
    };
  }

  /** The wire object serialized, reusing the last serialization while the conversation is unchanged. */
  toWireJson(record: ConversationRecord): string {
    const cached = this.#wire.get(record.id);
    if (cached && cached.updatedAt === record.updatedAt && cached.status === record.status) return cached.json;
    const json = JSON.stringify(this.toWire(record));
    if (this.#wire.size >= 10_000) this.#wire.clear();
    this.#wire.set(record.id, { updatedAt: record.updatedAt, status: record.status, json });
    return json;
  }

  /**
   * Appends a user message and queues the job that answers it, in one transaction.
   * Starts a new conversation when `conversationId` is undefined; refuses one that already holds
   * `maxTurns` user messages. `inTransaction` runs inside the same transaction once the message is
   * stored (work that must be recorded with the message, or not at all).
   */
  send(orgId: string, message: string, conversationId: string | undefined, maxTurns: number, inTransaction?: (id: string) => void): SendOutcome {
    return this.#send(orgId, message, conversationId, maxTurns, inTransaction);
  }

  #sendNow(orgId: string, message: string, conversationId: string | undefined, maxTurns: number): SendOutcome {
    const now = this.#now();
    const iso = new Date(now).toISOString();
    let id = conversationId;
    if (id === undefined) {
      id = `conv_${randomUUID().replaceAll('-', '')}`;
      this.#insertConversation.run(id, orgId, iso, iso);
    } else {
      const row = this.#get.get(id, orgId) as ConversationRow | undefined;
      if (!row) return { ok: false, reason: 'not_found' };
      if (row.status === 'processing') return { ok: false, reason: 'processing' };
      if ((this.#userTurns.get(id) as number) >= maxTurns) return { ok: false, reason: 'full' };
      this.#reopen.run(iso, id);
    }
    const seq = this.#nextSeq.get(id) as number;
    this.#insertUserMessage.run(id, seq, message, iso);
    this.#insertJob.run(id, orgId, now, now, now);
    return { ok: true, conversationId: id };
  }

  /**
   * Deletes one conversation of `orgId` and everything derived from it, now: messages, answer
   * jobs, feedback and question rows go with it (`ON DELETE CASCADE`), and so do this store's
   * in-memory copies. Returns false when the organization has no such conversation.
   */
  delete(orgId: string, id: string): boolean {
    const deleted = this.#db.prepare('DELETE FROM conversations WHERE id = ? AND org_id = ?').run(id, orgId).changes === 1;
    if (deleted) this.#forget(id);
    return deleted;
  }

  /**
   * Deletes up to `limit` of the organization's conversations whose last activity is before
   * `before` (oldest first), in one transaction, with their in-memory copies. Returns how many.
   */
  deleteExpired(orgId: string, before: string, limit: number): number {
    const ids = this.#db
      .prepare('DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE org_id = ? AND updated_at < ? ORDER BY updated_at LIMIT ?) RETURNING id')
      .pluck()
      .all(orgId, before, limit) as string[];
    for (const id of ids) this.#forget(id);
    return ids.length;
  }

  #forget(id: string): void {
    this.#records.delete(id);
    this.#wire.delete(id);
  }

  /**
   * Claims the one escalation of a conversation. Returns the record as it was when the claim
   * failed (processing, already escalated, or another claim in progress), or null on success.
   * A claim older than `staleMs` (its process died) may be taken over; integrations are idempotent per conversation.
   */
  claimEscalation(orgId: string, id: string, staleMs: number): { claimed: true } | { claimed: false; record: ConversationRecord | null } {
    const now = this.#now();
    const result = this.#db
      .prepare(
        `UPDATE conversations SET escalation_state = 'pending', escalation_claimed_at = ?
         WHERE id = ? AND org_id = ? AND status != 'processing'
           AND (escalation_state IS NULL OR (escalation_state = 'pending' AND escalation_claimed_at < ?))`,
      )
      .run(now, id, orgId, now - staleMs);
    if (result.changes === 1) return { claimed: true };
    return { claimed: false, record: this.get(orgId, id) };
  }

  completeEscalation(id: string, ticket: { integration: string; ticketId: string; ticketUrl: string }): void {
    this.#db
      .prepare(
        `UPDATE conversations SET escalation_state = 'done', ticket_integration = ?, ticket_id = ?, ticket_url = ?, updated_at = ?
         WHERE id = ?`,
      )
      .run(ticket.integration, ticket.ticketId, ticket.ticketUrl, new Date(this.#now()).toISOString(), id);
  }

  releaseEscalation(id: string): void {
    this.#db.prepare("UPDATE conversations SET escalation_state = NULL, escalation_claimed_at = NULL WHERE id = ? AND escalation_state = 'pending'").run(id);
  }
}
