/**
 * The integrations' stores straight on the database, SQLite and PostgreSQL alike: synced tickets
 * and their deletion, per-organization settings, escalation attempts and the follow-up outbox,
 * including what several callers (several processes on PostgreSQL) do to them at once.
 */
import { describe, expect, it } from 'vitest';
import { FollowUpForwarder } from '../../../src/server/escalation/follow-ups.js';
import { createIntegrationResolver, IntegrationSettingsStore } from '../../../src/server/escalation/index.js';
import type { FollowUp } from '../../../src/server/helpdesks/types.js';
import { silentLogger } from '../../../src/server/log.js';
import type { Sql } from '../../../src/server/store/sql.js';
import { SqlTicketStore } from '../../../src/server/tickets/store.js';
import { testDatabases } from '../../helpers/database.js';
import { ticket } from '../../helpers/tickets.js';

const database = testDatabases();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


/** A ticket store whose `forget` is recorded, and fails or waits when told to. */
function ticketStore(sql: Sql) {
  const forgotten: string[] = [];
  const indexed: string[] = [];
  const control = { failures: 0, gate: undefined as Promise<void> | undefined, indexGate: undefined as Promise<void> | undefined };
  const store = new SqlTicketStore(sql, {
    forget: async (orgId, source, externalId) => {
      const gate = control.gate;
      control.gate = undefined;
      if (gate) await gate;
      if (control.failures > 0) {
        control.failures--;
        throw new Error('index unavailable');
      }
      forgotten.push(`${orgId}/${source}/${externalId}`);
    },
    index: async (orgId, t) => {
      const gate = control.indexGate;
      control.indexGate = undefined;
      if (gate) await gate;
      indexed.push(`${orgId}/${t.source}/${t.externalId}`);
    },
  });
  return { store, forgotten, indexed, control };
}

