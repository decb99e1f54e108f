/** @module Conversations and their messages, with the job that answers each user turn. */
import { randomUUID } from 'node:crypto';
import type { Conversation, ConversationStatus, ConversationSummary, ConversationVisitor, Message, Source } from '../../protocol/index.js';
import type { Sql } from './sql.js';

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
  visitor_id: string | null;
  visitor_email: string | null;
  visitor_name: string | null;
  visitor_verified: number | boolean | null;
}

/** Longest title of a listed conversation (its first question, shortened), in characters. */
const TITLE_MAX = 80;

interface MessageRow {
  role: 'user' | 'assistant';
  content: string;
  sources: string;
  /** 1 for an uncertain assistant message; 0 or null (stored before the field) otherwise. */
  is_uncertain: number | string | null;
}

export interface ConversationRecord {
  id: string;
  orgId: string;
  status: ConversationStatus;
  createdAt: string;
  updatedAt: string;
  escalation: { state: 'pending' | 'done' | null; claimedAt: number | null; integration: string | null; ticketId: string | null; ticketUrl: string | null };
  /** Who the conversation belongs to, when its first message said so. */
  visitor: ConversationVisitor | null;
}

function toVisitor(row: ConversationRow): ConversationVisitor | null {
  if (row.visitor_id === null || row.visitor_id === undefined) return null;
  const visitor: ConversationVisitor = { id: row.visitor_id, verified: Boolean(Number(row.visitor_verified)) };
  if (row.visitor_email) visitor.email = row.visitor_email;
  if (row.visitor_name) visitor.name = row.visitor_name;
  return visitor;
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
    visitor: toVisitor(row),
  };
}

/** Where a conversation was started: `chat` (`POST /v0/chat`) or `mcp` (the MCP tool `ask`); see insights/channels.ts. */
export type Channel = 'chat' | 'mcp';

/**
 * Where a question was asked from (`context` of `POST /v0/chat`): the page (its address without
 * query or fragment) and its title, kept with the question; and text the visitor selected there,
 * read with that question only.
 */
export interface QuestionContext {
  pageUrl?: string;
  pageTitle?: string;
  selection?: string;
  /** Where a new conversation is started (kept on the conversation for the insights report). @default 'chat' */
  channel?: Channel;
}

export type SendOutcome = { ok: true; conversationId: string } | { ok: false; reason: 'not_found' | 'processing' | 'full' };

export class ConversationStore {
  readonly #sql: Sql;
  readonly #now: () => number;
  /** Serialized conversations by id, valid while `updated_at` is unchanged (polling reads the same one often). */
  readonly #wire = new Map<string, { updatedAt: string; status: string; json: string }>();
  /** SQLite only: records read, by id, valid while the database is unchanged (see ChangeTracker). */
  readonly #records = new Map<string, { orgId: string; record: ConversationRecord | null; stamp: number }>();

  constructor(sql: Sql, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
  }

  /**
   * The conversation when it exists in `orgId`; another organization's is treated as absent.
   * Answered without waiting when SQLite shows nothing changed since it was last read.
   */
  get(orgId: string, id: string): ConversationRecord | null | Promise<ConversationRecord | null> {
    const changes = this.#sql.changes;
    if (!changes) return this.#read(orgId, id, 0);
    const stamp = changes.stamp();
    const cached = this.#records.get(id);
    if (cached && cached.stamp === stamp && cached.orgId === orgId) return cached.record;
    return this.#read(orgId, id, stamp);
  }

  async #read(orgId: string, id: string, stamp: number): Promise<ConversationRecord | null> {
    const row = await this.#sql.get<ConversationRow>('SELECT * FROM conversations WHERE id = ? AND org_id = ?', [id, orgId]);
    const record = row ? toRecord(row) : null;
    if (this.#sql.changes) {
      if (this.#records.size >= 10_000) this.#records.clear();
      this.#records.set(id, { orgId, record, stamp });
    }
    return record;
  }

  async messages(id: string): Promise<Message[]> {
    const rows = await this.#sql.all<MessageRow>('SELECT role, content, sources, is_uncertain FROM messages WHERE conversation_id = ? ORDER BY seq', [id]);
    return rows.map((row): Message => {
      const sources = JSON.parse(row.sources) as Source[];
      // Every assistant message says whether it is sure (PostgreSQL reads a BIGINT as text).
      if (row.role === 'assistant') return { role: 'assistant', content: row.content, sources, is_uncertain: Number(row.is_uncertain) === 1 };
      return { role: 'user', content: row.content, sources };
    });
  }

