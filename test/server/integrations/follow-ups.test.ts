/**
 * After escalation, the visitor's further messages reach the ticket: each is stored and answered
 * as usual, and forwarded in the background (a Plain thread event, a Linear comment, a Pylon
 * internal note, a signed `ticket.message` webhook event), durably: a failed call is retried
 * later, also after a restart, and never duplicated where the helpdesk allows it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linearCommentId } from '../../../src/server/helpdesks/linear/index.js';
import { verifyWebhookSignature } from '../../../src/server/index.js';
import { createIntegrationResolver } from '../../../src/server/escalation/index.js';
import { FollowUpForwarder } from '../../../src/server/escalation/follow-ups.js';
import { silentLogger } from '../../../src/server/log.js';
import type { Sql } from '../../../src/server/store/sql-interface.js';
import { fakeLinear } from '../../helpers/fake-linear.js';
import { fakePlain } from '../../helpers/fake-plain.js';
import { fakePylon } from '../../helpers/fake-pylon.js';
import { freshDatabaseUrl } from '../../helpers/database.js';
import { testServer, webhookReceiver, type TestServer } from '../../helpers/server.js';

const servers: TestServer[] = [];
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.server.close();
  while (closers.length) await closers.pop()!();
});

const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };
async function serverWith(env: Record<string, string>, options: { dataDir?: string; databaseUrl?: string; startWorker?: boolean } = {}) {
  const t = await testServer({ env: { SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS: '1500', ...env }, integrations: undefined, ...options });
  servers.push(t);
  return t;
}

/** A conversation escalated to `integration`: one question answered, then the ticket. */
async function escalated(t: TestServer, token: string, integration: string) {
  const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'My invoice is wrong' } });
  const id = sent.body.conversation_id as string;
  await t.answer();
  const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, integration } });
  expect(res.status).toBe(200);
  return { id, ticketId: res.body.ticket_id as string };
}

async function followUp(t: TestServer, token: string, id: string, message: string) {
  const res = await t.call('POST', '/v0/chat', { token, body: { message, conversation_id: id } });
  expect(res.status).toBe(202);
  await t.answer();
}

/**
 * Reaches the retry time of the follow-ups waiting for one, without waiting for it. Retry times are
 * on the database's clock (`clock_ms()`, PostgreSQL's own on PostgreSQL), so they are moved instead of the clock.
 */
const retryDue = (t: TestServer) => t.server.sql.run("UPDATE ticket_follow_ups SET run_after = 0 WHERE state = 'queued'");

const rows = (t: TestServer) => t.server.sql.all<{ conversation_id: string; seq: number; state: string; attempts: number; last_error: string | null }>('SELECT conversation_id, seq, state, attempts, last_error FROM ticket_follow_ups ORDER BY id');

describe('Plain', () => {
  it('adds each later visitor message to the thread as a thread event, once, and the chat still answers it', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const t = await serverWith({ PLAIN_API_KEY: plain.apiKey, PLAIN_API_URL: plain.apiUrl });
    const token = await t.token();
    const { id, ticketId } = await escalated(t, token, 'plain');
    await followUp(t, token, id, 'Also: I was charged twice on 3 November.');
    const conversation = await t.call('GET', `/v0/chat/${id}`, { token });
    expect(conversation.body.status).toBe('completed');
    expect(conversation.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    expect(await t.server.followUps.runOnce()).toBe(1);
    expect(plain.threadEvents).toHaveLength(1);
    expect(plain.threadEvents[0]).toMatchObject({ threadId: ticketId, externalId: `${id}:3`, components: ['Also: I was charged twice on 3 November.'] });
    expect(await t.server.followUps.runOnce()).toBe(0);
    expect(plain.threadEvents).toHaveLength(1);
  });

  it('counts an event Plain already has (its answer was lost) as added, instead of failing forever', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const t = await serverWith({ PLAIN_API_KEY: plain.apiKey, PLAIN_API_URL: plain.apiUrl });
    const token = await t.token();
    const { id } = await escalated(t, token, 'plain');
    await followUp(t, token, id, 'One more thing');
    plain.failNext({ mode: 'lose-answer' }, 'createThreadEvent');
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'queued', attempts: 1, last_error: expect.stringMatching(/did not answer/) });
    await retryDue(t);
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'done', attempts: 2 });
    expect(plain.threadEvents).toHaveLength(1);
  });

  it('forwards nothing for a conversation that was never escalated', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const t = await serverWith({ PLAIN_API_KEY: plain.apiKey, PLAIN_API_URL: plain.apiUrl });
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'Hello' } });
    await t.answer();
    await followUp(t, token, sent.body.conversation_id, 'Hello again');
    expect(await t.server.followUps.runOnce()).toBe(0);
    expect(await rows(t)).toEqual([]);
  });
});

