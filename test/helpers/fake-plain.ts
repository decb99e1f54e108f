/**
 * @module A local Plain GraphQL API (`POST /graphql/v1`, `Authorization: Bearer <key>`): the part
 * of Plain's documented schema the integration uses, validated strictly by graphql-js, with
 * Plain's rules: customers are unique by email, thread priority is 0–3, a text component holds
 * 1 to 5,000 characters, label types must exist, a thread event's `externalId` is unique (a
 * second one is refused), and mutation problems come back as `error { message type code fields }`
 * in the output rather than as thrown errors.
 */
import { randomUUID } from 'node:crypto';
import { graphqlHandler, startFake, type FakeServer } from './fake-helpdesk.js';

const SDL = /* GraphQL */ `
  type Query {
    myWorkspace: Workspace
    threadByExternalId(customerId: ID!, externalId: ID!): Thread
    thread(threadId: ID!): Thread
    threads(filters: ThreadsFilter, sortBy: ThreadsSort, first: Int, after: String, last: Int, before: String): ThreadConnection!
  }
  type Mutation {
    upsertCustomer(input: UpsertCustomerInput!): UpsertCustomerOutput!
    createThread(input: CreateThreadInput!): CreateThreadOutput!
    createThreadEvent(input: CreateThreadEventInput!): CreateThreadEventOutput!
  }
  input ComponentPlainTextInput { plainText: String! plainTextSize: ComponentTextSize plainTextColor: ComponentTextColor }
  input EventComponentInput { componentText: ComponentTextInput componentPlainText: ComponentPlainTextInput componentDivider: ComponentDividerInput }
  input CreateThreadEventInput { threadId: ID! title: String! components: [EventComponentInput!]! externalId: ID timestamp: String isCollapsed: Boolean }
  type ThreadEvent { id: ID! customerId: ID! threadId: ID! title: String! isCollapsed: Boolean! createdAt: DateTime! updatedAt: DateTime! }
  type CreateThreadEventOutput { threadEvent: ThreadEvent error: MutationError }
  type Workspace { id: ID! name: String! }
  input UpsertCustomerInput {
    identifier: UpsertCustomerIdentifierInput!
    onCreate: UpsertCustomerOnCreateInput!
    onUpdate: UpsertCustomerOnUpdateInput!
  }
  input UpsertCustomerIdentifierInput { emailAddress: String customerId: ID externalId: ID }
  input UpsertCustomerOnCreateInput { fullName: String! shortName: String email: EmailAddressInput! externalId: ID }
  input UpsertCustomerOnUpdateInput { fullName: OptionalStringInput shortName: OptionalStringInput email: EmailAddressInput externalId: OptionalStringInput }
  input OptionalStringInput { value: String }
  input EmailAddressInput { email: String! isVerified: Boolean! }
  enum UpsertResult { CREATED UPDATED NOOP }
  type UpsertCustomerOutput { result: UpsertResult customer: Customer error: MutationError }
  type MutationError { message: String! type: MutationErrorType! code: String! fields: [MutationFieldError!]! }
  enum MutationErrorType { VALIDATION FORBIDDEN INTERNAL }
  type MutationFieldError { field: String! message: String! type: MutationFieldErrorType! }
  enum MutationFieldErrorType { VALIDATION REQUIRED NOT_FOUND }
  type Customer { id: ID! fullName: String! shortName: String externalId: ID email: EmailAddress! }
  type EmailAddress { email: String! isVerified: Boolean! }
  input CustomerIdentifierInput { customerId: ID emailAddress: String externalId: ID }
  input ComponentTextInput { text: String! textSize: ComponentTextSize textColor: ComponentTextColor }
  enum ComponentTextSize { S M L }
  enum ComponentTextColor { NORMAL MUTED SUCCESS WARNING ERROR }
  input ComponentDividerInput { dividerSpacingSize: ComponentDividerSpacingSize }
  enum ComponentDividerSpacingSize { XS S M L XL }
  input ComponentInput { componentText: ComponentTextInput componentDivider: ComponentDividerInput }
  input CreateThreadInput {
    customerIdentifier: CustomerIdentifierInput!
    title: String
    description: String
    components: [ComponentInput!]
    attachmentIds: [ID!]
    labelTypeIds: [ID!]
    externalId: ID
    priority: Int
  }
  type CreateThreadOutput { thread: Thread error: MutationError }
  enum ThreadStatus { TODO SNOOZED DONE }
  type DateTime { iso8601: String! unixTimestamp: String! }
  type Thread {
    id: ID!
    externalId: ID
    title: String!
    previewText: String
    status: ThreadStatus!
    priority: Int!
    customer: Customer!
    labelTypeIds: [ID!]!
    createdAt: DateTime!
    updatedAt: DateTime!
  }
  input ThreadsFilter { statuses: [ThreadStatus!] customerIds: [ID!] priorities: [Int!] }
  input ThreadsSort { field: ThreadsSortField! direction: SortDirection! }
  enum ThreadsSortField { CREATED_AT STATUS_CHANGED_AT }
  enum SortDirection { ASC DESC }
  type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
  type ThreadEdge { cursor: String! node: Thread! }
  type ThreadConnection { edges: [ThreadEdge!]! pageInfo: PageInfo! }
`;

