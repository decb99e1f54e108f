/**
 * Helpdesk webhook receivers: `POST /v0/webhooks/{source}/{org}` verifies Plain's request
 * signature, Linear's HMAC and timestamp, and Pylon's timestamped HMAC, then upserts or removes
 * the synced ticket.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { IntegrationSettingsStore } from '../../../src/server/escalation/index.js';
import { testServer, type TestServer } from '../../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const SECRET = 'whsec_test_secret';
const hmac = (payload: string, secret = SECRET) => createHmac('sha256', secret).update(payload).digest('hex');

async function setup(env: Record<string, string> = {}) {
  t = await testServer({ env: { PLAIN_WEBHOOK_SECRET: SECRET, LINEAR_WEBHOOK_SECRET: SECRET, PYLON_WEBHOOK_SECRET: SECRET, ...env } });
  return { s: t, token: await t.token('acme') };
}

function plainEvent(eventType: string, thread: Record<string, unknown>) {
  return JSON.stringify({
    id: 'pEv_1',
    type: eventType,
    webhookMetadata: { webhookTargetId: 'whTarget_1', webhookTargetVersion: '2024-09-18', webhookDeliveryAttemptId: 'whAttempt_1', webhookDeliveryAttemptNumber: 1, webhookDeliveryAttemptTimestamp: new Date().toISOString() },
    timestamp: new Date().toISOString(),
    workspaceId: 'w_123',
    payload: { eventType, thread },
  });
}

function plainThread(overrides: Record<string, unknown> = {}) {
  const at = { iso8601: '2026-11-01T10:00:00.000Z', unixTimestamp: '1793527200000' };
  return {
    id: 'th_01ABC',
    externalId: null,
    title: 'Cannot log in',
    previewText: 'I get an error when logging in',
    status: 'TODO',
    priority: 2,
    customer: { id: 'c_1', fullName: 'Ada Lovelace', email: { email: 'ada@example.com', isVerified: true } },
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

const post = (s: TestServer, path: string, body: string, headers: Record<string, string>) => s.call('POST', path, { body, headers: { 'content-type': 'application/json', ...headers } });

describe('Plain webhooks', () => {
  it('upserts the thread as a ticket when Plain-Request-Signature matches, and refuses anything else with 401', async () => {
    const { s, token } = await setup();
    const body = plainEvent('thread.thread_created', plainThread());
    const res = await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    const ticket = await s.call('GET', '/v0/tickets/plain/th_01ABC', { token });
    expect(ticket.body).toMatchObject({ source: 'plain', external_id: 'th_01ABC', title: 'Cannot log in', status: 'todo', url: 'https://app.plain.com/workspace/w_123/thread/th_01ABC', customer_email: 'ada@example.com' });

    const tampered = body.replace('Cannot log in', 'Hacked');
    const bad = await post(s, '/v0/webhooks/plain/acme', tampered, { 'plain-request-signature': hmac(body) });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ error: { code: 'unauthorized', message: 'Invalid webhook signature' } });
    expect((await post(s, '/v0/webhooks/plain/acme', body, {})).status).toBe(401);
    expect((await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body, 'other') })).status).toBe(401);
    expect((await s.call('GET', '/v0/tickets/plain/th_01ABC', { token })).body.title).toBe('Cannot log in');
  });

  it('applies a newer state, ignores an older one delivered late, and ignores events that are not about threads', async () => {
    const { s, token } = await setup();
    const send = (eventType: string, thread: Record<string, unknown>) => {
      const body = plainEvent(eventType, thread);
      return post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body) });
    };
    await send('thread.thread_created', plainThread());
    const later = { iso8601: '2026-11-02T10:00:00.000Z', unixTimestamp: '1793613600000' };
    expect((await send('thread.thread_status_transitioned', plainThread({ status: 'DONE', updatedAt: later }))).body).toEqual({ received: true });
    expect((await send('thread.thread_status_transitioned', plainThread({ status: 'SNOOZED' }))).body).toEqual({ received: true, ignored: 'stale' });
    expect((await s.call('GET', '/v0/tickets/plain/th_01ABC', { token })).body.status).toBe('done');
    const other = JSON.stringify({ id: 'pEv_2', type: 'customer.customer_created', workspaceId: 'w_123', timestamp: new Date().toISOString(), payload: { eventType: 'customer.customer_created', customer: {} } });
    expect((await post(s, '/v0/webhooks/plain/acme', other, { 'plain-request-signature': hmac(other) })).body).toEqual({ received: true, ignored: 'event' });
  });

  it('answers 400 for a signed payload that is not valid, and 404 where no secret is configured', async () => {
    const { s } = await setup({ PLAIN_WEBHOOK_SECRET: '' });
    const body = plainEvent('thread.thread_created', plainThread());
    // No secret for acme: there is no receiver to reach.
    expect((await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body) })).status).toBe(404);
    expect((await post(s, '/v0/webhooks/zendesk/acme', body, {})).status).toBe(404);
    await new IntegrationSettingsStore(s.server.sql).set('acme', 'plain', { webhookSecret: SECRET });
    const broken = JSON.stringify({ timestamp: new Date().toISOString(), payload: { eventType: 'thread.thread_created', thread: { id: 'th_2' } } });
    const res = await post(s, '/v0/webhooks/plain/acme', broken, { 'plain-request-signature': hmac(broken) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^Webhook payload is missing /);
    const notJson = 'not json';
    expect((await post(s, '/v0/webhooks/plain/acme', notJson, { 'plain-request-signature': hmac(notJson) })).status).toBe(400);
  });

  it('refuses a signed delivery whose timestamp is more than 5 minutes old or missing (a replay)', async () => {
    const { s, token } = await setup();
    const fresh = JSON.parse(plainEvent('thread.thread_created', plainThread())) as Record<string, unknown>;
    for (const timestamp of ['2020-01-01T00:00:00.000Z', new Date(Date.now() - 6 * 60_000).toISOString(), new Date(Date.now() + 6 * 60_000).toISOString(), undefined]) {
      const body = JSON.stringify({ ...fresh, timestamp });
      const res = await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body) });
      expect(res.status, String(timestamp)).toBe(401);
    }
    expect((await s.call('GET', '/v0/tickets/plain/th_01ABC', { token })).status).toBe(404);
    const recent = JSON.stringify({ ...fresh, timestamp: new Date(Date.now() - 4 * 60_000).toISOString() });
    expect((await post(s, '/v0/webhooks/plain/acme', recent, { 'plain-request-signature': hmac(recent) })).status).toBe(200);
  });

  it('keeps organizations apart: a delivery signed with one organization’s secret is refused for another', async () => {
    const { s } = await setup({ PLAIN_WEBHOOK_SECRET: '' });
    const store = new IntegrationSettingsStore(s.server.sql);
    await store.set('acme', 'plain', { webhookSecret: 'acme-secret' });
    await store.set('globex', 'plain', { webhookSecret: 'globex-secret' });
    const body = plainEvent('thread.thread_created', plainThread());
    expect((await post(s, '/v0/webhooks/plain/globex', body, { 'plain-request-signature': hmac(body, 'acme-secret') })).status).toBe(401);
    expect((await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body, 'acme-secret') })).status).toBe(200);
    expect((await s.call('GET', '/v0/tickets/plain/th_01ABC', { token: await s.token('globex') })).status).toBe(404);
  });
});

describe('Linear webhooks', () => {
  function linearEvent(action: string, data: Record<string, unknown>, timestamp = Date.now()) {
    return JSON.stringify({ action, type: 'Issue', data, url: 'https://linear.app/test/issue/SUP-1', createdAt: new Date().toISOString(), organizationId: 'org_1', webhookTimestamp: timestamp, webhookId: 'wh_1' });
  }
  const issue = {
    id: '2f6e4f3e-1111-4b6b-9f1e-1a2b3c4d5e6f',
    identifier: 'SUP-1',
    title: 'Export fails',
    description: 'The CSV export times out',
    url: 'https://linear.app/test/issue/SUP-1/export-fails',
    priority: 2,
    createdAt: '2026-11-01T10:00:00.000Z',
    updatedAt: '2026-11-01T10:00:00.000Z',
    teamId: 'team_1',
    state: { id: 's1', name: 'Todo', type: 'unstarted' },
  };

  it('creates, updates and removes tickets on Linear-Signature deliveries within 60 seconds', async () => {
    const { s, token } = await setup();
    const send = (body: string, signature = hmac(body)) => post(s, '/v0/webhooks/linear/acme', body, { 'linear-signature': signature });
    expect((await send(linearEvent('create', issue))).status).toBe(200);
    expect((await s.call('GET', `/v0/tickets/linear/${issue.id}`, { token })).body).toMatchObject({ title: 'Export fails', status: 'Todo', url: issue.url });
    await send(linearEvent('update', { ...issue, title: 'Export fails for big files', updatedAt: '2026-11-02T10:00:00.000Z', state: { id: 's2', name: 'In Progress', type: 'started' } }));
    expect((await s.call('GET', `/v0/tickets/linear/${issue.id}`, { token })).body).toMatchObject({ title: 'Export fails for big files', status: 'In Progress' });
    // A replay of an old delivery is refused even though its signature is valid.
    const old = linearEvent('remove', issue, Date.now() - 120_000);
    expect((await send(old)).status).toBe(401);
    expect((await send(linearEvent('remove', issue))).status).toBe(200);
    expect((await s.call('GET', `/v0/tickets/linear/${issue.id}`, { token })).status).toBe(404);
  });

  it('ignores issues of other teams when a team is configured, and comments altogether', async () => {
    const { s, token } = await setup({ LINEAR_TEAM_ID: 'team_other' });
    const body = linearEvent('create', issue);
    expect((await post(s, '/v0/webhooks/linear/acme', body, { 'linear-signature': hmac(body) })).body).toEqual({ received: true, ignored: 'event' });
    expect((await s.call('GET', `/v0/tickets/linear/${issue.id}`, { token })).status).toBe(404);
    const comment = JSON.stringify({ action: 'create', type: 'Comment', data: { id: 'c1', body: 'hi' }, webhookTimestamp: Date.now() });
    expect((await post(s, '/v0/webhooks/linear/acme', comment, { 'linear-signature': hmac(comment) })).body).toEqual({ received: true, ignored: 'event' });
  });
});

describe('Pylon webhooks', () => {
  const issue = {
    id: '7d1c2f9a-0000-4a4a-8b8b-123456789abc',
    number: 42,
    title: 'Billing question',
    body_html: '<p>Why was I charged twice?</p>',
    state: 'new',
    link: 'https://app.usepylon.com/issues?issueNumber=42',
    created_at: '2026-11-01T10:00:00Z',
    latest_message_time: '2026-11-01T10:00:00Z',
    requester: { id: 'r1', email: 'bob@example.com' },
  };
  const sign = (body: string, timestamp: string, secret = SECRET) => `hs256=${hmac(`${timestamp}.${body}`, secret)}`;

  it('upserts on a valid timestamped signature, refuses old or forged ones, and removes on issue.deleted', async () => {
    const { s, token } = await setup();
    const now = String(Math.floor(Date.now() / 1000));
    const send = (body: string, timestamp = now, signature = sign(body, timestamp)) =>
      post(s, '/v0/webhooks/pylon/acme', body, { 'pylon-webhook-timestamp': timestamp, 'pylon-webhook-signature': signature, 'pylon-webhook-version': '2021-07' });
    const created = JSON.stringify({ event_type: 'issue.created', data: issue });
    expect((await send(created)).status).toBe(200);
    expect((await s.call('GET', `/v0/tickets/pylon/${issue.id}`, { token })).body).toMatchObject({ title: 'Billing question', status: 'new', url: issue.link, customer_email: 'bob@example.com' });
    const old = String(Math.floor(Date.now() / 1000) - 600);
    expect((await send(created, old)).status).toBe(401);
    expect((await send(created, now, sign(created, now, 'wrong'))).status).toBe(401);
    expect((await send(created, now, hmac(`${now}.${created}`))).status).toBe(401);
    expect((await send(JSON.stringify({ event_type: 'issue.deleted', data: { id: issue.id } }))).status).toBe(200);
    expect((await s.call('GET', `/v0/tickets/pylon/${issue.id}`, { token })).status).toBe(404);
  });
});

describe('webhook rate limits', () => {
  it('count per source and organization at the organization limit, not against the sending address', async () => {
    t = await testServer({ env: { PLAIN_WEBHOOK_SECRET: SECRET }, rateLimits: { perAddress: 2, perOrganization: 5 } });
    const s = t;
    const body = plainEvent('thread.thread_created', plainThread());
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body) })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Another organization has its own quota; the address's own quota was never touched.
    expect((await post(s, '/v0/webhooks/plain/globex', body, { 'plain-request-signature': hmac(body) })).status).toBe(200);
    expect((await s.call('GET', '/v0/me')).response.headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('never spends the organization quota on forged deliveries: after 600 of them the real helpdesk still gets through', async () => {
    const { s, token } = await setup();
    const body = plainEvent('thread.thread_created', plainThread());
    const forged: number[] = [];
    for (let i = 0; i < 600; i++) forged.push((await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body, 'guessed') })).status);
    // Forgeries count against their own address (60 a minute), then are refused there.
    expect(forged.slice(0, 60).every((status) => status === 401)).toBe(true);
    expect(forged.slice(60).every((status) => status === 429)).toBe(true);
    const real = await post(s, '/v0/webhooks/plain/acme', body, { 'plain-request-signature': hmac(body) });
    expect(real.status).toBe(200);
    expect((await s.call('GET', '/v0/tickets/plain/th_01ABC', { token })).status).toBe(200);
  });

  it('counts a delivery to an organization without a receiver against the sending address', async () => {
    t = await testServer({ env: {}, rateLimits: { perAddress: 2 } });
    const body = plainEvent('thread.thread_created', plainThread());
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(t, '/v0/webhooks/plain/nobody', body, { 'plain-request-signature': hmac(body) })).status);
    expect(statuses).toEqual([404, 404, 429]);
  });
});
