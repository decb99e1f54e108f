/**
 * Escalation to Plain, Pylon and Linear through the real server, against local servers that
 * implement each API's documented shapes strictly, including every way they fail.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IntegrationSettingsStore, linearIssueId } from '../../../src/server/escalation/index.js';
import { PLAIN_COMPONENT_MAX } from '../../../src/server/helpdesks/plain/index.js';
import { ESCALATION_NOT_CONFIGURED } from '../../../src/server/http/routes/escalate.js';
import { fakeLinear } from '../../helpers/fake-linear.js';
import { fakePlain } from '../../helpers/fake-plain.js';
import { fakePylon } from '../../helpers/fake-pylon.js';
import type { Failure } from '../../helpers/fake-helpdesk.js';
import { testServer, type TestServer } from '../../helpers/server.js';

let t: TestServer | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await t?.server.close();
  t = undefined;
  while (closers.length) await closers.pop()!();
});

const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };
// Long enough for a loaded test machine; the hang tests wait this long once each.
const TIMEOUT_MS = '1000';

/** A server whose integrations read `env` (and the per-organization settings in its database). */
/** What the server logged in this test, as JSON lines. */
let logged: string[] = [];
const capture = { info: (f: object) => logged.push(JSON.stringify(f)), warn: (f: object) => logged.push(JSON.stringify(f)), error: (f: object) => logged.push(JSON.stringify(f)) };

async function serverWith(env: Record<string, string>) {
  logged = [];
  // `integrations: undefined` makes the server build its real resolver over its own database.
  t = await testServer({ env: { SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS: TIMEOUT_MS, ...env }, integrations: undefined, logger: capture });
  return t;
}

/** A non-retryable failure: the client is told only that retrying will not help; the log names the problem. */
function expectNotConfigured(res: { status: number; body: { error: unknown } }, logDetail: string) {
  expect(res.status).toBe(500);
  expect(res.body.error).toEqual({ code: 'internal_error', message: ESCALATION_NOT_CONFIGURED, retryable: false });
  expect(logged.some((line) => line.includes('escalation failed') && line.includes(logDetail))).toBe(true);
}

async function answeredConversation(server: TestServer, token: string, message = 'My invoice is wrong') {
  const sent = await server.call('POST', '/v0/chat', { token, body: { message } });
  await server.answer();
  return sent.body.conversation_id as string;
}

async function plainSetup() {
  const plain = await fakePlain();
  closers.push(() => plain.close());
  const server = await serverWith({ PLAIN_API_KEY: plain.apiKey, PLAIN_API_URL: plain.apiUrl });
  const token = await server.token();
  return { plain, server, token, id: await answeredConversation(server, token) };
}

async function pylonSetup() {
  const pylon = await fakePylon();
  closers.push(() => pylon.close());
  const server = await serverWith({ PYLON_API_KEY: pylon.apiKey, PYLON_API_URL: pylon.apiUrl });
  const token = await server.token();
  return { pylon, server, token, id: await answeredConversation(server, token) };
}

async function linearSetup() {
  const linear = await fakeLinear();
  closers.push(() => linear.close());
  const server = await serverWith({ LINEAR_API_KEY: linear.apiKey, LINEAR_API_URL: linear.apiUrl, LINEAR_TEAM_ID: linear.teamId });
  const token = await server.token();
  return { linear, server, token, id: await answeredConversation(server, token) };
}

const escalate = (server: TestServer, token: string, id: string, body: Record<string, unknown>) => server.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, ...body } });

function expectRetryable500(res: { status: number; body: unknown }) {
  expect(res.status).toBe(500);
  expect(res.body).toEqual({ error: { code: 'internal_error', message: 'An internal error occurred', retryable: true } });
}