export interface PlainCustomer {
  id: string;
  fullName: string;
  email: { email: string; isVerified: boolean };
}

export interface PlainThreadRecord {
  id: string;
  externalId: string | null;
  title: string;
  previewText: string | null;
  status: 'TODO' | 'SNOOZED' | 'DONE';
  priority: number;
  customerId: string;
  labelTypeIds: string[];
  /** The text of every component, in order. */
  components: string[];
  createdAt: string;
  updatedAt: string;
}

export interface PlainThreadEventRecord {
  id: string;
  threadId: string;
  title: string;
  /** The text of every component, in order. */
  components: string[];
  externalId: string | null;
  createdAt: string;
}

export interface FakePlain extends FakeServer {
  apiUrl: string;
  apiKey: string;
  workspaceId: string;
  customers: Map<string, PlainCustomer>;
  threads: PlainThreadRecord[];
  threadEvents: PlainThreadEventRecord[];
  labelTypeIds: Set<string>;
  /** Adds a thread as if created in Plain's UI. */
  addThread(fields: Partial<PlainThreadRecord> & { title: string; customerEmail: string }): PlainThreadRecord;
}

const COMPONENT_MAX = 5000;

function dateTime(iso: string) {
  return { iso8601: iso, unixTimestamp: String(Date.parse(iso)) };
}

