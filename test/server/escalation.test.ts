import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, verifyWebhookSignature, type ServerOptions } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { ESCALATION_NOT_CONFIGURED } from '../../src/server/http/routes/escalate.js';
import { ALL_SCOPES, testServer, webhookReceiver, type Receiver, type TestServer } from '../helpers/server.js';
import { createTestEngine } from '../helpers/test-engine.js';

let t: TestServer;
let receiver: Receiver | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await t?.server.close();
  await receiver?.close();
  receiver = undefined;
  while (cleanups.length) await cleanups.pop()!();
});

/** A webhook receiver that holds each delivery until released, and says when one has arrived. */
async function holdingReceiver() {
  let arrived!: () => void;
  const arrival = new Promise<void>((r) => (arrived = r));
  const held: { req: IncomingMessage; res: ServerResponse; body: string }[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      held.push({ req, res, body });
      arrived();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  cleanups.push(close);
  return {
    url: `http://127.0.0.1:${port}/hooks/tickets`,
    arrival,
    held,
    release() {
      for (const { res, body } of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: `https://helpdesk.example.com/tickets/${JSON.parse(body).id}` }));
      }
    },
  };
}

const SECRET = 'webhook-secret-for-tests';
const customer = { integration: 'webhook', name: 'Ada Lovelace', email: 'ada@example.com' };

async function setup(rateLimits?: ServerOptions['rateLimits']) {
  receiver = await webhookReceiver();
  t = await testServer({ rateLimits, env: { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET } });
  const token = await t.token();
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

  it('answers 500 not retryable, naming no setting, when the integration is not configured', async () => {
    t = await testServer({ env: {} });
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'q' } });
    await t.answer();
    for (const integration of ['webhook', 'plain', 'pylon', 'linear']) {
      const res = await t.call('POST', `/v0/chat/${sent.body.conversation_id}/escalate`, { token, body: { ...customer, integration } });
      expect(res.status).toBe(500);
      expect(res.body.error.retryable).toBe(false);
      expect(res.body.error.message).toBe(ESCALATION_NOT_CONFIGURED);
    }
  });

  it('lets a failed conversation be escalated', async () => {
    receiver = await webhookReceiver();
    t = await testServer({ maxAttempts: 1, env: { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET } });
    const token = await t.token();
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
    const other = await t.call('POST', `/v0/chat/${id}/escalate`, { token: await t.token('globex'), body: customer });
    expect(other.status).toBe(404);
    expect(receiver!.deliveries).toHaveLength(0);
  });
});

