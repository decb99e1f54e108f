/**
 * @module A local Pylon REST API (`Authorization: Bearer <token>`): `POST /issues`,
 * `POST /issues/search`, `GET /issues/{id}`, `POST /issues/{id}/note` (an internal note) and
 * `GET /issues/{id}/messages` (the issue's first message and its notes) with Pylon's documented request and response
 * shapes — results under `data` with a `request_id`, lists with `pagination {cursor,
 * has_next_page}` — and stricter than Pylon about fields: an unknown or mistyped field is a 400
 * here, so a typo in the client cannot pass unnoticed.
 */
import { randomUUID } from 'node:crypto';
import { startFake, type FakeServer } from './fake-helpdesk.js';

export interface PylonIssueRecord {
  id: string;
  number: number;
  title: string;
  body_html: string;
  state: string;
  link: string;
  created_at: string;
  latest_message_time: string;
  requester: { id: string; email: string };
  requester_name: string | null;
  priority: string | null;
  tags: string[];
}

export interface PylonNoteRecord {
  id: string;
  issue_id: string;
  body_html: string;
}

export interface FakePylon extends FakeServer {
  apiUrl: string;
  apiKey: string;
  issues: PylonIssueRecord[];
  /** Internal notes, oldest first. */
  notes: PylonNoteRecord[];
  addIssue(fields: Partial<PylonIssueRecord> & { title: string }): PylonIssueRecord;
}

const CREATE_FIELDS: Record<string, 'string' | 'string[]' | 'object[]'> = {
  title: 'string',
  body_html: 'string',
  requester_email: 'string',
  requester_name: 'string',
  requester_id: 'string',
  account_id: 'string',
  assignee_id: 'string',
  team_id: 'string',
  priority: 'string',
  tags: 'string[]',
  attachment_urls: 'string[]',
  custom_fields: 'object[]',
  created_at: 'string',
};
const PRIORITIES = new Set(['urgent', 'high', 'medium', 'low']);
const OPERATORS = new Set(['equals', 'in', 'not_in', 'contains', 'does_not_contain', 'time_is_after', 'time_is_before', 'time_range', 'string_contains', 'string_does_not_contain', 'is_set', 'is_unset']);

const requestId = () => randomUUID();
const error = (status: number, message: string) => ({ status, body: { errors: [message], exists_id: '', request_id: requestId() } });

function typeOk(value: unknown, type: string): boolean {
  if (type === 'string') return typeof value === 'string';
  if (type === 'string[]') return Array.isArray(value) && value.every((v) => typeof v === 'string');
  return Array.isArray(value) && value.every((v) => v && typeof v === 'object');
}

