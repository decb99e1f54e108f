/**
 * @module Plain (GraphQL, `Authorization: Bearer`): escalation creates a thread for the customer,
 * upserted by email; the thread's `externalId` is the conversation id, looked up before creating
 * so that a retry never makes a second thread. Sync reads threads with Relay pagination.
 */
import { IntegrationError, type CreatedTicket, type EscalationIntegration, type FollowUp, type TicketDraft } from '../types.js';
import { expectString, graphql, type HttpClientOptions } from '../http.js';
import { messageMarkdown, splitText, VERIFIED_EMAIL_NOTE } from '../transcript.js';

export const PLAIN_API_URL = 'https://core-api.uk.plain.com/graphql/v1';
/** Plain's limit on one text component. */
export const PLAIN_COMPONENT_MAX = 5000;

export interface PlainOptions {
  apiKey: string;
  /** @default PLAIN_API_URL */
  apiUrl?: string;
  /** For ticket links; looked up with `myWorkspace` when absent. */
  workspaceId?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** A thread as sync and webhooks see it. */
export interface PlainThread {
  id: string;
  externalId: string | null;
  title: string;
  previewText: string | null;
  status: string;
  priority: number;
  customer: { id: string; fullName: string; email: { email: string } | null };
  createdAt: { iso8601: string };
  updatedAt: { iso8601: string };
}

interface MutationError {
  message: string;
  type: string;
  code: string;
  fields: { field: string; message: string; type: string }[];
}

const MUTATION_ERROR = 'error { message type code fields { field message type } }';
const THREAD_PARTS = 'id externalId title previewText status priority customer { id fullName email { email } } createdAt { iso8601 } updatedAt { iso8601 }';

const UPSERT_CUSTOMER = `mutation upsertCustomer($input: UpsertCustomerInput!) {
  upsertCustomer(input: $input) { result customer { id } ${MUTATION_ERROR} }
}`;
const THREAD_BY_EXTERNAL_ID = `query threadByExternalId($customerId: ID!, $externalId: ID!) {
  threadByExternalId(customerId: $customerId, externalId: $externalId) { id }
}`;
const CREATE_THREAD = `mutation createThread($input: CreateThreadInput!) {
  createThread(input: $input) { thread { id } ${MUTATION_ERROR} }
}`;
const CREATE_THREAD_EVENT = `mutation createThreadEvent($input: CreateThreadEventInput!) {
  createThreadEvent(input: $input) { threadEvent { id } ${MUTATION_ERROR} }
}`;
const MY_WORKSPACE = `query myWorkspace { myWorkspace { id } }`;
const THREADS = `query threads($first: Int!, $after: String) {
  threads(first: $first, after: $after, sortBy: { field: CREATED_AT, direction: ASC }) {
    edges { cursor node { ${THREAD_PARTS} } }
    pageInfo { hasNextPage endCursor }
  }
}`;
const THREAD = `query thread($threadId: ID!) { thread(threadId: $threadId) { ${THREAD_PARTS} } }`;

/** Where a thread opens in Plain's app. */
export function plainThreadUrl(workspaceId: string, threadId: string): string {
  return `https://app.plain.com/workspace/${encodeURIComponent(workspaceId)}/thread/${encodeURIComponent(threadId)}`;
}

export class PlainClient {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #http: HttpClientOptions;
  #workspaceId: string | undefined;

  constructor(options: PlainOptions) {
    this.#url = options.apiUrl ?? PLAIN_API_URL;
    this.#headers = { authorization: `Bearer ${options.apiKey}` };
    this.#http = { label: 'Plain', fetch: options.fetch, timeoutMs: options.timeoutMs };
    this.#workspaceId = options.workspaceId;
  }

  #call<T>(operationName: string, query: string, variables: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    return graphql<T>(this.#url, { query, variables, operationName }, this.#headers, { ...this.#http, signal });
  }