export async function fakePlain(apiKey = 'plainApiKey_test'): Promise<FakePlain> {
  const workspaceId = 'w_01TESTWORKSPACE';
  const customers = new Map<string, PlainCustomer>();
  const threads: PlainThreadRecord[] = [];
  const threadEvents: PlainThreadEventRecord[] = [];
  const labelTypeIds = new Set(['lt_bug', 'lt_billing']);
  // Real time, strictly increasing, so every change has its own timestamp.
  let clock = 0;
  const tick = () => new Date((clock = Math.max(Date.now(), clock + 1))).toISOString();
  const byId = (id: string) => [...customers.values()].find((c) => c.id === id);

  const customerOf = (email: string, fullName: string): PlainCustomer => {
    let customer = customers.get(email.toLowerCase());
    if (!customer) {
      customer = { id: `c_${randomUUID().replace(/-/g, '').slice(0, 20)}`, fullName, email: { email, isVerified: false } };
      customers.set(email.toLowerCase(), customer);
    }
    return customer;
  };
  const view = (t: PlainThreadRecord) => ({
    ...t,
    customer: byId(t.customerId),
    createdAt: dateTime(t.createdAt),
    updatedAt: dateTime(t.updatedAt),
  });
  const validation = (message: string, field: string) => ({ message, type: 'VALIDATION', code: 'input_validation', fields: [{ field, message, type: 'VALIDATION' }] });

  const rootValue = {
    myWorkspace: () => ({ id: workspaceId, name: 'Test workspace' }),
    threadByExternalId: ({ customerId, externalId }: { customerId: string; externalId: string }) => {
      const t = threads.find((x) => x.customerId === customerId && x.externalId === externalId);
      return t ? view(t) : null;
    },
    thread: ({ threadId }: { threadId: string }) => {
      const t = threads.find((x) => x.id === threadId);
      return t ? view(t) : null;
    },
    threads: ({ first, after, sortBy }: { first?: number; after?: string; sortBy?: { field: string; direction: string } }) => {
      const size = first ?? 25;
      if (size < 1 || size > 100) throw new Error('first must be between 1 and 100');
      const sorted = [...threads].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      if (sortBy?.direction === 'DESC') sorted.reverse();
      const start = after ? Number(Buffer.from(after, 'base64url').toString()) + 1 : 0;
      if (!Number.isInteger(start) || start < 0) throw new Error('Invalid cursor');
      const slice = sorted.slice(start, start + size);
      const cursorAt = (i: number) => Buffer.from(String(start + i)).toString('base64url');
      return {
        edges: slice.map((t, i) => ({ cursor: cursorAt(i), node: view(t) })),
        pageInfo: {
          hasNextPage: start + size < sorted.length,
          hasPreviousPage: start > 0,
          startCursor: slice.length ? cursorAt(0) : null,
          endCursor: slice.length ? cursorAt(slice.length - 1) : null,
        },
      };
    },
    upsertCustomer: ({ input }: { input: { identifier: { emailAddress?: string }; onCreate: { fullName: string; email: { email: string } }; onUpdate: { fullName?: { value?: string } } } }) => {
      const email = input.identifier.emailAddress;
      if (!email) return { result: null, customer: null, error: validation('identifier must name an email address', 'identifier') };
      if (input.onCreate.email.email.toLowerCase() !== email.toLowerCase()) {
        return { result: null, customer: null, error: validation('onCreate.email must match the identifier', 'onCreate.email') };
      }
      const existed = customers.has(email.toLowerCase());
      const customer = customerOf(email, input.onCreate.fullName);
      let result = existed ? 'NOOP' : 'CREATED';
      const name = input.onUpdate.fullName?.value;
      if (existed && name && name !== customer.fullName) {
        customer.fullName = name;
        result = 'UPDATED';
      }
      return { result, customer, error: null };
    },
    createThread: ({ input }: { input: { customerIdentifier: { customerId?: string }; title?: string; components?: { componentText?: { text: string } }[]; labelTypeIds?: string[]; externalId?: string; priority?: number } }) => {
      const customer = input.customerIdentifier.customerId ? byId(input.customerIdentifier.customerId) : undefined;
      if (!customer) return { thread: null, error: validation('Customer not found', 'customerIdentifier') };
      if (input.priority !== undefined && (input.priority < 0 || input.priority > 3)) return { thread: null, error: validation('priority must be 0, 1, 2 or 3', 'priority') };
      for (const [i, c] of (input.components ?? []).entries()) {
        const text = c.componentText?.text;
        if (text !== undefined && (text.length < 1 || text.length > COMPONENT_MAX)) {
          return { thread: null, error: validation(`text must be between 1 and ${COMPONENT_MAX} characters`, `components.${i}.componentText.text`) };
        }
      }
      for (const id of input.labelTypeIds ?? []) {
        if (!labelTypeIds.has(id)) return { thread: null, error: validation(`Label type ${id} not found`, 'labelTypeIds') };
      }
      const at = tick();
      const texts = (input.components ?? []).map((c) => c.componentText?.text ?? '');
      const thread: PlainThreadRecord = {
        id: `th_${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`,
        externalId: input.externalId ?? null,
        title: input.title ?? 'Untitled',
        previewText: texts[0]?.slice(0, 200) ?? null,
        status: 'TODO',
        priority: input.priority ?? 2,
        customerId: customer.id,
        labelTypeIds: input.labelTypeIds ?? [],
        components: texts,
        createdAt: at,
        updatedAt: at,
      };
      threads.push(thread);
      return { thread: view(thread), error: null };
    },
    createThreadEvent: ({ input }: { input: { threadId: string; title: string; components: { componentText?: { text: string }; componentPlainText?: { plainText: string } }[]; externalId?: string } }) => {
      const thread = threads.find((t) => t.id === input.threadId);
      if (!thread) return { threadEvent: null, error: { message: 'Thread not found', type: 'VALIDATION', code: 'input_validation', fields: [{ field: 'threadId', message: 'Thread not found', type: 'NOT_FOUND' }] } };
      if (input.title.length < 1) return { threadEvent: null, error: validation('title must not be empty', 'title') };
      if (input.components.length < 1) return { threadEvent: null, error: validation('components must not be empty', 'components') };
      const texts: string[] = [];
      for (const [i, c] of input.components.entries()) {
        const text = c.componentText?.text ?? c.componentPlainText?.plainText;
        if (text !== undefined && (text.length < 1 || text.length > COMPONENT_MAX)) {
          return { threadEvent: null, error: validation(`text must be between 1 and ${COMPONENT_MAX} characters`, `components.${i}`) };
        }
        texts.push(text ?? '');
      }
      if (input.externalId !== undefined && threadEvents.some((e) => e.externalId === input.externalId)) {
        return { threadEvent: null, error: validation('A thread event with this external ID already exists', 'externalId') };
      }
      const at = tick();
      const event: PlainThreadEventRecord = { id: `te_${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`, threadId: thread.id, title: input.title, components: texts, externalId: input.externalId ?? null, createdAt: at };
      threadEvents.push(event);
      thread.updatedAt = at;
      return { threadEvent: { id: event.id, customerId: thread.customerId, threadId: thread.id, title: event.title, isCollapsed: false, createdAt: dateTime(at), updatedAt: dateTime(at) }, error: null };
    },
  };

  const gql = graphqlHandler(SDL, rootValue);
  const server = await startFake({
    authorized: (header) => header === `Bearer ${apiKey}`,
    unauthorized: () => ({ status: 401, body: { errors: [{ message: 'Authentication required', extensions: { code: 'UNAUTHENTICATED' } }] } }),
    operationOf: gql.operationOf,
    handle: (method, path, body) => (path === '/graphql/v1' ? gql.handle(method, path, body) : { status: 404, body: { errors: [{ message: 'Not found' }] } }),
  });
  return {
    ...server,
    apiUrl: `${server.url}/graphql/v1`,
    apiKey,
    workspaceId,
    customers,
    threads,
    threadEvents,
    labelTypeIds,
    addThread(fields) {
      const customer = customerOf(fields.customerEmail, fields.customerEmail.split('@')[0]!);
      const at = tick();
      const thread: PlainThreadRecord = {
        id: `th_${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`,
        externalId: null,
        previewText: null,
        status: 'TODO',
        priority: 2,
        labelTypeIds: [],
        components: [],
        createdAt: at,
        updatedAt: at,
        ...fields,
        customerId: customer.id,
      };
      threads.push(thread);
      return thread;
    },
  };
}
