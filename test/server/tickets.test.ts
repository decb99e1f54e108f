import { afterEach, describe, expect, it } from 'vitest';
import { connectorFor, syncTickets } from '../../src/server/tickets/sync.js';
import { fakePlain, type FakePlain } from '../helpers/fake-plain.js';
import { testServer, type TestServer } from '../helpers/server.js';
import { ticket } from '../helpers/tickets.js';

let t: TestServer;
let plain: FakePlain | undefined;
afterEach(async () => {
  await t?.server.close();
  await plain?.close();
  plain = undefined;
});


describe('synced tickets', () => {
  it('deletes a ticket with 204 and no body, then answers 404', async () => {
    t = await testServer();
    await t.server.tickets.upsert('acme', ticket('th_1'));
    const token = await t.token();
    expect((await t.call('GET', '/v0/tickets/plain/th_1', { token })).body.title).toBe('Ticket th_1');
    const deleted = await t.call('DELETE', '/v0/tickets/plain/th_1', { token });
    expect(deleted.status).toBe(204);
    expect(await deleted.response.text()).toBe('');
    expect(deleted.response.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await t.call('DELETE', '/v0/tickets/plain/th_1', { token })).status).toBe(404);
    expect((await t.call('GET', '/v0/tickets/plain/th_1', { token })).status).toBe(404);
    expect(t.engine.forgotten).toEqual(['acme/plain/th_1']);
  });

  it('answers 500 retryable when deletion cannot finish, hides the ticket meanwhile, and the retry completes it', async () => {
    t = await testServer();
    await t.server.tickets.upsert('acme', ticket('th_2'));
    const token = await t.token();
    t.engine.forgetFailures = 1;
    const failed = await t.call('DELETE', '/v0/tickets/plain/th_2', { token });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ error: { code: 'internal_error', message: 'An internal error occurred', retryable: true } });
    expect((await t.call('GET', '/v0/tickets/plain/th_2', { token })).status).toBe(404);
    expect((await t.call('GET', '/v0/tickets', { token })).body.tickets).toEqual([]);
    const retried = await t.call('DELETE', '/v0/tickets/plain/th_2', { token });
    expect(retried.status).toBe(204);
    expect(await t.server.sql.get('SELECT COUNT(*) AS n FROM tickets')).toEqual({ n: 0 });
  });

  it('keeps organizations apart: another organization’s ticket is a 404 and is not deleted', async () => {
    t = await testServer();
    await t.server.tickets.upsert('acme', ticket('th_3'));
    const other = await t.token('globex');
    expect((await t.call('GET', '/v0/tickets/plain/th_3', { token: other })).status).toBe(404);
    expect((await t.call('DELETE', '/v0/tickets/plain/th_3', { token: other })).status).toBe(404);
    expect(await t.server.tickets.get('acme', 'plain', 'th_3')).not.toBeNull();
  });

  it('lists tickets page by page, filtered by source', async () => {
    t = await testServer();
    for (let i = 0; i < 5; i++) await t.server.tickets.upsert('acme', ticket(`th_${i}`));
    await t.server.tickets.upsert('acme', ticket('LIN-1', { source: 'Linear' }));
    const token = await t.token();
    const first = await t.call('GET', '/v0/tickets?limit=4', { token });
    expect(first.body.tickets).toHaveLength(4);
    const second = await t.call('GET', `/v0/tickets?limit=4&cursor=${first.body.next_cursor}`, { token });
    expect(second.body.tickets).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    const linear = await t.call('GET', '/v0/tickets?source=linear', { token });
    expect(linear.body.tickets.map((x: { source: string; external_id: string }) => `${x.source}/${x.external_id}`)).toEqual(['linear/LIN-1']);
    expect((await t.call('GET', '/v0/tickets?limit=0', { token })).status).toBe(400);
  });

  it('imports a deleted ticket again when a later sync still finds it in the helpdesk', async () => {
    t = await testServer();
    plain = await fakePlain();
    const thread = plain.addThread({ title: 'Export is broken', customerEmail: 'c@example.com' });
    const sync = () => syncTickets(t.server.tickets, 'acme', connectorFor('plain', { apiKey: plain!.apiKey, apiUrl: plain!.apiUrl }));
    expect(await sync()).toMatchObject({ imported: 1, restored: 0 });
    const token = await t.token();
    expect((await t.call('DELETE', `/v0/tickets/plain/${thread.id}`, { token })).status).toBe(204);
    expect((await t.call('GET', `/v0/tickets/plain/${thread.id}`, { token })).status).toBe(404);
    // The thread is unchanged in Plain, so only the asking-again of deleted tickets brings it back.
    expect(await sync()).toMatchObject({ imported: 0, restored: 1 });
    expect((await t.call('GET', `/v0/tickets/plain/${thread.id}`, { token })).body).toMatchObject({ source: 'plain', external_id: thread.id, title: 'Export is broken' });
  });
});