export async function fakePylon(apiKey = 'pylon_test_token'): Promise<FakePylon> {
  const issues: PylonIssueRecord[] = [];
  const notes: PylonNoteRecord[] = [];
  // Real time, strictly increasing, so every change has its own timestamp.
  let clock = 0;
  const tick = () => new Date((clock = Math.max(Date.now(), clock + 1))).toISOString();
  let number = 0;
  const add = (fields: Partial<PylonIssueRecord> & { title: string }): PylonIssueRecord => {
    const at = tick();
    const n = ++number;
    const issue: PylonIssueRecord = {
      id: randomUUID(),
      number: n,
      body_html: '',
      state: 'new',
      link: `https://app.usepylon.com/issues?issueNumber=${n}`,
      created_at: at,
      latest_message_time: at,
      requester: { id: randomUUID(), email: 'someone@example.com' },
      requester_name: null,
      priority: null,
      tags: [],
      ...fields,
    };
    issues.push(issue);
    return issue;
  };
  const view = ({ requester_name: _omit, ...issue }: PylonIssueRecord) => issue;

  const server = await startFake({
    authorized: (header) => header === `Bearer ${apiKey}`,
    unauthorized: () => error(401, 'unauthorized'),
    operationOf: (method, path) => `${method} ${path.replace(/^\/issues\/(?!search$)[^/?]+/, '/issues/{id}')}`,
    handle(method, path, body) {
      if (method === 'POST' && path === '/issues') {
        const b = body as Record<string, unknown> | undefined;
        if (!b || typeof b !== 'object') return error(400, 'body must be a JSON object');
        for (const [key, value] of Object.entries(b)) {
          const type = CREATE_FIELDS[key];
          if (!type) return error(400, `unknown field ${key}`);
          if (!typeOk(value, type)) return error(400, `${key} must be ${type}`);
        }
        if (!b.title) return error(400, 'title is required');
        if (!b.body_html) return error(400, 'body_html is required');
        if (!b.requester_email && !b.account_id && !b.requester_id) return error(400, 'one of requester_email, requester_id or account_id is required');
        if (b.priority !== undefined && !PRIORITIES.has(b.priority as string)) return error(400, `priority must be one of urgent, high, medium, low`);
        const issue = add({
          title: b.title as string,
          body_html: b.body_html as string,
          requester: { id: randomUUID(), email: (b.requester_email as string) ?? '' },
          requester_name: (b.requester_name as string) ?? null,
          priority: (b.priority as string) ?? null,
          tags: (b.tags as string[]) ?? [],
        });
        return { status: 200, body: { data: view(issue), request_id: requestId() } };
      }
      if (method === 'POST' && path === '/issues/search') {
        const b = body as { filter?: Record<string, unknown>; limit?: unknown; cursor?: unknown } | undefined;
        if (!b || typeof b !== 'object') return error(400, 'body must be a JSON object');
        for (const key of Object.keys(b)) if (!['filter', 'limit', 'cursor'].includes(key)) return error(400, `unknown field ${key}`);
        const f = b.filter;
        if (!f || typeof f !== 'object') return error(400, 'filter is required');
        for (const key of Object.keys(f)) if (!['field', 'operator', 'value', 'values', 'subfilters'].includes(key)) return error(400, `unknown filter field ${key}`);
        if (!OPERATORS.has(f.operator as string)) return error(400, `unknown operator ${String(f.operator)}`);
        if (f.field !== 'created_at' || f.operator !== 'time_is_after' || typeof f.value !== 'string' || Number.isNaN(Date.parse(f.value))) {
          return error(400, 'this server supports created_at time_is_after with an RFC 3339 value');
        }
        const limit = b.limit ?? 100;
        if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) return error(400, 'limit must be between 1 and 1000');
        const since = new Date(f.value).toISOString();
        const found = issues.filter((i) => i.created_at > since).sort((a, c) => a.created_at.localeCompare(c.created_at));
        const start = b.cursor === undefined ? 0 : Number(Buffer.from(String(b.cursor), 'base64url').toString());
        if (!Number.isInteger(start) || start < 0) return error(400, 'invalid cursor');
        const page = found.slice(start, start + limit);
        const more = start + limit < found.length;
        return {
          status: 200,
          body: { data: page.map(view), pagination: { cursor: more ? Buffer.from(String(start + limit)).toString('base64url') : '', has_next_page: more }, request_id: requestId() },
        };
      }
      const note = /^\/issues\/([^/?]+)\/note$/.exec(path);
      if (method === 'POST' && note) {
        const issue = issues.find((i) => i.id === decodeURIComponent(note[1]!) || String(i.number) === note[1]);
        if (!issue) return error(404, 'issue not found');
        const b = body as Record<string, unknown> | undefined;
        if (!b || typeof b !== 'object') return error(400, 'body must be a JSON object');
        const fields: Record<string, 'string' | 'string[]'> = { body_html: 'string', thread_id: 'string', message_id: 'string', thread_name: 'string', user_id: 'string', attachment_urls: 'string[]' };
        for (const [key, value] of Object.entries(b)) {
          const type = fields[key];
          if (!type) return error(400, `unknown field ${key}`);
          if (!typeOk(value, type)) return error(400, `${key} must be ${type}`);
        }
        if (!b.body_html) return error(400, 'body_html is required');
        if (b.thread_id !== undefined && b.message_id !== undefined) return error(400, 'thread_id and message_id are mutually exclusive');
        const record: PylonNoteRecord = { id: randomUUID(), issue_id: issue.id, body_html: b.body_html as string };
        notes.push(record);
        issue.latest_message_time = tick();
        return { status: 200, body: { data: { id: record.id, issue_id: record.issue_id }, request_id: requestId() } };
      }
      const messages = /^\/issues\/([^/?]+)\/messages$/.exec(path);
      if (method === 'GET' && messages) {
        const issue = issues.find((i) => i.id === decodeURIComponent(messages[1]!));
        if (!issue) return error(404, 'issue not found');
        const data = [
          { id: `${issue.id}-first`, message_html: issue.body_html, is_private: false, thread_id: null, timestamp: issue.created_at },
          ...notes.filter((n) => n.issue_id === issue.id).map((n) => ({ id: n.id, message_html: n.body_html, is_private: true, thread_id: 'internal', timestamp: issue.latest_message_time })),
        ];
        return { status: 200, body: { data, request_id: requestId() } };
      }
      const one = /^\/issues\/([^/?]+)$/.exec(path);
      if (method === 'GET' && one) {
        const issue = issues.find((i) => i.id === decodeURIComponent(one[1]!));
        return issue ? { status: 200, body: { data: view(issue), request_id: requestId() } } : error(404, 'issue not found');
      }
      return error(404, `no route ${method} ${path}`);
    },
  });
  return { ...server, apiUrl: server.url, apiKey, issues, notes, addIssue: add };
}