describe('the ticket store', () => {
  it('upserts, reads and lists tickets page by page per organization, filtered by source', async () => {
    const { store, indexed } = ticketStore(await database());
    for (let i = 0; i < 5; i++) await store.upsert('acme', ticket(`th_${i}`));
    await store.upsert('acme', ticket('LIN-1', { source: 'Linear' }));
    await store.upsert('globex', ticket('th_9'));
    await store.upsert('acme', ticket('th_0', { title: 'Renamed', updatedAt: '2026-01-03T00:00:00.000Z' }));
    expect(await store.get('acme', 'plain', 'th_0')).toMatchObject({ source: 'plain', external_id: 'th_0', title: 'Renamed', updated_at: '2026-01-03T00:00:00.000Z' });
    expect(await store.get('globex', 'plain', 'th_0')).toBeNull();
    const first = await store.list('acme', { limit: 4 });
    expect(first.tickets.map((x) => `${x.source}/${x.external_id}`)).toEqual(['linear/LIN-1', 'plain/th_0', 'plain/th_1', 'plain/th_2']);
    const second = await store.list('acme', { limit: 4, cursor: first.nextCursor! });
    expect(second.tickets.map((x) => x.external_id)).toEqual(['th_3', 'th_4']);
    expect(second.nextCursor).toBeNull();
    expect((await store.list('acme', { limit: 10, source: 'linear' })).tickets.map((x) => x.external_id)).toEqual(['LIN-1']);
    expect((await store.list('acme', { limit: 10, cursor: 'not a cursor' })).tickets).toHaveLength(6);
    expect(indexed).toContain('acme/linear/LIN-1');
  });

  it('keeps a sync cursor per organization and source', async () => {
    const { store } = ticketStore(await database());
    expect(await store.getCursor('acme', 'plain')).toBeNull();
    await store.setCursor('acme', 'plain', 'c1');
    await store.setCursor('acme', 'plain', 'c2');
    await store.setCursor('globex', 'plain', 'g1');
    expect([await store.getCursor('acme', 'plain'), await store.getCursor('globex', 'plain'), await store.getCursor('acme', 'linear')]).toEqual(['c2', 'g1', null]);
  });

  it('hides a ticket whose deletion failed half way, asks the helpdesk about it again, and finishes on the retry', async () => {
    const sql = await database();
    const { store, forgotten, control } = ticketStore(sql);
    await store.upsert('acme', ticket('th_1'));
    control.failures = 1;
    await expect(store.remove('acme', 'plain', 'th_1')).rejects.toThrow('index unavailable');
    expect(await store.get('acme', 'plain', 'th_1')).toBeNull();
    expect((await store.list('acme', { limit: 10 })).tickets).toEqual([]);
    expect(await store.pendingRefetch('acme', 'plain')).toEqual(['th_1']);
    expect(await store.remove('acme', 'plain', 'th_1')).toBe(true);
    expect(await store.remove('acme', 'plain', 'th_1')).toBe(false);
    expect(forgotten).toEqual(['acme/plain/th_1']);
    expect((await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM tickets'))!.n).toBe(0);
    await store.refetched('acme', 'plain', 'th_1');
    expect(await store.pendingRefetch('acme', 'plain')).toEqual([]);
  });

  it('shows no ticket while it is being deleted; an upsert meanwhile finishes the deletion and imports it afresh', async () => {
    const sql = await database();
    const { store, forgotten, control } = ticketStore(sql);
    await store.upsert('acme', ticket('th_1'));
    let release!: () => void;
    control.gate = new Promise<void>((resolve) => (release = resolve));
    const removing = store.remove('acme', 'plain', 'th_1');
    await sleep(20);
    expect(await store.get('acme', 'plain', 'th_1')).toBeNull();
    expect((await store.list('acme', { limit: 10 })).tickets).toEqual([]);
    await store.upsert('acme', ticket('th_1', { title: 'Back again' }));
    expect(await store.get('acme', 'plain', 'th_1')).toMatchObject({ title: 'Back again' });
    release();
    expect(await removing).toBe(true);
    // The first deletion's last step leaves the ticket imported since alone.
    expect(await store.get('acme', 'plain', 'th_1')).toMatchObject({ title: 'Back again' });
    expect(forgotten).toEqual(['acme/plain/th_1', 'acme/plain/th_1']);
  });

  it('forgets again what it indexed for a ticket deleted while the index was being written', async () => {
    const { store, forgotten, indexed, control } = ticketStore(await database());
    let release!: () => void;
    control.indexGate = new Promise<void>((resolve) => (release = resolve));
    const upserting = store.upsert('acme', ticket('th_1'));
    await sleep(20);
    expect(await store.remove('acme', 'plain', 'th_1')).toBe(true);
    expect(forgotten).toEqual(['acme/plain/th_1']);
    release();
    await upserting;
    // Indexed after the deletion forgot it: forgotten once more.
    expect(indexed).toEqual(['acme/plain/th_1']);
    expect(forgotten).toEqual(['acme/plain/th_1', 'acme/plain/th_1']);
    expect(await store.get('acme', 'plain', 'th_1')).toBeNull();
  });

  it('takes many upserts and deletions of one ticket at once and ends whole or gone, never half deleted', async () => {
    const sql = await database();
    const { store } = ticketStore(sql);
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        store.upsert('acme', ticket('th_1', { title: `Round ${round} a` })),
        store.remove('acme', 'plain', 'th_1'),
        store.upsert('acme', ticket('th_1', { title: `Round ${round} b` })),
        store.remove('acme', 'plain', 'th_1'),
      ]);
      const rows = await sql.all<{ deleting: number }>("SELECT deleting FROM tickets WHERE external_id = 'th_1'");
      expect(rows.length === 0 || rows[0]!.deleting === 0, `round ${round}`).toBe(true);
      expect((await store.get('acme', 'plain', 'th_1')) !== null).toBe(rows.length === 1);
    }
  });
});

