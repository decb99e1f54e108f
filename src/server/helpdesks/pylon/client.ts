/**
 * @module Pylon (REST, `Authorization: Bearer`): escalation is `POST /issues` with the transcript
 * and summary as escaped HTML, the requester's email and name, and the priority as Pylon's
 * words. Pylon takes no client-chosen id, so the body carries the conversation id and a retry
 * first searches the issues created since the first attempt for it. Sync reads
 * `POST /issues/search` with cursor pagination.
 */
import { IntegrationError, type CreatedTicket, type EscalationIntegration, type FollowUp, type TicketDraft } from '../types.js';
import { callJson, expectString, type HttpClientOptions } from '../http.js';
import { conversationHtml, followUpHtml, followUpMarkerHtml, ticketHtml } from '../transcript.js';

export const PYLON_API_URL = 'https://api.usepylon.com';

/** Spec priority 0 urgent … 3 low, as Pylon names it. */
export const PYLON_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;

export interface PylonOptions {
  apiKey: string;
  /** @default PYLON_API_URL */
  apiUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** When this conversation was first sent here, and whether that was an earlier call. */
  firstAttempt?: (conversationId: string) => Promise<{ at: Date; previous: boolean }>;
}

export interface PylonIssue {
  id: string;
  number?: number;
  title: string;
  body_html?: string | null;
  state: string;
  link: string;
  created_at: string;
  latest_message_time?: string | null;
  requester?: { id?: string; email?: string | null } | null;
}

/** How far before the first attempt a retry looks, for clock differences between us and Pylon. */
const CLOCK_SLACK_MS = 5 * 60_000;

export class PylonClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #http: HttpClientOptions;

  constructor(options: PylonOptions) {
    this.#base = (options.apiUrl ?? PYLON_API_URL).replace(/\/+$/, '');
    this.#headers = { authorization: `Bearer ${options.apiKey}` };
    this.#http = { label: 'Pylon', fetch: options.fetch, timeoutMs: options.timeoutMs };
  }

  async createIssue(body: Record<string, unknown>, signal?: AbortSignal): Promise<PylonIssue> {
    const { body: answer } = await callJson(`${this.#base}/issues`, { method: 'POST', headers: this.#headers, body, signal }, this.#http);
    return issueOf(answer);
  }

  /** Posts an internal note on the issue (`POST /issues/{id}/note`; never shown to the requester). */
  async createNote(issueId: string, bodyHtml: string, signal?: AbortSignal): Promise<void> {
    const { body } = await callJson(`${this.#base}/issues/${encodeURIComponent(issueId)}/note`, { method: 'POST', headers: this.#headers, body: { body_html: bodyHtml }, signal }, this.#http);
    expectString((body as { data?: { id?: unknown } }).data?.id, 'the note id', 'Pylon');
  }

  /** The HTML of every message on the issue, customer-facing and internal notes (`GET /issues/{id}/messages`). */
  async messagesHtml(issueId: string, signal?: AbortSignal): Promise<string[]> {
    const { body } = await callJson(`${this.#base}/issues/${encodeURIComponent(issueId)}/messages`, { method: 'GET', headers: this.#headers, signal }, this.#http);
    const data = (body as { data?: unknown }).data;
    if (!Array.isArray(data)) throw new IntegrationError('Pylon messages answered without data', { retryable: true });
    return data.map((m) => (m && typeof (m as { message_html?: unknown }).message_html === 'string' ? (m as { message_html: string }).message_html : ''));
  }

  /** One page of issues created after `since`. */
  async search(since: Date, cursor: string | null, signal?: AbortSignal, limit = 100): Promise<{ issues: PylonIssue[]; cursor: string | null; hasNextPage: boolean }> {
    const { body } = await callJson(
      `${this.#base}/issues/search`,
      {
        method: 'POST',
        headers: this.#headers,
        body: { filter: { field: 'created_at', operator: 'time_is_after', value: since.toISOString() }, limit, ...(cursor ? { cursor } : {}) },
        signal,
      },
      this.#http,
    );
    const page = body as { data?: unknown; pagination?: { cursor?: unknown; has_next_page?: unknown } };
    if (!Array.isArray(page.data)) throw new IntegrationError('Pylon issue search answered without data', { retryable: true });
    return {
      issues: page.data.map((d) => issueOf({ data: d })),
      cursor: typeof page.pagination?.cursor === 'string' && page.pagination.cursor ? page.pagination.cursor : null,
      hasNextPage: page.pagination?.has_next_page === true,
    };
  }

  /** The issue, or null when Pylon has no such issue (404). */
  async issue(id: string): Promise<PylonIssue | null> {
    try {
      const { body } = await callJson(`${this.#base}/issues/${encodeURIComponent(id)}`, { method: 'GET', headers: this.#headers }, this.#http);
      return issueOf(body);
    } catch (error) {
      if (error instanceof IntegrationError && error.status === 404) return null;
      throw error;
    }
  }
}

function issueOf(answer: unknown): PylonIssue {
  const data = (answer as { data?: unknown })?.data as Partial<PylonIssue> | undefined;
  if (!data || typeof data !== 'object') throw new IntegrationError('Pylon answered without an issue', { retryable: true });
  expectString(data.id, 'the issue id', 'Pylon');
  expectString(data.link, 'the issue link', 'Pylon');
  return data as PylonIssue;
}

export function createPylonIntegration(options: PylonOptions): EscalationIntegration {
  const client = new PylonClient(options);
  return {
    name: 'pylon',
    async createTicket(draft: TicketDraft, signal?: AbortSignal): Promise<CreatedTicket> {
      const attempt = await options.firstAttempt?.(draft.conversationId);
      if (attempt?.previous) {
        // An earlier attempt may have created the issue and lost the answer: find it by its marker.
        const marker = conversationHtml(draft.conversationId);
        const since = new Date(attempt.at.getTime() - CLOCK_SLACK_MS);
        let cursor: string | null = null;
        for (let page = 0; page < 50; page++) {
          const result = await client.search(since, cursor, signal);
          const found = result.issues.find((issue) => issue.body_html?.includes(marker));
          if (found) return { ticketId: found.id, ticketUrl: found.link };
          if (!result.hasNextPage || !result.cursor) break;
          cursor = result.cursor;
        }
      }
      const issue = await client.createIssue(
        {
          title: draft.title,
          body_html: ticketHtml(draft),
          requester_email: draft.customer.email,
          requester_name: draft.customer.name,
          ...(draft.priority === undefined ? {} : { priority: PYLON_PRIORITIES[draft.priority] }),
          ...(draft.labelTypeIds.length > 0 ? { tags: draft.labelTypeIds } : {}),
        },
        signal,
      );
      return { ticketId: issue.id, ticketUrl: issue.link };
    },
    async addFollowUp(followUp: FollowUp, signal?: AbortSignal): Promise<void> {
      // Pylon takes no client-chosen id for notes: a retry first looks for the note an earlier try may have added.
      if (followUp.attempt > 1) {
        const marker = followUpMarkerHtml(followUp.conversationId, followUp.seq);
        if ((await client.messagesHtml(followUp.ticketId, signal)).some((html) => html.includes(marker))) return;
      }
      await client.createNote(followUp.ticketId, followUpHtml(followUp.content, followUp.conversationId, followUp.seq), signal);
    },
  };
}