describe('Linear', () => {
  it('adds a comment with a client-chosen id, so a retry after a lost answer finds it instead of adding a second', async () => {
    const linear = await fakeLinear();
    closers.push(() => linear.close());
    const t = await serverWith({ LINEAR_API_KEY: linear.apiKey, LINEAR_API_URL: linear.apiUrl, LINEAR_TEAM_ID: linear.teamId });
    const token = await t.token();
    const { id, ticketId } = await escalated(t, token, 'linear');
    await followUp(t, token, id, 'The export also fails for **March**.');
    linear.failNext({ mode: 'lose-answer' }, 'commentCreate');
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'queued', attempts: 1 });
    await retryDue(t);
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'done' });
    expect(linear.comments).toHaveLength(1);
    expect(linear.comments[0]).toMatchObject({ id: linearCommentId('acme', id, 3), issueId: ticketId });
    // The visitor's Markdown is shown as they typed it, never as formatting.
    expect(linear.comments[0]!.body).toContain('> The export also fails for \\*\\*March\\*\\*\\.');
  });
});

describe('Pylon', () => {
  it('posts an internal note on the issue, every character of the message escaped', async () => {
    const pylon = await fakePylon();
    closers.push(() => pylon.close());
    const t = await serverWith({ PYLON_API_KEY: pylon.apiKey, PYLON_API_URL: pylon.apiUrl });
    const token = await t.token();
    const { id, ticketId } = await escalated(t, token, 'pylon');
    await followUp(t, token, id, 'It says <script>alert(1)</script> & stops');
    await t.server.followUps.runOnce();
    expect(pylon.notes).toHaveLength(1);
    expect(pylon.notes[0]!.issue_id).toBe(ticketId);
    expect(pylon.notes[0]!.body_html).toContain('It says &lt;script&gt;alert(1)&lt;/script&gt; &amp; stops');
    expect(pylon.notes[0]!.body_html).not.toContain('<script>');
  });
});

describe('Pylon retries', () => {
  it('finds the note a lost answer had added (by its marker in the issue’s messages) instead of adding a second', async () => {
    const pylon = await fakePylon();
    closers.push(() => pylon.close());
    const t = await serverWith({ PYLON_API_KEY: pylon.apiKey, PYLON_API_URL: pylon.apiUrl });
    const token = await t.token();
    const { id } = await escalated(t, token, 'pylon');
    await followUp(t, token, id, 'Any news?');
    pylon.failNext({ mode: 'lose-answer' }, 'POST /issues/{id}/note');
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'queued', attempts: 1 });
    await retryDue(t);
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'done', attempts: 2 });
    expect(pylon.notes).toHaveLength(1);
    expect(pylon.requests.filter((r) => r.operation === 'GET /issues/{id}/messages')).toHaveLength(1);
  });
});