describe('integration settings', () => {
  it('merges updates, removes a setting set to "", refuses an unknown one, lists and removes them', async () => {
    const store = new IntegrationSettingsStore(await database());
    expect(await store.set('acme', 'plain', { apiKey: 'k1', apiUrl: 'https://plain.test' })).toEqual({ apiKey: 'k1', apiUrl: 'https://plain.test' });
    expect(await store.set('acme', 'plain', { apiKey: 'k2', apiUrl: '' })).toEqual({ apiKey: 'k2' });
    await store.set('globex', 'linear', { teamId: 't1' });
    await expect(store.set('acme', 'plain', { teamId: 'x' })).rejects.toThrow('plain has no setting --team-id');
    expect(await store.stored('acme', 'plain')).toEqual({ apiKey: 'k2' });
    expect(await store.stored('acme', 'linear')).toEqual({});
    expect((await store.list()).map((r) => [r.orgId, r.integration, r.settings])).toEqual([
      ['acme', 'plain', { apiKey: 'k2' }],
      ['globex', 'linear', { teamId: 't1' }],
    ]);
    expect((await store.list('globex')).map((r) => r.integration)).toEqual(['linear']);
    expect(await store.remove('acme', 'plain')).toBe(true);
    expect(await store.remove('acme', 'plain')).toBe(false);
    expect(await store.stored('acme', 'plain')).toEqual({});
  });

  it('keeps every setting of updates made at once', async () => {
    const store = new IntegrationSettingsStore(await database());
    for (let round = 0; round < 5; round++) {
      await store.set(`org${round}`, 'plain', { apiKey: 'k' });
      await Promise.all([
        store.set(`org${round}`, 'plain', { apiUrl: 'https://plain.test' }),
        store.set(`org${round}`, 'plain', { workspaceId: 'w' }),
        store.set(`org${round}`, 'plain', { webhookSecret: 's' }),
      ]);
      expect(await store.stored(`org${round}`, 'plain')).toEqual({ apiKey: 'k', apiUrl: 'https://plain.test', workspaceId: 'w', webhookSecret: 's' });
    }
  });

  it('records the first escalation attempt once, however many ask at once', async () => {
    const store = new IntegrationSettingsStore(await database());
    const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => store.firstAttempt('acme', 'pylon', 'conv_1', new Date(Date.UTC(2026, 10, 20, 0, 0, i)))));
    expect(attempts.filter((a) => !a.previous)).toHaveLength(1);
    const first = attempts.find((a) => !a.previous)!.at.getTime();
    expect(attempts.every((a) => a.at.getTime() === first)).toBe(true);
    expect(await store.firstAttempt('acme', 'pylon', 'conv_2', new Date(0))).toEqual({ at: new Date(0), previous: false });
  });

  it('builds integrations from the stored settings over the environment', async () => {
    const sql = await database();
    await new IntegrationSettingsStore(sql).set('acme', 'webhook', { secret: 'acme-secret' });
    const resolve = createIntegrationResolver({ sql, env: { SUPPORT_CHAT_WEBHOOK_URL: 'https://env.test/hook' } });
    expect((await resolve('acme', 'webhook')).name).toBe('webhook');
    await expect(resolve('globex', 'webhook')).rejects.toThrow(/Webhook integration is not configured: set SUPPORT_CHAT_WEBHOOK_SECRET/);
  });
});

/** A conversation escalated (`done`, with its ticket) or being escalated (`pending`), with `users` visitor messages. */
async function escalated(sql: Sql, id: string, state: 'done' | 'pending' | null, users = 1): Promise<void> {
  const at = '2026-11-20T00:00:00.000Z';
  await sql.run(
    "INSERT INTO conversations (id, org_id, status, created_at, updated_at, escalation_state, ticket_integration, ticket_id) VALUES (?, 'acme', 'completed', ?, ?, ?, ?, ?)",
    [id, at, at, state, state === 'done' ? 'plain' : null, state === 'done' ? `th_${id}` : null],
  );
  for (let i = 0; i < users; i++) await addMessage(sql, id, `message ${i + 1}`);
}

