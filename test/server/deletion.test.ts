/**
 * DELETE /v0/chat/{id} leaves nothing behind: the responses stored for the conversation's
 * `Idempotency-Key`s (its id, its ticket link) go with it, on SQLite and PostgreSQL; and on a
 * SQLite file the deleted text is neither in free pages nor in the write-ahead log.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServer, type SupportServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createIntegrationResolver } from '../../src/server/escalation/index.js';
import { testServer, webhookReceiver, type Receiver } from '../helpers/server.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('deleting a conversation', () => {
  it('deletes the responses stored for its Idempotency-Keys, and no other conversation’s', async () => {
    receiver = await webhookReceiver();
    const t = await testServer({ env: { SUPPORT_CHAT_WEBHOOK_URL: receiver.url, SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec' } });
    const token = await t.token();
    const start = async (n: number) => {
      const sent = await t.call('POST', '/v0/chat', { token, body: { message: `question ${n}` }, headers: { 'idempotency-key': `send-${n}` } });
      await t.answer();
      const id = sent.body.conversation_id as string;
      const escalated = await t.call('POST', `/v0/chat/${id}/escalate`, {
        token,
        body: { integration: 'webhook', name: 'Ada', email: 'ada@example.com' },
        headers: { 'idempotency-key': `escalate-${n}` },
      });
      expect(escalated.status).toBe(200);
      return { id, ticketUrl: escalated.body.ticket_url as string };
    };
    const doomed = await start(1);
    const kept = await start(2);
    const rows = async () => (await t.server.sql.all<{ body: string | null }>('SELECT body FROM idempotency_keys')).map((r) => r.body ?? '');
    expect((await rows()).filter((body) => body.includes(doomed.id) || body.includes(doomed.ticketUrl))).toHaveLength(2);

    expect((await t.call('DELETE', `/v0/chat/${doomed.id}`, { token })).status).toBe(204);
    const left = await rows();
    expect(left.filter((body) => body.includes(doomed.id) || body.includes(doomed.ticketUrl))).toEqual([]);
    expect(left.filter((body) => body.includes(kept.id) || body.includes(kept.ticketUrl))).toHaveLength(2);
  });

  it('deletes them with conversations the retention sweep deletes', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const t = await testServer({ now: () => clock, retentionDays: 1 });
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'old question' }, headers: { 'idempotency-key': 'old' } });
    await t.answer();
    clock += 2 * 86_400_000;
    await t.server.retention.runOnce();
    const left = await t.server.sql.all<{ body: string | null }>('SELECT body FROM idempotency_keys');
    expect(left.filter((r) => r.body?.includes(sent.body.conversation_id))).toEqual([]);
  });
});

describe.skipIf(TEST_POSTGRES_URL)('deleting a conversation on a SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'support-chat-delete-'));
  let server: SupportServer | undefined;
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves its text neither in free pages nor in the write-ahead log', async () => {
    server = await createServer({ dataDir: dir, engine: createTestEngine(), logger: silentLogger, startWorker: false, env: {}, integrations: createIntegrationResolver({ env: {} }) });
    const { token } = await server.tokens.create({ orgId: 'acme', name: 't', scopes: ['chat:read', 'chat:write'] });
    const marker = 'QUOKKA-SECRET-MARKER';
    const call = (method: string, path: string, body?: unknown) =>
      server!.fetch(new Request(`http://api.test${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }), {
        remoteAddress: '203.0.113.7',
      });
    const sent = (await (await call('POST', '/v0/chat', { message: `My account number is ${marker} ${'and more words '.repeat(40)}` })).json()) as { conversation_id: string };
    await server.worker.runOnce();
    // Other conversations keep the database busy around it.
    for (let i = 0; i < 20; i++) await call('POST', '/v0/chat', { message: `filler ${i} ${'lorem ipsum '.repeat(30)}` });
    const files = () => ['support-chat.db', 'support-chat.db-wal'].map((f) => {
      try {
        return readFileSync(join(dir, f)).toString('latin1');
      } catch {
        return '';
      }
    });
    expect(files().some((text) => text.includes(marker))).toBe(true);

    expect((await call('DELETE', `/v0/chat/${sent.conversation_id}`)).status).toBe(204);
    const deadline = Date.now() + 5_000;
    while (files().some((text) => text.includes(marker)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(files().map((text) => text.includes(marker))).toEqual([false, false]);
    // Still a working database.
    expect((await call('GET', `/v0/chat/${sent.conversation_id}`)).status).toBe(404);
    expect((await call('POST', '/v0/chat', { message: 'after' })).status).toBe(202);
  });
});
