/**
 * @module Linear (GraphQL `issueCreate`): an issue in the configured team with a Markdown
 * description, Linear's priority and the labels named by `label_type_ids`. The issue id is a
 * UUID derived from the organization and conversation, so a retry finds the issue an earlier
 * attempt created instead of making a second one. Sync reads `issues` by `updatedAt`.
 */
import { createHash } from 'node:crypto';
import { IntegrationError, type CreatedTicket, type EscalationIntegration, type FollowUp, type TicketDraft } from '../types.js';
import { expectString, graphql, type HttpClientOptions } from '../http.js';
import { followUpMarkdown, ticketMarkdown } from '../transcript.js';

export const LINEAR_API_URL = 'https://api.linear.app/graphql';

/** Spec priority 0 urgent … 3 low as Linear's 1 urgent … 4 low (Linear's 0 is "no priority"). */
export function linearPriority(priority: number | undefined): number {
  return priority === undefined ? 0 : priority + 1;
}

export interface LinearOptions {
  apiKey: string;
  teamId: string;
  /** @default LINEAR_API_URL */
  apiUrl?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface LinearIssue {
  id: string;
  identifier: string;
  title: string;
  description: string | null;
  url: string;
  priority: number;
  createdAt: string;
  updatedAt: string;
  state: { name: string };
  team: { id: string };
}

const ISSUE_PARTS = 'id identifier title description url priority createdAt updatedAt state { name } team { id }';

const ISSUE_BY_ID = `query issueById($id: ID!) {
  issues(filter: { id: { eq: $id } }, first: 1, includeArchived: true) { nodes { id identifier url } }
}`;
const ISSUE_CREATE = `mutation issueCreate($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { id identifier url } }
}`;
const COMMENT_BY_ID = `query commentById($id: ID!) { comments(filter: { id: { eq: $id } }, first: 1) { nodes { id } } }`;
const COMMENT_CREATE = `mutation commentCreate($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id } }
}`;
const ISSUES = `query issues($teamId: ID!, $since: DateTimeOrDuration!, $after: String, $first: Int!) {
  issues(filter: { team: { id: { eq: $teamId } }, updatedAt: { gt: $since } }, first: $first, after: $after, orderBy: updatedAt) {
    nodes { ${ISSUE_PARTS} }
    pageInfo { hasNextPage endCursor }
  }
}`;
const ISSUE = `query issue($id: ID!) { issues(filter: { id: { eq: $id } }, first: 1) { nodes { ${ISSUE_PARTS} } } }`;

/** A v4-shaped UUID that is the same for the same parts. */
function stableUuid(parts: string[]): string {
  const bytes = createHash('sha256').update(['support-chat', ...parts].join('\n')).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A v4-shaped UUID that is the same for the same organization and conversation. */
export function linearIssueId(orgId: string, conversationId: string): string {
  return stableUuid([orgId, conversationId]);
}

/** The comment id of a follow-up message: the same on every retry. */
export function linearCommentId(orgId: string, conversationId: string, seq: number): string {
  return stableUuid([orgId, conversationId, `message ${seq}`]);
}

export class LinearClient {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #http: HttpClientOptions;

  constructor(options: Omit<LinearOptions, 'teamId'>) {
    this.#url = options.apiUrl ?? LINEAR_API_URL;
    // Personal API keys are sent as they are; OAuth access tokens with "Bearer".
    this.#headers = { authorization: options.apiKey.startsWith('lin_oauth_') ? `Bearer ${options.apiKey}` : options.apiKey };
    this.#http = { label: 'Linear', fetch: options.fetch, timeoutMs: options.timeoutMs };
  }

  #call<T>(operationName: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return graphql<T>(this.#url, { query, variables, operationName }, this.#headers, { ...this.#http, signal });
  }

  async findIssue(id: string, signal?: AbortSignal): Promise<{ id: string; identifier: string; url: string } | null> {
    const data = await this.#call<{ issues: { nodes: { id: string; identifier: string; url: string }[] } }>('issueById', ISSUE_BY_ID, { id }, signal);
    return data.issues.nodes[0] ?? null;
  }

  async createIssue(input: Record<string, unknown>, signal?: AbortSignal): Promise<{ id: string; url: string }> {
    const data = await this.#call<{ issueCreate: { success: boolean; issue: { id: string; url: string } | null } }>('issueCreate', ISSUE_CREATE, { input }, signal);
    if (!data.issueCreate.success || !data.issueCreate.issue) throw new IntegrationError('Linear issueCreate did not succeed', { retryable: true, status: 200 });
    return { id: expectString(data.issueCreate.issue.id, 'the issue id', 'Linear'), url: expectString(data.issueCreate.issue.url, 'the issue url', 'Linear') };
  }

  async findComment(id: string, signal?: AbortSignal): Promise<boolean> {
    const data = await this.#call<{ comments: { nodes: { id: string }[] } }>('commentById', COMMENT_BY_ID, { id }, signal);
    return data.comments.nodes.length > 0;
  }

  async createComment(input: { id: string; issueId: string; body: string }, signal?: AbortSignal): Promise<void> {
    const data = await this.#call<{ commentCreate: { success: boolean; comment: { id: string } | null } }>('commentCreate', COMMENT_CREATE, { input }, signal);
    if (!data.commentCreate.success || !data.commentCreate.comment) throw new IntegrationError('Linear commentCreate did not succeed', { retryable: true, status: 200 });
  }

  /** One page of the team's issues updated after `since`. */
  async issuesUpdatedSince(teamId: string, since: string, after: string | null, first = 100): Promise<{ issues: LinearIssue[]; endCursor: string | null; hasNextPage: boolean }> {
    const data = await this.#call<{ issues: { nodes: LinearIssue[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }>('issues', ISSUES, {
      teamId,
      since,
      after,
      first,
    });
    return { issues: data.issues.nodes, endCursor: data.issues.pageInfo.endCursor, hasNextPage: data.issues.pageInfo.hasNextPage };
  }

  async issue(id: string): Promise<LinearIssue | null> {
    const data = await this.#call<{ issues: { nodes: LinearIssue[] } }>('issue', ISSUE, { id });
    return data.issues.nodes[0] ?? null;
  }
}

export function createLinearIntegration(options: LinearOptions): EscalationIntegration {
  const client = new LinearClient(options);
  return {
    name: 'linear',
    async createTicket(draft: TicketDraft, signal?: AbortSignal): Promise<CreatedTicket> {
      const id = linearIssueId(draft.orgId, draft.conversationId);
      const existing = await client.findIssue(id, signal);
      if (existing) return { ticketId: existing.id, ticketUrl: existing.url };
      const issue = await client.createIssue(
        {
          id,
          teamId: options.teamId,
          title: draft.title,
          description: ticketMarkdown(draft),
          ...(draft.priority === undefined ? {} : { priority: linearPriority(draft.priority) }),
          ...(draft.labelTypeIds.length > 0 ? { labelIds: draft.labelTypeIds } : {}),
        },
        signal,
      );
      return { ticketId: issue.id, ticketUrl: issue.url };
    },
    async addFollowUp(followUp: FollowUp, signal?: AbortSignal): Promise<void> {
      // The comment's id is chosen here, so a retry after a lost answer finds it instead of adding a second.
      const id = linearCommentId(followUp.orgId, followUp.conversationId, followUp.seq);
      if (await client.findComment(id, signal)) return;
      await client.createComment({ id, issueId: followUp.ticketId, body: followUpMarkdown(followUp.content) }, signal);
    },
  };
}