  async upsertCustomer(email: string, fullName: string, signal?: AbortSignal): Promise<string> {
    const data = await this.#call<{ upsertCustomer: { customer: { id: string } | null; error: MutationError | null } }>(
      'upsertCustomer',
      UPSERT_CUSTOMER,
      {
        input: {
          identifier: { emailAddress: email },
          onCreate: { fullName, email: { email, isVerified: false } },
          onUpdate: { fullName: { value: fullName } },
        },
      },
      signal,
    );
    const out = data.upsertCustomer;
    if (out.error) throw mutationError('upsertCustomer', out.error);
    return expectString(out.customer?.id, 'the customer id', 'Plain');
  }

  async threadByExternalId(customerId: string, externalId: string, signal?: AbortSignal): Promise<string | null> {
    const data = await this.#call<{ threadByExternalId: { id: string } | null }>('threadByExternalId', THREAD_BY_EXTERNAL_ID, { customerId, externalId }, signal);
    return data.threadByExternalId?.id ?? null;
  }

  async createThread(input: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const data = await this.#call<{ createThread: { thread: { id: string } | null; error: MutationError | null } }>('createThread', CREATE_THREAD, { input }, signal);
    const out = data.createThread;
    if (out.error) throw mutationError('createThread', out.error);
    return expectString(out.thread?.id, 'the thread id', 'Plain');
  }

  /**
   * Adds an event to the thread's timeline (visible to the team only). `externalId` makes it
   * once-only: Plain refuses a second event with the same one, which counts as already added.
   */
  async createThreadEvent(input: { threadId: string; title: string; components: { componentText: { text: string } }[]; externalId: string }, signal?: AbortSignal): Promise<void> {
    const data = await this.#call<{ createThreadEvent: { threadEvent: { id: string } | null; error: MutationError | null } }>('createThreadEvent', CREATE_THREAD_EVENT, { input }, signal);
    const out = data.createThreadEvent;
    if (out.error) {
      if (out.error.fields.some((f) => f.field === 'externalId')) return;
      throw mutationError('createThreadEvent', out.error);
    }
    expectString(out.threadEvent?.id, 'the thread event id', 'Plain');
  }

  async workspaceId(signal?: AbortSignal): Promise<string> {
    if (this.#workspaceId) return this.#workspaceId;
    const data = await this.#call<{ myWorkspace: { id: string } | null }>('myWorkspace', MY_WORKSPACE, {}, signal);
    this.#workspaceId = expectString(data.myWorkspace?.id, 'the workspace id', 'Plain');
    return this.#workspaceId;
  }

  async threadUrl(threadId: string, signal?: AbortSignal): Promise<string> {
    return plainThreadUrl(await this.workspaceId(signal), threadId);
  }

  /** One page of threads, oldest first. */
  async threads(after: string | null, first = 50): Promise<{ threads: PlainThread[]; endCursor: string | null; hasNextPage: boolean }> {
    const data = await this.#call<{
      threads: { edges: { cursor: string; node: PlainThread }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    }>('threads', THREADS, { first, after });
    return { threads: data.threads.edges.map((e) => e.node), endCursor: data.threads.pageInfo.endCursor, hasNextPage: data.threads.pageInfo.hasNextPage };
  }

  async thread(threadId: string): Promise<PlainThread | null> {
    const data = await this.#call<{ thread: PlainThread | null }>('thread', THREAD, { threadId });
    return data.thread;
  }
}

function mutationError(operation: string, error: MutationError): IntegrationError {
  const fields = error.fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  // FORBIDDEN and similar mean the API key lacks a permission: a retry cannot fix that.
  const permanent = error.type === 'FORBIDDEN' || error.code === 'forbidden';
  return new IntegrationError(`Plain ${operation} failed: ${error.message}${fields ? ` (${fields})` : ''}`, { retryable: !permanent, status: 200 });
}

/** The first timeline entry: summary, the visitor's note, then each message, as Markdown text components within Plain's size limit. */
export function plainComponents(draft: TicketDraft): { componentText: { text: string } }[] {
  const texts = [
    ...splitText(`**Summary**\n\n${draft.summary}`, PLAIN_COMPONENT_MAX),
    ...(draft.note ? splitText(`**Note from ${draft.customer.name}**\n\n${draft.note}`, PLAIN_COMPONENT_MAX) : []),
    ...draft.transcript.flatMap((m) => splitText(messageMarkdown(m), PLAIN_COMPONENT_MAX)),
    `Escalated from support chat${draft.customer.verified ? ` by ${draft.customer.email} (${VERIFIED_EMAIL_NOTE})` : ''} · conversation ${draft.conversationId}`,
  ];
  return texts.map((text) => ({ componentText: { text } }));
}

export function createPlainIntegration(options: PlainOptions): EscalationIntegration {
  const client = new PlainClient(options);
  return {
    name: 'plain',
    async createTicket(draft: TicketDraft, signal?: AbortSignal): Promise<CreatedTicket> {
      const customerId = await client.upsertCustomer(draft.customer.email, draft.customer.name, signal);
      // The conversation id is the thread's externalId: an earlier attempt that did create the
      // thread (its answer lost to a timeout) is found here instead of creating a second one.
      let threadId = await client.threadByExternalId(customerId, draft.conversationId, signal);
      if (!threadId) {
        threadId = await client.createThread(
          {
            customerIdentifier: { customerId },
            title: draft.title,
            components: plainComponents(draft),
            externalId: draft.conversationId,
            ...(draft.labelTypeIds.length > 0 ? { labelTypeIds: draft.labelTypeIds } : {}),
            ...(draft.priority === undefined ? {} : { priority: draft.priority }),
          },
          signal,
        );
      }
      return { ticketId: threadId, ticketUrl: await client.threadUrl(threadId, signal) };
    },
    async addFollowUp(followUp: FollowUp, signal?: AbortSignal): Promise<void> {
      await client.createThreadEvent(
        {
          threadId: followUp.ticketId,
          title: 'The visitor wrote in the support chat',
          components: splitText(followUp.content, PLAIN_COMPONENT_MAX).map((text) => ({ componentText: { text } })),
          externalId: `${followUp.conversationId}:${followUp.seq}`,
        },
        signal,
      );
    },
  };
}
