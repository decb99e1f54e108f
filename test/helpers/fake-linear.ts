/**
 * @module A local Linear GraphQL API (`POST /graphql`, `Authorization: <personal API key>`): the
 * part of Linear's documented schema the integration uses, validated strictly by graphql-js, with
 * Linear's rules: `issueCreate` takes an optional client-chosen UUID and refuses one already in
 * use, the team and labels must exist, priority is 0–4, and `issues` pages with Relay cursors.
 * `commentCreate` takes an optional client-chosen UUID too, and `comments` filters by id.
 * Authentication and rate-limit failures answer HTTP 400 with `extensions.code`, as Linear does.
 */
import { randomUUID } from 'node:crypto';
import { graphqlHandler, GraphQLCodeError, startFake, type FakeServer } from './fake-helpdesk.js';

const SDL = /* GraphQL */ `
  scalar DateTime
  scalar DateTimeOrDuration
  type Query {
    issues(filter: IssueFilter, first: Int, after: String, last: Int, before: String, orderBy: PaginationOrderBy, includeArchived: Boolean): IssueConnection!
    issue(id: String!): Issue!
    comments(filter: CommentFilter, first: Int, after: String, last: Int, before: String, orderBy: PaginationOrderBy, includeArchived: Boolean): CommentConnection!
  }
  type Mutation {
    issueCreate(input: IssueCreateInput!): IssuePayload!
    commentCreate(input: CommentCreateInput!): CommentPayload!
  }
  input CommentFilter { id: IDComparator body: StringComparator and: [CommentFilter!] or: [CommentFilter!] }
  input StringComparator { eq: String neq: String contains: String }
  input CommentCreateInput {
    id: String
    body: String
    issueId: String
    parentId: String
    createAsUser: String
    displayIconUrl: String
    doNotSubscribeToIssue: Boolean
  }
  type CommentPayload { success: Boolean! comment: Comment! lastSyncId: Float! }
  type Comment { id: ID! body: String! url: String! createdAt: DateTime! updatedAt: DateTime! issue: Issue }
  type CommentConnection { nodes: [Comment!]! pageInfo: PageInfo! }
  enum PaginationOrderBy { createdAt updatedAt }
  input IDComparator { eq: ID neq: ID in: [ID!] nin: [ID!] }
  input DateComparator { eq: DateTimeOrDuration gt: DateTimeOrDuration gte: DateTimeOrDuration lt: DateTimeOrDuration lte: DateTimeOrDuration }
  input TeamFilter { id: IDComparator }
  input IssueFilter { id: IDComparator team: TeamFilter updatedAt: DateComparator createdAt: DateComparator and: [IssueFilter!] or: [IssueFilter!] }
  input IssueCreateInput {
    id: String
    teamId: String!
    title: String
    description: String
    priority: Int
    labelIds: [String!]
    assigneeId: String
    stateId: String
    projectId: String
    parentId: String
  }
  type IssuePayload { success: Boolean! issue: Issue lastSyncId: Float! }
  type WorkflowState { id: ID! name: String! type: String! }
  type Team { id: ID! key: String! name: String! }
  type IssueLabel { id: ID! name: String! }
  type IssueLabelConnection { nodes: [IssueLabel!]! }
  type Issue {
    id: ID!
    identifier: String!
    number: Float!
    title: String!
    description: String
    url: String!
    priority: Float!
    priorityLabel: String!
    createdAt: DateTime!
    updatedAt: DateTime!
    state: WorkflowState!
    team: Team!
    labels: IssueLabelConnection!
  }
  type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
  type IssueConnection { nodes: [Issue!]! pageInfo: PageInfo! }
`;

export interface LinearIssueRecord {
  id: string;
  number: number;
  teamId: string;
  title: string;
  description: string | null;
  priority: number;
  labelIds: string[];
  stateName: string;
  createdAt: string;
  updatedAt: string;
}

export interface LinearCommentRecord {
  id: string;
  issueId: string;
  body: string;
  createdAt: string;
}