async function addMessage(sql: Sql, id: string, content: string): Promise<void> {
  const next = (await sql.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM messages WHERE conversation_id = ?', [id]))?.seq ?? 0;
  await sql.run("INSERT INTO messages (conversation_id, seq, role, content, sources, created_at) VALUES (?, ?, 'user', ?, '[]', '2026-11-20T00:00:00.000Z')", [id, next + 1, content]);
}

/** A forwarder over a helpdesk that records follow-ups, taking `delayMs` each and failing while `failures` is positive. */
function forwarder(sql: Sql, helpdesk: { delivered: FollowUp[]; delayMs?: number; failures?: number }) {
  return new FollowUpForwarder({
    sql,
    logger: silentLogger,
    integrations: (_orgId, name) => ({
      name,
      createTicket: async () => ({ ticketId: 't', ticketUrl: 'u' }),
      addFollowUp: async (followUp) => {
        if (helpdesk.delayMs) await sleep(helpdesk.delayMs);
        if (helpdesk.failures) {
          helpdesk.failures--;
          throw new Error('helpdesk unavailable');
        }
        helpdesk.delivered.push(followUp);
      },
    }),
  });
}

const outbox = (sql: Sql) =>
  sql.all<{ conversation_id: string; seq: number; state: string; attempts: number; last_error: string | null }>('SELECT conversation_id, seq, state, attempts, last_error FROM ticket_follow_ups ORDER BY id');

describe('the follow-up outbox', () => {
  it('queues a visitor message of an escalated conversation once, and delivers it once', async () => {
    const sql = await database();
    const helpdesk = { delivered: [] as FollowUp[] };
    const followUps = forwarder(sql, helpdesk);
    await escalated(sql, 'c1', 'done');
    await escalated(sql, 'c2', null);
    await addMessage(sql, 'c1', 'Also this');
    expect(await sql.transaction((tx) => followUps.queue('acme', 'c1', tx))).toBe(true);
    expect(await followUps.queue('acme', 'c1')).toBe(false);
    expect(await followUps.queue('acme', 'c2')).toBe(false);
    expect(await followUps.queue('globex', 'c1')).toBe(false);
    expect(await followUps.runOnce()).toBe(1);
    expect(helpdesk.delivered).toEqual([expect.objectContaining({ orgId: 'acme', conversationId: 'c1', ticketId: 'th_c1', seq: 2, content: 'Also this', attempt: 1 })]);
    expect(await followUps.runOnce()).toBe(0);
    expect(await outbox(sql)).toEqual([{ conversation_id: 'c1', seq: 2, state: 'done', attempts: 1, last_error: null }]);
  });

  it('retries a failed delivery later, not before, and waits without counting while the escalation runs', async () => {
    const sql = await database();
    const helpdesk = { delivered: [] as FollowUp[], failures: 1 };
    const followUps = forwarder(sql, helpdesk);
    await escalated(sql, 'c1', 'pending');
    await addMessage(sql, 'c1', 'Also this');
    expect(await followUps.queue('acme', 'c1')).toBe(true);
    expect(await followUps.runOnce()).toBe(1);
    expect(await outbox(sql)).toEqual([{ conversation_id: 'c1', seq: 2, state: 'queued', attempts: 0, last_error: null }]);
    expect(await followUps.runOnce()).toBe(0);

    await sql.run("UPDATE conversations SET escalation_state = 'done', ticket_integration = 'plain', ticket_id = 'th_1' WHERE id = 'c1'");
    await sql.run('UPDATE ticket_follow_ups SET run_after = 0');
    expect(await followUps.runOnce()).toBe(1);
    expect(await outbox(sql)).toEqual([{ conversation_id: 'c1', seq: 2, state: 'queued', attempts: 1, last_error: 'helpdesk unavailable' }]);
    expect(await followUps.runOnce()).toBe(0);
    await sql.run('UPDATE ticket_follow_ups SET run_after = 0');
    expect(await followUps.runOnce()).toBe(1);
    expect(helpdesk.delivered.map((f) => f.attempt)).toEqual([2]);
    expect((await outbox(sql))[0]!.state).toBe('done');
  });

  it('delivers each follow-up once and in order per conversation with several forwarders at once', async () => {
    const sql = await database();
    const helpdesk = { delivered: [] as FollowUp[], delayMs: 5 };
    for (let c = 0; c < 6; c++) {
      await escalated(sql, `c${c}`, 'done');
      for (let m = 0; m < 3; m++) {
        await addMessage(sql, `c${c}`, `c${c} follow-up ${m}`);
        await forwarder(sql, helpdesk).queue('acme', `c${c}`);
      }
    }
    const forwarders = Array.from({ length: 4 }, () => forwarder(sql, helpdesk));
    // Each forwarder stops when it finds nothing ready (another may be holding the rest): run until all are done.
    for (let round = 0; round < 20 && helpdesk.delivered.length < 18; round++) await Promise.all(forwarders.map((f) => f.runOnce()));
    expect(helpdesk.delivered).toHaveLength(18);
    expect(new Set(helpdesk.delivered.map((f) => `${f.conversationId}:${f.seq}`)).size).toBe(18);
    for (let c = 0; c < 6; c++) {
      expect(helpdesk.delivered.filter((f) => f.conversationId === `c${c}`).map((f) => f.seq)).toEqual([2, 3, 4]);
    }
  });

  it('lets a forwarder whose lease ran out change nothing once another has taken the follow-up over', async () => {
    const sql = await database();
    const slow = { delivered: [] as FollowUp[], delayMs: 100, failures: 1 };
    const fast = { delivered: [] as FollowUp[] };
    await escalated(sql, 'c1', 'done');
    await addMessage(sql, 'c1', 'Also this');
    await forwarder(sql, fast).queue('acme', 'c1');
    const first = forwarder(sql, slow).runOnce();
    await sleep(30);
    // The first forwarder's lease runs out while it is still waiting on the helpdesk.
    await sql.run('UPDATE ticket_follow_ups SET lease_until = 0');
    expect(await forwarder(sql, fast).runOnce()).toBe(1);
    await first;
    expect(fast.delivered).toHaveLength(1);
    expect(await outbox(sql)).toEqual([{ conversation_id: 'c1', seq: 2, state: 'done', attempts: 2, last_error: null }]);
  });
});