  /** Where the conversation's last question was asked from, and what the visitor selected for it (see `QuestionContext`). */
  async questionContext(id: string): Promise<QuestionContext> {
    const row = await this.#sql.get<{ page_url: string | null; page_title: string | null; selection: string | null }>(
      "SELECT page_url, page_title, selection FROM messages WHERE conversation_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1",
      [id],
    );
    const context: QuestionContext = {};
    if (row?.page_url) context.pageUrl = row.page_url;
    if (row?.page_title) context.pageTitle = row.page_title;
    if (row?.selection) context.selection = row.selection;
    return context;
  }

  /** The wire object of GET /v0/chat/{id}. */
  async toWire(record: ConversationRecord): Promise<Conversation> {
    const wire: Conversation = {
      id: record.id,
      status: record.status,
      messages: await this.messages(record.id),
      created_at: record.createdAt,
      updated_at: record.updatedAt,
    };
    if (record.visitor) wire.visitor = record.visitor;
    return wire;
  }

  /**
   * One visitor's conversations in `orgId`, most recently active first, with their first question
   * as title. With `verified`, only those of a verified (true) or anonymous (false) visitor of
   * that id: the two are apart, whichever proxy of the organization started them.
   */
  async listByVisitor(orgId: string, visitorId: string, limit: number, verified?: boolean): Promise<ConversationSummary[]> {
    const rows = await this.#sql.all<{ id: string; status: ConversationStatus; created_at: string; updated_at: string; first: string | null }>(
      `SELECT c.id, c.status, c.created_at, c.updated_at,
              (SELECT m.content FROM messages m WHERE m.conversation_id = c.id AND m.seq = 1) AS first
       FROM conversations c WHERE c.org_id = ? AND c.visitor_id = ?${verified === undefined ? '' : ' AND COALESCE(c.visitor_verified, 0) = ?'} ORDER BY c.updated_at DESC, c.id DESC LIMIT ?`,
      verified === undefined ? [orgId, visitorId, limit] : [orgId, visitorId, verified ? 1 : 0, limit],
    );
    return rows.map((row) => {
      const summary: ConversationSummary = { id: row.id, status: row.status, created_at: row.created_at, updated_at: row.updated_at };
      const title = row.first?.replace(/\s+/g, ' ').trim();
      if (title) summary.title = title.length <= TITLE_MAX ? title : `${title.slice(0, TITLE_MAX - 1).trimEnd()}…`;
      return summary;
    });
  }

  /**
   * Deletes every conversation of one visitor in `orgId` and everything derived from them, now
   * (a data-subject request), with their in-memory copies. Returns the ids deleted.
   */
  async deleteByVisitor(orgId: string, visitorId: string): Promise<string[]> {
    // Their Idempotency-Key responses go with them (they hold the messages' text), as with `delete`.
    const rows = await this.#sql.transaction(async (tx) => {
      const deleted = await tx.all<{ id: string }>('DELETE FROM conversations WHERE org_id = ? AND visitor_id = ? RETURNING id', [orgId, visitorId]);
      for (const row of deleted) await tx.run('DELETE FROM idempotency_keys WHERE conversation_id = ?', [row.id]);
      return deleted;
    });
    for (const row of rows) this.#forget(row.id);
    if (rows.length > 0) this.#sql.scrubSoon?.();
    return rows.map((row) => row.id);
  }

  /** The wire object serialized, reusing the last serialization while the conversation is unchanged. */
  toWireJson(record: ConversationRecord): string | Promise<string> {
    const cached = this.#wire.get(record.id);
    if (cached && cached.updatedAt === record.updatedAt && cached.status === record.status) return cached.json;
    return this.toWire(record).then((wire) => {
      const json = JSON.stringify(wire);
      if (this.#wire.size >= 10_000) this.#wire.clear();
      this.#wire.set(record.id, { updatedAt: record.updatedAt, status: record.status, json });
      return json;
    });
  }

  /**
   * Appends a user message and queues the job that answers it, in one transaction.
   * Starts a new conversation when `conversationId` is undefined; refuses one that already holds
   * `maxTurns` user messages. `inTransaction` runs inside the same transaction once the message is
   * stored (work that must be recorded with the message, or not at all), with the transaction's handle.
   */
  send(
    orgId: string,
    message: string,
    conversationId: string | undefined,
    maxTurns: number,
    inTransaction?: (tx: Sql, id: string) => Promise<void>,
    visitor?: ConversationVisitor,
    context: QuestionContext = {},
  ): Promise<SendOutcome> {
    return this.#sql.transaction(async (tx) => {
      const outcome = await this.#sendIn(tx, orgId, message, conversationId, maxTurns, visitor, context);
      if (outcome.ok) await inTransaction?.(tx, outcome.conversationId);
      return outcome;
    });
  }

  async #sendIn(
    tx: Sql,
    orgId: string,
    message: string,
    conversationId: string | undefined,
    maxTurns: number,
    visitor: ConversationVisitor | undefined,
    context: QuestionContext,
  ): Promise<SendOutcome> {
    const iso = new Date(this.#now()).toISOString();
    let id = conversationId;
    if (id === undefined) {
      id = `conv_${randomUUID().replaceAll('-', '')}`;
      await tx.run(
        "INSERT INTO conversations (id, org_id, status, created_at, updated_at, visitor_id, visitor_email, visitor_name, visitor_verified, channel) VALUES (?, ?, 'processing', ?, ?, ?, ?, ?, ?, ?)",
        [id, orgId, iso, iso, visitor?.id ?? null, visitor?.email ?? null, visitor?.name ?? null, visitor ? (visitor.verified ? 1 : 0) : null, context.channel ?? 'chat'],
      );
    } else {
      // The row is locked until commit (PostgreSQL), so two follow-ups racing on one conversation queue one answer, not two.
      const row = await tx.get<ConversationRow>(`SELECT * FROM conversations WHERE id = ? AND org_id = ?${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [id, orgId]);
      if (!row) return { ok: false, reason: 'not_found' };
      // A visitor's follow-up reaches only a conversation of theirs (or one that names nobody).
      if (visitor && row.visitor_id !== null && (row.visitor_id !== visitor.id || Boolean(Number(row.visitor_verified)) !== visitor.verified)) {
        return { ok: false, reason: 'not_found' };
      }
      if (row.status === 'processing') return { ok: false, reason: 'processing' };
      const turns = await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND role = 'user'", [id]);
      if (turns!.n >= maxTurns) return { ok: false, reason: 'full' };
      await tx.run("UPDATE conversations SET status = 'processing', updated_at = ? WHERE id = ?", [iso, id]);
    }
    await tx.run(
      `INSERT INTO messages (conversation_id, seq, role, content, sources, created_at, page_url, page_title, selection)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, 'user', ?, '[]', ?, ?, ?, ? FROM messages WHERE conversation_id = ?`,
      [id, message, iso, context.pageUrl ?? null, context.pageTitle ?? null, context.selection ?? null, id],
    );
    await tx.run("INSERT INTO jobs (conversation_id, org_id, state, attempts, run_after, created_at, updated_at) VALUES (?, ?, 'queued', 0, clock_ms(), clock_ms(), clock_ms())", [id, orgId]);
    return { ok: true, conversationId: id };
  }

  /**
   * Deletes one conversation of `orgId` and everything derived from it, now: messages, answer
   * jobs, feedback and question rows go with it (`ON DELETE CASCADE`), the responses stored for
   * its `Idempotency-Key`s (they hold its id and ticket link), and this store's in-memory copies.
   * On SQLite the freed pages are zeroed (`secure_delete`) and the write-ahead log is checkpointed
   * and truncated soon after, so the text is not left in the files. Returns false when the
   * organization has no such conversation.
   */
  async delete(orgId: string, id: string): Promise<boolean> {
    const deleted = await this.#sql.transaction(async (tx) => {
      if ((await tx.run('DELETE FROM conversations WHERE id = ? AND org_id = ?', [id, orgId])) !== 1) return false;
      await tx.run('DELETE FROM idempotency_keys WHERE conversation_id = ?', [id]);
      return true;
    });
    if (deleted) {
      this.#forget(id);
      this.#sql.scrubSoon?.();
    }
    return deleted;
  }

  /**
   * Deletes up to `limit` of the organization's conversations whose last activity is before
   * `before` (oldest first), in one statement, with their in-memory copies. Returns how many.
   */
  async deleteExpired(orgId: string, before: string, limit: number): Promise<number> {
    const rows = await this.#sql.all<{ id: string }>(
      'DELETE FROM conversations WHERE id IN (SELECT id FROM conversations WHERE org_id = ? AND updated_at < ? ORDER BY updated_at LIMIT ?) RETURNING id',
      [orgId, before, limit],
    );
    for (const row of rows) {
      await this.#sql.run('DELETE FROM idempotency_keys WHERE conversation_id = ?', [row.id]);
      this.#forget(row.id);
    }
    return rows.length;
  }

  #forget(id: string): void {
    this.#records.delete(id);
    this.#wire.delete(id);
  }

  /**
   * Claims the one escalation of a conversation. Returns the record as it was when the claim
   * failed (processing, already escalated, or another claim in progress), or null on success.
   * One conditional UPDATE: of any number of racing claims, on any number of processes, one wins.
   * A claim older than `staleMs` (its process died) may be taken over; integrations are idempotent per conversation.
   */
  async claimEscalation(orgId: string, id: string, staleMs: number): Promise<{ claimed: true } | { claimed: false; record: ConversationRecord | null }> {
    // On the database's clock: the processes comparing claims may run on different machines.
    const changed = await this.#sql.run(
      `UPDATE conversations SET escalation_state = 'pending', escalation_claimed_at = clock_ms()
       WHERE id = ? AND org_id = ? AND status != 'processing'
         AND (escalation_state IS NULL OR (escalation_state = 'pending' AND escalation_claimed_at < clock_ms() - ?))`,
      [id, orgId, staleMs],
    );
    if (changed === 1) return { claimed: true };
    return { claimed: false, record: await this.get(orgId, id) };
  }

  async completeEscalation(id: string, ticket: { integration: string; ticketId: string; ticketUrl: string }): Promise<void> {
    await this.#sql.run(
      `UPDATE conversations SET escalation_state = 'done', ticket_integration = ?, ticket_id = ?, ticket_url = ?, updated_at = ?
       WHERE id = ?`,
      [ticket.integration, ticket.ticketId, ticket.ticketUrl, new Date(this.#now()).toISOString(), id],
    );
  }

  async releaseEscalation(id: string): Promise<void> {
    await this.#sql.run("UPDATE conversations SET escalation_state = NULL, escalation_claimed_at = NULL WHERE id = ? AND escalation_state = 'pending'", [id]);
  }
}