describe('Plain', () => {
  it('upserts the customer, creates one thread with title, summary and transcript components, labels and priority, and links to it', async () => {
    const { plain, server, token, id } = await plainSetup();
    const res = await escalate(server, token, id, { integration: 'plain', title: 'Invoice', additional_fields: { label_type_ids: ['lt_billing'], priority: 0 } });
    expect(res.status).toBe(200);
    const thread = plain.threads[0]!;
    expect(plain.threads).toHaveLength(1);
    expect(res.body).toEqual({ success: true, integration: 'plain', ticket_id: thread.id, ticket_url: `https://app.plain.com/workspace/${plain.workspaceId}/thread/${thread.id}` });
    expect(thread).toMatchObject({ title: 'Invoice', externalId: id, priority: 0, labelTypeIds: ['lt_billing'] });
    expect(plain.customers.get('ada@example.com')).toMatchObject({ fullName: 'Ada Lovelace', email: { email: 'ada@example.com', isVerified: false } });
    const text = thread.components.join('\n');
    expect(text).toContain('**Summary**');
    expect(text).toContain('Summary of 2 messages');
    expect(text).toContain('**Visitor:**\nMy invoice is wrong');
    expect(text).toContain('**Assistant:**');
    // The conversation was marked escalated: a second escalation is a 409.
    expect((await escalate(server, token, id, { integration: 'plain' })).status).toBe(409);
  });

  it('splits a long transcript into text components within Plain’s 5,000-character limit, losing nothing', async () => {
    const { plain, server, token } = await plainSetup();
    const long = `${'word '.repeat(2500)}end-of-message`;
    const id = await answeredConversation(server, token, long);
    const res = await escalate(server, token, id, { integration: 'plain' });
    expect(res.status).toBe(200);
    const components = plain.threads[0]!.components;
    expect(components.length).toBeGreaterThan(3);
    for (const text of components) expect(text.length).toBeLessThanOrEqual(PLAIN_COMPONENT_MAX);
    expect(components.join(' ').replace(/\s+/g, ' ')).toContain(`${'word '.repeat(2500).trim()} end-of-message`.replace(/\s+/g, ' '));
  });

  it('updates an existing customer’s name instead of creating a second customer', async () => {
    const { plain, server, token, id } = await plainSetup();
    const other = await answeredConversation(server, token, 'Second question');
    await escalate(server, token, id, { integration: 'plain' });
    await escalate(server, token, other, { integration: 'plain', name: 'Ada King' });
    expect(plain.customers.size).toBe(1);
    expect(plain.customers.get('ada@example.com')!.fullName).toBe('Ada King');
    expect(plain.threads).toHaveLength(2);
  });

  const failures: [string, Failure, string][] = [
    ['a 429 with reset headers', { mode: 'status', status: 429, headers: { 'retry-after': '30' } }, 'createThread'],
    ['a 502', { mode: 'status', status: 502, body: { message: 'Bad gateway' } }, 'createThread'],
    ['a timeout', { mode: 'hang' }, 'upsertCustomer'],
    ['a GraphQL error inside an HTTP 200', { mode: 'graphql-error', message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' }, 'createThread'],
    ['an answer lost after the thread was created', { mode: 'lose-answer' }, 'createThread'],
  ];
  for (const [what, failure, operation] of failures) {
    it(`maps ${what} to 500 retryable, keeps the conversation escalatable, and the retry makes exactly one thread`, async () => {
      const { plain, server, token, id } = await plainSetup();
      plain.failNext(failure, operation);
      expectRetryable500(await escalate(server, token, id, { integration: 'plain' }));
      const retry = await escalate(server, token, id, { integration: 'plain' });
      expect(retry.status).toBe(200);
      expect(plain.threads).toHaveLength(1);
      expect(retry.body.ticket_id).toBe(plain.threads[0]!.id);
    });
  }

  it('maps a mutation error (an unknown label type) to 500 retryable without creating anything', async () => {
    const { plain, server, token, id } = await plainSetup();
    expectRetryable500(await escalate(server, token, id, { integration: 'plain', additional_fields: { label_type_ids: ['lt_missing'] } }));
    expect(plain.threads).toHaveLength(0);
    expect((await escalate(server, token, id, { integration: 'plain', additional_fields: { label_type_ids: ['lt_bug'] } })).status).toBe(200);
  });

  it('answers 500 retryable: false when Plain rejects the API key, naming the problem only in the log', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const server = await serverWith({ PLAIN_API_KEY: 'plainApiKey_wrong', PLAIN_API_URL: plain.apiUrl });
    const token = await server.token();
    const id = await answeredConversation(server, token);
    const res = await escalate(server, token, id, { integration: 'plain' });
    expectNotConfigured(res, 'Plain rejected the API key (401)');
  });
});

describe('Pylon', () => {
  it('creates one issue with title, escaped HTML body, requester and priority, linked by the response’s link', async () => {
    const { pylon, server, token } = await pylonSetup();
    const id = await answeredConversation(server, token, 'Why does <script>alert(1)</script> & "this" show?');
    const res = await escalate(server, token, id, { integration: 'pylon', title: 'Broken page', additional_fields: { priority: 1, label_type_ids: ['billing'] } });
    expect(res.status).toBe(200);
    const issue = pylon.issues[0]!;
    expect(pylon.issues).toHaveLength(1);
    expect(res.body).toEqual({ success: true, integration: 'pylon', ticket_id: issue.id, ticket_url: issue.link });
    expect(issue).toMatchObject({ title: 'Broken page', priority: 'high', requester: { email: 'ada@example.com' }, requester_name: 'Ada Lovelace', tags: ['billing'] });
    expect(issue.body_html).toContain('<h2>Summary</h2>');
    expect(issue.body_html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;this&quot;');
    expect(issue.body_html).not.toContain('<script>');
  });

  it('maps every spec priority to Pylon’s words', async () => {
    const { pylon, server, token } = await pylonSetup();
    for (const priority of [0, 1, 2, 3]) {
      const id = await answeredConversation(server, token, `Question ${priority}`);
      expect((await escalate(server, token, id, { integration: 'pylon', additional_fields: { priority } })).status).toBe(200);
    }
    expect(pylon.issues.map((i) => i.priority)).toEqual(['urgent', 'high', 'medium', 'low']);
  });

  const failures: [string, Failure][] = [
    ['a 429 with reset headers', { mode: 'status', status: 429, headers: { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 20) } }],
    ['a 503', { mode: 'status', status: 503 }],
    ['a timeout', { mode: 'hang' }],
    ['an answer lost after the issue was created', { mode: 'lose-answer' }],
  ];
  for (const [what, failure] of failures) {
    it(`maps ${what} to 500 retryable, and the retry finds or makes exactly one issue`, async () => {
      const { pylon, server, token, id } = await pylonSetup();
      pylon.failNext(failure, 'POST /issues');
      expectRetryable500(await escalate(server, token, id, { integration: 'pylon' }));
      const retry = await escalate(server, token, id, { integration: 'pylon' });
      expect(retry.status).toBe(200);
      expect(pylon.issues).toHaveLength(1);
      expect(retry.body.ticket_id).toBe(pylon.issues[0]!.id);
    });
  }

  it('retries safely when the duplicate check itself fails first', async () => {
    const { pylon, server, token, id } = await pylonSetup();
    pylon.failNext({ mode: 'lose-answer' }, 'POST /issues');
    expectRetryable500(await escalate(server, token, id, { integration: 'pylon' }));
    pylon.failNext({ mode: 'status', status: 500 }, 'POST /issues/search');
    expectRetryable500(await escalate(server, token, id, { integration: 'pylon' }));
    expect((await escalate(server, token, id, { integration: 'pylon' })).status).toBe(200);
    expect(pylon.issues).toHaveLength(1);
  });
});

describe('Linear', () => {
  it('creates one issue in the configured team with a Markdown description, Linear’s priority and the labels, with an id derived from the conversation', async () => {
    const { linear, server, token, id } = await linearSetup();
    const label = [...linear.labelIds][0]!;
    const res = await escalate(server, token, id, { integration: 'linear', additional_fields: { priority: 2, label_type_ids: [label] } });
    expect(res.status).toBe(200);
    const issue = linear.issues[0]!;
    expect(linear.issues).toHaveLength(1);
    expect(issue.id).toBe(linearIssueId('acme', id));
    expect(res.body).toEqual({ success: true, integration: 'linear', ticket_id: issue.id, ticket_url: expect.stringMatching(/^https:\/\/linear\.app\/test\/issue\/SUP-1\//) });
    expect(issue).toMatchObject({ teamId: linear.teamId, title: 'My invoice is wrong', priority: 3, labelIds: [label] });
    expect(issue.description).toContain('## Summary\n\n> Summary of 2 messages');
    expect(issue.description).toContain('**Visitor:**\n> My invoice is wrong');
    expect(linear.requests[0]!.headers.authorization).toBe(linear.apiKey);
  });

  it('maps every spec priority to Linear’s 1 (urgent) … 4 (low), and no priority to 0', async () => {
    const { linear, server, token } = await linearSetup();
    for (const priority of [0, 1, 2, 3, undefined]) {
      const id = await answeredConversation(server, token, `Question ${priority}`);
      const additional = priority === undefined ? {} : { additional_fields: { priority } };
      expect((await escalate(server, token, id, { integration: 'linear', ...additional })).status).toBe(200);
    }
    expect(linear.issues.map((i) => i.priority)).toEqual([1, 2, 3, 4, 0]);
  });

  const failures: [string, Failure, string][] = [
    ['a 429 with reset headers', { mode: 'status', status: 429, headers: { 'x-ratelimit-requests-reset': String(Date.now() + 30_000) } }, 'issueCreate'],
    ['Linear’s RATELIMITED error in a 400', { mode: 'status', status: 400, headers: { 'x-ratelimit-requests-reset': String(Date.now() + 30_000) }, body: { errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED' } }] } }, 'issueCreate'],
    ['a 500', { mode: 'status', status: 500 }, 'issueById'],
    ['a timeout', { mode: 'hang' }, 'issueCreate'],
    ['a GraphQL error inside an HTTP 200', { mode: 'graphql-error', message: 'Something went wrong', code: 'INTERNAL_ERROR' }, 'issueCreate'],
    ['an answer lost after the issue was created', { mode: 'lose-answer' }, 'issueCreate'],
  ];
  for (const [what, failure, operation] of failures) {
    it(`maps ${what} to 500 retryable, and the retry makes exactly one issue`, async () => {
      const { linear, server, token, id } = await linearSetup();
      linear.failNext(failure, operation);
      expectRetryable500(await escalate(server, token, id, { integration: 'linear' }));
      const retry = await escalate(server, token, id, { integration: 'linear' });
      expect(retry.status).toBe(200);
      expect(linear.issues).toHaveLength(1);
      expect(retry.body.ticket_id).toBe(linear.issues[0]!.id);
    });
  }

  it('answers 500 retryable: false when the team is not configured, naming LINEAR_TEAM_ID only in the log', async () => {
    const linear = await fakeLinear();
    closers.push(() => linear.close());
    const server = await serverWith({ LINEAR_API_KEY: linear.apiKey, LINEAR_API_URL: linear.apiUrl });
    const token = await server.token();
    const id = await answeredConversation(server, token);
    const res = await escalate(server, token, id, { integration: 'linear' });
    expectNotConfigured(res, 'Linear integration is not configured: set LINEAR_TEAM_ID (or run support-chat-kit integrations set linear --org ORG --team-id …)');
    expect(linear.requests).toHaveLength(0);
    // Still escalatable once configured.
    await new IntegrationSettingsStore(server.server.sql).set('acme', 'linear', { teamId: linear.teamId });
    expect((await escalate(server, token, id, { integration: 'linear' })).status).toBe(200);
  });
});

describe('configuration', () => {
  it('answers a missing setting with a 500 retryable: false that names it only in the log, for each integration', async () => {
    const server = await serverWith({});
    const token = await server.token();
    const id = await answeredConversation(server, token);
    const expected: Record<string, string> = {
      plain: 'Plain integration is not configured: set PLAIN_API_KEY',
      pylon: 'Pylon integration is not configured: set PYLON_API_KEY',
      linear: 'Linear integration is not configured: set LINEAR_API_KEY and LINEAR_TEAM_ID',
      webhook: 'Webhook integration is not configured: set SUPPORT_CHAT_WEBHOOK_URL and SUPPORT_CHAT_WEBHOOK_SECRET',
    };
    for (const [integration, message] of Object.entries(expected)) {
      const res = await escalate(server, token, id, { integration });
      expectNotConfigured(res, message);
      expect(JSON.stringify(res.body)).not.toMatch(/[A-Z]+_[A-Z_]+/);
    }
  });

  it('uses each organization’s own settings before the environment’s, and keeps organizations apart', async () => {
    const envPlain = await fakePlain('plainApiKey_env');
    const acmePlain = await fakePlain('plainApiKey_acme');
    closers.push(() => envPlain.close(), () => acmePlain.close());
    const server = await serverWith({ PLAIN_API_KEY: envPlain.apiKey, PLAIN_API_URL: envPlain.apiUrl });
    await new IntegrationSettingsStore(server.server.sql).set('acme', 'plain', { apiKey: acmePlain.apiKey, apiUrl: acmePlain.apiUrl, workspaceId: 'w_acme' });
    const acme = await server.token('acme');
    const globex = await server.token('globex');
    const a = await escalate(server, acme, await answeredConversation(server, acme), { integration: 'plain' });
    const g = await escalate(server, globex, await answeredConversation(server, globex), { integration: 'plain' });
    expect(a.status).toBe(200);
    expect(g.status).toBe(200);
    expect(acmePlain.threads).toHaveLength(1);
    expect(envPlain.threads).toHaveLength(1);
    expect(a.body.ticket_url).toBe(`https://app.plain.com/workspace/w_acme/thread/${acmePlain.threads[0]!.id}`);
    // The configured workspace id is used as it is: no myWorkspace lookup for acme.
    expect(acmePlain.requests.map((r) => r.operation)).toEqual(['upsertCustomer', 'threadByExternalId', 'createThread']);
  });

  it('the local servers are strict: an unknown input field is refused', async () => {
    const plain = await fakePlain();
    const linear = await fakeLinear();
    const pylon = await fakePylon();
    closers.push(() => plain.close(), () => linear.close(), () => pylon.close());
    const post = (url: string, auth: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const plainRes = await post(plain.apiUrl, `Bearer ${plain.apiKey}`, {
      query: 'mutation createThread($input: CreateThreadInput!) { createThread(input: $input) { thread { id } } }',
      variables: { input: { customerIdentifier: { customerId: 'c_1' }, titel: 'typo' } },
    });
    expect(plainRes.status).toBe(400);
    expect(JSON.stringify(await plainRes.json())).toContain('titel');
    const linearRes = await post(linear.apiUrl, linear.apiKey, { query: '{ issues { nodes { id nonsense } } }' });
    expect(linearRes.status).toBe(400);
    const pylonRes = await post(`${pylon.apiUrl}/issues`, `Bearer ${pylon.apiKey}`, { title: 't', body_html: '<p>b</p>', requester_email: 'a@b.c', prioritty: 'high' });
    expect(pylonRes.status).toBe(400);
  });
});

describe('the visitor’s note', () => {
  const note = 'Order <1234> & invoice 99: charged twice.';

  it('is a text component after the summary in Plain', async () => {
    const { plain, server, token, id } = await plainSetup();
    expect((await escalate(server, token, id, { integration: 'plain', note })).status).toBe(200);
    const components = plain.threads[0]!.components;
    expect(components[1]).toBe(`**Note from Ada Lovelace**\n\n${note}`);
  });

  it('is an escaped section of the Pylon body', async () => {
    const { pylon, server, token, id } = await pylonSetup();
    expect((await escalate(server, token, id, { integration: 'pylon', note })).status).toBe(200);
    expect(pylon.issues[0]!.body_html).toContain('<h2>Note from Ada Lovelace</h2><p>Order &lt;1234&gt; &amp; invoice 99: charged twice.</p>');
  });

  it('is a section of the Linear description', async () => {
    const { linear, server, token, id } = await linearSetup();
    expect((await escalate(server, token, id, { integration: 'linear', note })).status).toBe(200);
    expect(linear.issues[0]!.description).toContain('## Note from Ada Lovelace\n\n> Order \\<1234\\> \\& invoice 99\\: charged twice\\.\n\n## Conversation');
  });
});