export interface FakeLinear extends FakeServer {
  apiUrl: string;
  apiKey: string;
  teamId: string;
  issues: LinearIssueRecord[];
  comments: LinearCommentRecord[];
  labelIds: Set<string>;
  /** Adds an issue as if created in Linear's UI; returns it. */
  addIssue(fields: Partial<LinearIssueRecord> & { title: string }): LinearIssueRecord;
  /** Marks an issue as changed now. */
  touch(id: string, fields?: Partial<LinearIssueRecord>): void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PRIORITY_LABELS = ['No priority', 'Urgent', 'High', 'Medium', 'Low'];

export async function fakeLinear(apiKey = 'lin_api_test'): Promise<FakeLinear> {
  const team = { id: randomUUID(), key: 'SUP', name: 'Support' };
  const issues: LinearIssueRecord[] = [];
  const comments: LinearCommentRecord[] = [];
  const labelIds = new Set<string>([randomUUID(), randomUUID()]);
  // Real time, strictly increasing, so every change has its own timestamp.
  let clock = 0;
  const tick = () => new Date((clock = Math.max(Date.now(), clock + 1))).toISOString();
  let number = 0;

  const view = (i: LinearIssueRecord) => ({
    ...i,
    identifier: `${team.key}-${i.number}`,
    url: `https://linear.app/test/issue/${team.key}-${i.number}/${i.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 40)}`,
    priorityLabel: PRIORITY_LABELS[i.priority],
    state: { id: `state-${i.stateName}`, name: i.stateName, type: 'unstarted' },
    team,
    labels: { nodes: i.labelIds.map((id) => ({ id, name: id })) },
  });
  const matches = (issue: LinearIssueRecord, filter: Record<string, unknown> | undefined): boolean => {
    if (!filter) return true;
    const id = filter.id as { eq?: string } | undefined;
    if (id?.eq !== undefined && issue.id !== id.eq) return false;
    const teamFilter = (filter.team as { id?: { eq?: string } } | undefined)?.id;
    if (teamFilter?.eq !== undefined && issue.teamId !== teamFilter.eq) return false;
    const updated = filter.updatedAt as { gt?: string; gte?: string } | undefined;
    if (updated?.gt !== undefined && !(issue.updatedAt > new Date(updated.gt).toISOString())) return false;
    if (updated?.gte !== undefined && !(issue.updatedAt >= new Date(updated.gte).toISOString())) return false;
    return true;
  };
  const create = (fields: Partial<LinearIssueRecord> & { title: string }): LinearIssueRecord => {
    const at = tick();
    const issue: LinearIssueRecord = {
      id: randomUUID(),
      number: ++number,
      teamId: team.id,
      description: null,
      priority: 0,
      labelIds: [],
      stateName: 'Todo',
      createdAt: at,
      updatedAt: at,
      ...fields,
    };
    issues.push(issue);
    return issue;
  };

  const commentView = (c: LinearCommentRecord) => {
    const issue = issues.find((i) => i.id === c.issueId)!;
    return { ...c, updatedAt: c.createdAt, url: `${view(issue).url}#comment-${c.id.slice(0, 8)}`, issue: view(issue) };
  };

  const rootValue = {
    comments: ({ filter, first }: { filter?: { id?: { eq?: string } }; first?: number }) => {
      const size = first ?? 50;
      if (size < 1 || size > 250) throw new GraphQLCodeError('first must be between 1 and 250', 'INPUT_ERROR');
      const found = comments.filter((c) => filter?.id?.eq === undefined || c.id === filter.id.eq).slice(0, size);
      return { nodes: found.map(commentView), pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } };
    },
    commentCreate: ({ input }: { input: { id?: string; body?: string; issueId?: string } }) => {
      if (input.id !== undefined) {
        if (!UUID.test(input.id)) throw new GraphQLCodeError('id must be a UUID', 'INPUT_ERROR');
        if (comments.some((c) => c.id === input.id)) throw new GraphQLCodeError('Entity already exists', 'INPUT_ERROR');
      }
      if (!input.issueId || !issues.some((i) => i.id === input.issueId)) throw new GraphQLCodeError('Could not find referenced Issue.', 'INPUT_ERROR');
      if (!input.body) throw new GraphQLCodeError('body must not be empty', 'INPUT_ERROR');
      const comment: LinearCommentRecord = { id: input.id ?? randomUUID(), issueId: input.issueId, body: input.body, createdAt: tick() };
      comments.push(comment);
      return { success: true, comment: commentView(comment), lastSyncId: comments.length };
    },
    issues: ({ filter, first, after, orderBy }: { filter?: Record<string, unknown>; first?: number; after?: string; orderBy?: string }) => {
      const size = first ?? 50;
      if (size < 1 || size > 250) throw new GraphQLCodeError('first must be between 1 and 250', 'INPUT_ERROR');
      const found = issues.filter((i) => matches(i, filter));
      // Linear orders by the field, most recent first.
      const key = orderBy === 'updatedAt' ? 'updatedAt' : 'createdAt';
      found.sort((a, b) => b[key].localeCompare(a[key]) || a.id.localeCompare(b.id));
      const start = after ? Number(Buffer.from(after, 'base64url').toString()) + 1 : 0;
      if (!Number.isInteger(start) || start < 0) throw new GraphQLCodeError('Invalid cursor', 'INPUT_ERROR');
      const slice = found.slice(start, start + size);
      const cursorAt = (i: number) => Buffer.from(String(start + i)).toString('base64url');
      return {
        nodes: slice.map(view),
        pageInfo: {
          hasNextPage: start + size < found.length,
          hasPreviousPage: start > 0,
          startCursor: slice.length ? cursorAt(0) : null,
          endCursor: slice.length ? cursorAt(slice.length - 1) : null,
        },
      };
    },
    issue: ({ id }: { id: string }) => {
      const found = issues.find((i) => i.id === id);
      if (!found) throw new GraphQLCodeError('Entity not found: Issue', 'INPUT_ERROR');
      return view(found);
    },
    issueCreate: ({ input }: { input: { id?: string; teamId: string; title?: string; description?: string; priority?: number; labelIds?: string[] } }) => {
      if (input.teamId !== team.id) throw new GraphQLCodeError('Could not find referenced Team.', 'INPUT_ERROR');
      if (input.id !== undefined) {
        if (!UUID.test(input.id)) throw new GraphQLCodeError('id must be a UUID', 'INPUT_ERROR');
        if (issues.some((i) => i.id === input.id)) throw new GraphQLCodeError('Entity already exists', 'INPUT_ERROR');
      }
      if (input.priority !== undefined && (input.priority < 0 || input.priority > 4)) throw new GraphQLCodeError('priority must be between 0 and 4', 'INPUT_ERROR');
      for (const label of input.labelIds ?? []) if (!labelIds.has(label)) throw new GraphQLCodeError('Could not find referenced IssueLabel.', 'INPUT_ERROR');
      if (!input.title) throw new GraphQLCodeError('title must not be empty', 'INPUT_ERROR');
      const issue = create({
        ...(input.id ? { id: input.id } : {}),
        title: input.title,
        description: input.description ?? null,
        priority: input.priority ?? 0,
        labelIds: input.labelIds ?? [],
      });
      return { success: true, issue: view(issue), lastSyncId: issues.length };
    },
  };

  const gql = graphqlHandler(SDL, rootValue);
  const server = await startFake({
    authorized: (header) => header === apiKey,
    unauthorized: () => ({
      status: 400,
      body: { errors: [{ message: 'Authentication required, not authenticated', extensions: { code: 'AUTHENTICATION_ERROR', type: 'authentication error' } }] },
    }),
    operationOf: gql.operationOf,
    handle: (method, path, body) => (path === '/graphql' ? gql.handle(method, path, body) : { status: 404, body: { errors: [{ message: 'Not found' }] } }),
  });
  return {
    ...server,
    apiUrl: `${server.url}/graphql`,
    apiKey,
    teamId: team.id,
    issues,
    comments,
    labelIds,
    addIssue: create,
    touch(id, fields = {}) {
      const issue = issues.find((i) => i.id === id);
      if (!issue) throw new Error(`no issue ${id}`);
      Object.assign(issue, fields, { updatedAt: tick() });
    },
  };
}