describe('webhook', () => {
  const SECRET = 'webhook-secret-for-tests';

  it('sends a signed ticket.message event, retried with the same id after a failure', async () => {
    const receiver = await webhookReceiver();
    closers.push(() => receiver.close());
    const t = await serverWith({ SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET });
    const token = await t.token();
    const { id, ticketId } = await escalated(t, token, 'webhook');
    await followUp(t, token, id, 'Can you call me back?');
    receiver.failNext = [503];
    await t.server.followUps.runOnce();
    expect((await rows(t))[0]).toMatchObject({ state: 'queued', attempts: 1, last_error: 'Webhook receiver answered 503' });
    expect(await t.server.followUps.runOnce()).toBe(0); // not yet due
    await retryDue(t);
    await t.server.followUps.runOnce();
    expect(receiver.deliveries).toHaveLength(2);
    const delivery = receiver.deliveries[1]!;
    expect(delivery.headers['x-support-chat-event']).toBe('ticket.message');
    expect(verifyWebhookSignature(SECRET, delivery.headers['x-support-chat-timestamp'] as string, delivery.body, delivery.headers['x-support-chat-signature'] as string, 300, Date.now())).toBe(true);
    const event = JSON.parse(delivery.body);
    expect(event).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      ticket_id: ticketId,
      conversation_id: id,
      organization_id: 'acme',
      message: { role: 'user', content: 'Can you call me back?' },
      created_at: expect.any(String),
    });
    expect(delivery.headers['idempotency-key']).toBe(event.id);
    // The retry is the same event: the failed delivery carried its id, so a receiver that had
    // processed it before answering 503 can tell the retry apart from a new message.
    expect(receiver.refused).toHaveLength(1);
    const failed = receiver.refused[0]!;
    expect(JSON.parse(failed.body).id).toBe(event.id);
    expect(failed.headers['idempotency-key']).toBe(event.id);
  });

  it('keeps a conversation’s messages in order: a later one waits while an earlier one is being retried', async () => {
    const receiver = await webhookReceiver();
    closers.push(() => receiver.close());
    const t = await serverWith({ SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET });
    const token = await t.token();
    const { id } = await escalated(t, token, 'webhook');
    await followUp(t, token, id, 'first');
    receiver.failNext = [500];
    await t.server.followUps.runOnce();
    await followUp(t, token, id, 'second');
    expect(await t.server.followUps.runOnce()).toBe(0);
    await retryDue(t);
    await t.server.followUps.runOnce();
    const contents = receiver.deliveries.slice(1).map((d) => JSON.parse(d.body).message.content);
    expect(contents).toEqual(['first', 'second']);
  });

  it('survives a restart: a follow-up that failed before the server stopped is delivered by the next one', async () => {
    const receiver = await webhookReceiver();
    closers.push(() => receiver.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-follow-ups-'));
    closers.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET };
    // The same database for both servers: the directory on SQLite, one schema on PostgreSQL.
    const databaseUrl = freshDatabaseUrl();
    const first = await serverWith(env, { dataDir, databaseUrl });
    const token = await first.token();
    const { id } = await escalated(first, token, 'webhook');
    await followUp(first, token, id, 'Still waiting');
    receiver.failNext = [502];
    await first.server.followUps.runOnce();
    await first.server.close();
    servers.splice(servers.indexOf(first), 1);

    const second = await serverWith(env, { dataDir, databaseUrl });
    await retryDue(second);
    expect(await second.server.followUps.runOnce()).toBe(1);
    expect(receiver.deliveries.map((d) => JSON.parse(d.body).message?.content)).toEqual([undefined, 'Still waiting']);
  });

  it('forwards by itself in a server started as `serve` starts it (worker and forwarder running)', async () => {
    const receiver = await webhookReceiver();
    closers.push(() => receiver.close());
    const t = await serverWith({ SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET }, { startWorker: true });
    const token = await t.token();
    const settled = (id: string) => t.call('GET', `/v0/chat/${id}`, { token, headers: { prefer: 'wait=10' } });
    const id = (await t.call('POST', '/v0/chat', { token, body: { message: 'My invoice is wrong' } })).body.conversation_id as string;
    expect((await settled(id)).body.status).toBe('completed');
    expect((await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, integration: 'webhook' } })).status).toBe(200);
    expect((await t.call('POST', '/v0/chat', { token, body: { message: 'Are you there?', conversation_id: id } })).status).toBe(202);
    await vi.waitFor(() => expect(receiver.deliveries).toHaveLength(2), { timeout: 10_000 });
    expect(JSON.parse(receiver.deliveries[1]!.body).message.content).toBe('Are you there?');
    expect((await settled(id)).body.messages).toHaveLength(4);
  });

  it('looks again as soon as a run ends when a follow-up was committed during it, not at the next poll', async () => {
    const receiver = await webhookReceiver();
    closers.push(() => receiver.close());
    const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET };
    const t = await serverWith(env);
    const token = await t.token();
    const { id } = await escalated(t, token, 'webhook');
    // A forwarder that polls once a minute, whose first look for work finds nothing and is then
    // held, so that the follow-up is committed (and the forwarder woken) while that run is under way.
    let looked!: () => void;
    const looking = new Promise<void>((resolve) => (looked = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    const sql = new Proxy(t.server.sql, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (key !== 'get' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (first) {
            first = false;
            looked();
            await held;
          }
          return result;
        };
      },
    }) as Sql;
    const forwarder = new FollowUpForwarder({ sql, integrations: createIntegrationResolver({ env, sql: t.server.sql }), logger: silentLogger, pollMs: 60_000 });
    closers.push(() => forwarder.stop());
    forwarder.start();
    await looking;
    expect((await t.call('POST', '/v0/chat', { token, body: { message: 'Anyone?', conversation_id: id } })).status).toBe(202);
    forwarder.wake();
    release();
    await vi.waitFor(() => expect(receiver.deliveries).toHaveLength(2), { timeout: 10_000 });
    expect(JSON.parse(receiver.deliveries[1]!.body).message.content).toBe('Anyone?');
  });

  it('answers the POST at once while the helpdesk hangs: forwarding happens in the background', async () => {
    const plain = await fakePlain();
    closers.push(() => plain.close());
    const t = await serverWith({ PLAIN_API_KEY: plain.apiKey, PLAIN_API_URL: plain.apiUrl, SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS: '10000' });
    const token = await t.token();
    const { id } = await escalated(t, token, 'plain');
    plain.failNext({ mode: 'hang' }, 'createThreadEvent');
    t.server.followUps.start();
    const res = await t.call('POST', '/v0/chat', { token, body: { message: 'Hello?', conversation_id: id } });
    expect(res.status).toBe(202);
    // The helpdesk call is under way (and will hang for 10 s), yet the POST was already answered.
    await vi.waitFor(() => expect(plain.requests.some((r) => r.operation === 'createThreadEvent')).toBe(true), { timeout: 5_000 });
    expect((await rows(t))[0]).toMatchObject({ state: 'queued', attempts: 1, last_error: null });
    await t.server.followUps.stop();
  });
});