describe('Idempotency-Key on escalation', () => {
  const key = (id: string) => ({ 'idempotency-key': `escalate-${id}` });

  it('never stores a 409: the same key escalates once the answer is complete, and then replays that success', async () => {
    const { token, id } = await setup();
    const early = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toBe('Conversation is still processing');
    await t.answer();
    const later = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    expect(later.status).toBe(200);
    expect(later.response.headers.get('idempotent-replayed')).toBeNull();
    const replayed = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(later.body);
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(receiver!.deliveries).toHaveLength(1);
  });

  it('lets a corrected form use the same key after a 409 or a 400, but not after a success', async () => {
    const { token, id } = await setup();
    expect((await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) })).status).toBe(409);
    await t.answer();
    const invalid = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, email: 'ada@' }, headers: key(id) });
    expect(invalid.status).toBe(400);
    const corrected = { ...customer, email: 'ada@lovelace.org', note: 'Order 1234' };
    const done = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: corrected, headers: key(id) });
    expect(done.status).toBe(200);
    expect(JSON.parse(receiver!.deliveries[0]!.body)).toMatchObject({ customer: { email: 'ada@lovelace.org' }, note: 'Order 1234' });
    const changed = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    expect(changed.status).toBe(400);
    expect(changed.body.error.message).toBe('Idempotency-Key was already used with a different request');
    expect(receiver!.deliveries).toHaveLength(1);
  });

  it('answers 409 retryable with Retry-After while the key is in progress, then replays the outcome once known', async () => {
    const held = await holdingReceiver();
    t = await testServer({ env: { SUPPORT_CHAT_WEBHOOK_URL: held.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET } });
    const token = await t.token();
    const id = (await t.call('POST', '/v0/chat', { token, body: { message: 'My invoice is wrong' } })).body.conversation_id as string;
    await t.answer();
    const first = t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    await held.arrival;
    const busy = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ error: { code: 'conflict', message: 'A request with this Idempotency-Key is still in progress', retryable: true } });
    expect(busy.response.headers.get('retry-after')).toBe('2');
    // Without the key, the conversation's own claim says the same.
    const other = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer });
    expect(other.body).toEqual({ error: { code: 'conflict', message: 'Conversation escalation is already in progress', retryable: true } });
    expect(other.response.headers.get('retry-after')).toBe('2');
    held.release();
    const done = await first;
    expect(done.status).toBe(200);
    const retried = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: customer, headers: key(id) });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(done.body);
  });

  it('takes over a key left in progress by a server killed mid-escalation, once its claim is stale', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-escalation-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const setupServer = await createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false });
    const { token } = await setupServer.tokens.create({ orgId: 'acme', name: 'crash', scopes: ALL_SCOPES });
    await setupServer.close();
    const hanging = await holdingReceiver();
    const { url, child } = await spawnServer({ DATA_DIR: dataDir, SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: hanging.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const sent = (await (await fetch(`${url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'My invoice is wrong' }) })).json()) as { conversation_id: string };
    const id = sent.conversation_id;
    await fetch(`${url}/v0/chat/${id}`, { headers: { ...headers, prefer: 'wait=10' } });
    void fetch(`${url}/v0/chat/${id}/escalate`, { method: 'POST', headers: { ...headers, ...key(id) }, body: JSON.stringify(customer) }).catch(() => undefined);
    await hanging.arrival;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    receiver = await webhookReceiver();
    const env = { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: SECRET };
    const escalate = (server: Awaited<ReturnType<typeof createServer>>) =>
      server.fetch(new Request(`http://api.test/v0/chat/${id}/escalate`, { method: 'POST', headers: { ...headers, ...key(id) }, body: JSON.stringify(customer) }));
    // Restarted at once, the key is still someone's: the client is told to retry.
    const now = await createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false, env });
    const busy = await escalate(now);
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { error: { retryable: boolean } }).error.retryable).toBe(true);
    await now.close();
    // Two minutes later the dead process's reservation and claim are stale, and the retry escalates.
    const later = await createServer({ dataDir, engine: createTestEngine(), logger: silentLogger, startWorker: false, env, now: () => Date.now() + 121_000 });
    cleanups.push(() => later.close());
    const res = await escalate(later);
    expect(res.status).toBe(200);
    expect(receiver.deliveries).toHaveLength(1);
    expect(JSON.parse(receiver.deliveries[0]!.body)).toMatchObject({ conversation_id: id });
  }, 30_000);
});

describe('the note', () => {
  it('reaches the webhook ticket, trimmed', async () => {
    const { token, id } = await setup();
    await t.answer();
    const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, note: '  Order 1234, paid twice.  ' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(receiver!.deliveries[0]!.body).note).toBe('Order 1234, paid twice.');
  });

  it('is null in the ticket when absent or blank', async () => {
    const { token, id } = await setup();
    await t.answer();
    await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, note: '   ' } });
    expect(JSON.parse(receiver!.deliveries[0]!.body).note).toBeNull();
  });

  it.each([
    [42, '"note" must be a string'],
    ['x'.repeat(2001), '"note" must be at most 2000 characters'],
  ])('answers 400 naming the field for %j', async (note, message) => {
    const { token, id } = await setup();
    await t.answer();
    const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, note } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'bad_request', message } });
  });

  it('counts characters, not UTF-16 units: 2,000 emoji are accepted', async () => {
    const { token, id } = await setup();
    await t.answer();
    const res = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { ...customer, note: '😀'.repeat(2000) } });
    expect(res.status).toBe(200);
  });
});

async function spawnServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../helpers/serve-process.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, child };
}
