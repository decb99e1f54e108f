import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature, type ServerOptions } from '../../src/server/index.js';
import { testServer, webhookReceiver, type Receiver, type TestServer } from '../helpers/server.js';

let t: TestServer;
let receiver: Receiver | undefined;
afterEach(async () => {
  await t?.server.close();
  await receiver?.close();
  receiver = undefined;
});

const SECRET = 'webhook-secret-for-tests';
const customer = { integration: 'webhook', name: 'Ada Lovelace', email: 'ada@example.com' };

async function setup(rateLimits?: ServerOptions['rateLimits']) {
  receiver = await webhookReceiver();
  t = testServer({ rateLimits, env: { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET } });
  const token = t.token();
  const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'My invoice is wrong' } });
  return { token, id: sent.body.conversation_id as string };
}

describe('POST /v0/chat/{id}/escalate', () => {
  it('creates one signed webhook ticket with transcript and generated summary, and answers 200', async () => {
    const { token, id } = await setup();
    await t.answer();
    const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, additional_fields: { label_type_ids: ['billing'], priority: 1 } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, integration: 'webhook', ticket_id: expect.stringMatching(/^tkt_/), ticket_url: `https://helpdesk.example.com/tickets/${res.body.ticket_id}` });
    expect(receiver!.deliveries).toHaveLength(1);
    const delivery = receiver!.deliveries[0]!;
    const ticket = JSON.parse(delivery.body);
    expect(ticket).toMatchObject({
      id: res.body.ticket_id,
      conversation_id: id,
      title: 'My invoice is wrong',
      summary: 'Summary of 2 messages',
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      label_type_ids: ['billing'],
      priority: 1,
    });
    expect(ticket.transcript.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(verifyWebhookSignature(SECRET, delivery.headers['x-support-chat-timestamp'] as string, delivery.body, delivery.headers['x-support-chat-signature'] as string)).toBe(true);
    expect(verifyWebhookSignature('other-secret', delivery.headers['x-support-chat-timestamp'] as string, delivery.body, delivery.headers['x-support-chat-signature'] as string)).toBe(false);
  });

  it('uses the given title and summary instead of generating them', async () => {
    const { token, id } = await setup();
    await t.answer();
    await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, title: 'Refund', summary: 'Wants a refund.' } });
    expect(JSON.parse(receiver!.deliveries[0]!.body)).toMatchObject({ title: 'Refund', summary: 'Wants a refund.' });
  });

  it('answers 409 "Conversation is still processing" while processing', async () => {
    const { token, id } = await setup();
    const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'conflict', message: 'Conversation is still processing' } });
  });

  it('refuses the 31st escalation in a minute with 429 (the lower per-organization limit)', async () => {
    const { token, id } = await setup();
    await t.answer();
    const results = await Promise.all(Array.from({ length: 31 }, () => t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer })));
    expect(results.filter((r) => r.status === 429)).toHaveLength(1);
  });

  it('answers 409 when escalating twice', async () => {
    const { token, id } = await setup();
    await t.answer();
    expect((await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer })).status).toBe(200);
    const again = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({ code: 'conflict', message: 'Conversation has already been escalated' });
    expect(receiver!.deliveries).toHaveLength(1);
  });

  it('creates exactly one ticket when 50 escalations of one conversation arrive at once', async () => {
    // The escalation limit (30 per minute) is raised so that all 50 reach the handler.
    const { token, id } = await setup({ endpoints: { escalate: 100 } });
    await t.answer();
    receiver!.delayMs = 50;
    const results = await Promise.all(Array.from({ length: 50 }, () => t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(receiver!.deliveries).toHaveLength(1);
  });

  it('answers 500 retryable when the helpdesk fails, and the conversation stays escalatable', async () => {
    const { token, id } = await setup();
    await t.answer();
    receiver!.failNext = [503];
    const failed = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ error: { code: 'internal_error', message: 'An internal error occurred', retryable: true } });
    const retried = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer });
    expect(retried.status).toBe(200);
    expect(receiver!.deliveries).toHaveLength(1);
  });

  it('answers 500 not retryable, naming what is missing, when the integration is not configured', async () => {
    t = testServer({ env: {} });
    const token = t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'q' } });
    await t.answer();
    for (const integration of ['webhook', 'plain', 'pylon', 'linear']) {
      const res = await t.call('POST', `/v0/chat/${sent.body.conversation_id}/escalate`, { token, body: { ...customer, integration } });
      expect(res.status).toBe(500);
      expect(res.body.error.retryable).toBe(false);
      expect(res.body.error.message).toMatch(/not configured: set [A-Z_]+/);
    }
  });

  it('lets a failed conversation be escalated', async () => {
    receiver = await webhookReceiver();
    t = testServer({ maxAttempts: 1, env: { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET } });
    const token = t.token();
    t.engine.failures = 1;
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'q' } });
    await t.answer();
    expect((await t.call('GET', `/v0/chat/${sent.body.conversation_id}`, { token })).body.status).toBe('failed');
    expect((await t.call('POST', `/v0/chat/${sent.body.conversation_id}/escalate`, { token, body: customer })).status).toBe(200);
  });

  it.each([
    [{ name: 'A', email: 'a@b.co' }, '"integration" is required'],
    [{ integration: 'zendesk', name: 'A', email: 'a@b.co' }, '"integration" must be one of plain, pylon, linear, webhook'],
    [{ integration: 'webhook', email: 'a@b.co' }, '"name" is required'],
    [{ integration: 'webhook', name: '', email: 'a@b.co' }, '"name" must not be empty'],
    [{ integration: 'webhook', name: 'A' }, '"email" is required'],
    [{ integration: 'webhook', name: 'A', email: 'not-an-email' }, '"email" must be an email address'],
    [{ integration: 'webhook', name: 'A', email: 'a@b.co', additional_fields: { priority: 9 } }, '"additional_fields.priority" must be an integer from 0 (urgent) to 3 (low)'],
    [{ integration: 'webhook', name: 'A', email: 'a@b.co', additional_fields: { label_type_ids: 'x' } }, '"additional_fields.label_type_ids" must be an array of up to 50 non-empty strings'],
    [{ integration: 'webhook', name: 'A', email: 'a@b.co', title: 5 }, '"title" must be a string'],
    [{ integration: 'webhook', name: 'A', email: 'a@b.co', colour: 'red' }, 'Unknown field "colour"'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const { token, id } = await setup();
    await t.answer();
    const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
  });

  it('answers 400 "Invalid JSON in request body" and 404 for another organization', async () => {
    const { token, id } = await setup();
    await t.answer();
    expect((await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: 'nope{' })).body.error.message).toBe('Invalid JSON in request body');
    const other = await t.call('POST', `/v0/chat/${id}/escalate`, { token: t.token('globex'), body: customer });
    expect(other.status).toBe(404);
    expect(receiver!.deliveries).toHaveLength(0);
  });
});
