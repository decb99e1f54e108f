/**
 * The helpdesk registry is the one place that lists helpdesks: every registered one is reached by
 * name through escalation, sync and the webhook route, an unknown name is refused as before, and
 * a helpdesk registered from outside (a folder-like object, here a small in-memory one) is taken
 * by the webhook route and `syncTickets` without any other change.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { Integration } from '../../../src/protocol/index.js';
import { createIntegrationResolver, IntegrationError } from '../../../src/server/escalation/index.js';
import { helpdesks, HelpdeskRegistry, type Helpdesk, type SyncConnector } from '../../../src/server/helpdesks/index.js';
import { hmacHex, invalidSignature, object, parseBody, sameText, text } from '../../../src/server/helpdesks/receiver.js';
import { requireSettings } from '../../../src/server/helpdesks/settings.js';
import { connectorFor, syncTickets } from '../../../src/server/tickets/sync.js';
import type { TicketInput } from '../../../src/server/helpdesks/types.js';
import { testServer, type TestServer } from '../../helpers/server.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function serve(env: Record<string, string>): Promise<TestServer> {
  const t = await testServer({ env });
  cleanups.push(() => t.server.close());
  return t;
}

/** A dummy value for every setting the helpdesk takes, as environment variables. */
function envFor(helpdesk: Helpdesk): Record<string, string> {
  return Object.fromEntries(Object.entries(helpdesk.settings).map(([key, variable]) => [variable, key === 'apiUrl' || key === 'url' ? 'http://127.0.0.1:9/' : `${helpdesk.name}-${key}`]));
}

const created: { name: string; conversationId: string }[] = [];
const remote: TicketInput[] = [];

/** A helpdesk as a new folder would export it: settings, escalation, a connector and a receiver. */
const acmeDesk: Helpdesk = {
  name: 'acme-desk',
  label: 'Acme Desk',
  settings: { apiKey: 'ACME_DESK_API_KEY', webhookSecret: 'ACME_DESK_WEBHOOK_SECRET' },
  escalation(settings) {
    requireSettings(settings, acmeDesk, ['apiKey']);
    return {
      name: 'acme-desk',
      async createTicket(draft) {
        created.push({ name: 'acme-desk', conversationId: draft.conversationId });
        return { ticketId: `acme_${draft.conversationId}`, ticketUrl: `https://desk.acme.test/${draft.conversationId}` };
      },
    };
  },
  sync(settings): SyncConnector {
    requireSettings(settings, acmeDesk, ['apiKey']);
    return {
      source: 'acme-desk',
      async *changes() {
        yield { tickets: [...remote], cursor: String(remote.length) };
      },
      async fetch(id) {
        return remote.find((t) => t.externalId === id) ?? null;
      },
    };
  },
  webhook: {
    verify({ raw, header, secret }) {
      if (!sameText(hmacHex(secret, raw), header('x-acme-signature'))) throw invalidSignature();
      return parseBody(raw);
    },
    parse(body) {
      const ticket = object(body.ticket, 'ticket');
      return {
        kind: 'upsert',
        ticket: {
          source: 'acme-desk',
          externalId: text(ticket.id, 'ticket.id'),
          title: text(ticket.title, 'ticket.title'),
          status: 'open',
          url: null,
          customerEmail: null,
          customerName: null,
          body: null,
          createdAt: '2026-11-01T10:00:00.000Z',
          updatedAt: '2026-11-01T10:00:00.000Z',
        },
      };
    },
  },
};

describe('helpdesk registry', () => {
  it('holds exactly the integrations the API names, and refuses a name taken twice', () => {
    expect(helpdesks.all().map((h) => h.name)).toEqual(['plain', 'pylon', 'linear', 'webhook']);
    expect(helpdesks.syncable()).toEqual(['plain', 'pylon', 'linear']);
    expect(() => new HelpdeskRegistry([acmeDesk, acmeDesk])).toThrow('helpdesk acme-desk is already registered');
    expect(() => new HelpdeskRegistry([{ ...acmeDesk, name: 'Acme Desk' }])).toThrow(/lowercase/);
  });

  it('documents a webhook source in the OpenAPI description for exactly the helpdesks with a receiver', async () => {
    const t = await serve({});
    const doc = (await t.call('GET', '/v0/openapi.json')).body;
    const source = doc.paths['/v0/webhooks/{source}/{org_id}'].post.parameters.find((p: { name: string }) => p.name === 'source');
    expect(source.schema.enum).toEqual(helpdesks.all().filter((h) => h.webhook).map((h) => h.name));
  });

  it('reaches every registered helpdesk by name through escalation, sync and the webhook route; an unknown name is refused', async () => {
    const env = Object.assign({}, ...helpdesks.all().map(envFor)) as Record<string, string>;
    const resolve = createIntegrationResolver({ env });
    const t = await serve(env);
    for (const helpdesk of helpdesks.all()) {
      expect((await resolve('acme', helpdesk.name as Integration)).name, helpdesk.name).toBe(helpdesk.name);
      if (helpdesk.sync) expect(connectorFor(helpdesk.name, effective(helpdesk, env)).source).toBe(helpdesk.name);
      else expect(() => connectorFor(helpdesk.name, {})).toThrow(`No helpdesk named "${helpdesk.name}" can be synced; use one of plain, pylon, linear`);
      // Unsigned: a helpdesk with a receiver answers 401, one without has no receiver at all (404).
      const res = await t.call('POST', `/v0/webhooks/${helpdesk.name}/acme`, { body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.status, helpdesk.name).toBe(helpdesk.webhook ? 401 : 404);
    }
    await expect(resolve('acme', 'zendesk' as Integration)).rejects.toThrow(IntegrationError);
    expect(() => connectorFor('zendesk', {})).toThrow(/No helpdesk named "zendesk" can be synced/);
    expect((await t.call('POST', '/v0/webhooks/zendesk/acme', { body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(404);
  });

  it('escalates over HTTP to a helpdesk registered at run time, and documents it; another name is a 400 naming the registered ones', async () => {
    cleanups.push(helpdesks.register(acmeDesk));
    const t = await serve({ ACME_DESK_API_KEY: 'key' });
    const token = await t.token('acme');
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'My printer is on fire' } });
    await t.answer();
    const id = sent.body.conversation_id as string;
    const contact = { name: 'Ada', email: 'ada@example.com' };
    const refused = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { integration: 'zendesk', ...contact } });
    expect([refused.status, refused.body.error.message]).toEqual([400, '"integration" must be one of plain, pylon, linear, webhook, acme-desk']);
    const escalated = await t.call('POST', `/v0/chat/${id}/escalate`, { token, body: { integration: 'acme-desk', ...contact } });
    expect(escalated.status).toBe(200);
    expect(escalated.body).toEqual({ success: true, integration: 'acme-desk', ticket_id: `acme_${id}`, ticket_url: `https://desk.acme.test/${id}` });
    expect(created.splice(0)).toEqual([{ name: 'acme-desk', conversationId: id }]);
    const doc = (await t.call('GET', '/v0/openapi.json')).body;
    expect(doc.components.schemas.EscalationRequest.properties.integration.enum).toEqual(['plain', 'pylon', 'linear', 'webhook', 'acme-desk']);
  });

  it('takes a newly registered helpdesk in escalation, sync and the webhook route with no other change', async () => {
    cleanups.push(helpdesks.register(acmeDesk));
    const secret = 'acme-desk-secret';
    const env = { ACME_DESK_API_KEY: 'key', ACME_DESK_WEBHOOK_SECRET: secret };

    const integration = await createIntegrationResolver({ env })('acme', 'acme-desk' as Integration);
    const draft = { orgId: 'acme', conversationId: 'conv_1', title: 't', summary: 's', transcript: [], customer: { email: 'a@example.com', name: 'A' }, labelTypeIds: [] };
    expect(await integration.createTicket(draft)).toEqual({ ticketId: 'acme_conv_1', ticketUrl: 'https://desk.acme.test/conv_1' });
    expect(created).toEqual([{ name: 'acme-desk', conversationId: 'conv_1' }]);
    await expect(createIntegrationResolver({ env: {} })('acme', 'acme-desk' as Integration)).rejects.toThrow(
      'Acme Desk integration is not configured: set ACME_DESK_API_KEY (or run support-chat-kit integrations set acme-desk --org ORG --api-key …)',
    );

    const t = await serve(env);
    const token = await t.token('acme');
    const body = JSON.stringify({ ticket: { id: 'A-1', title: 'Printer on fire' } });
    const forged = await t.call('POST', '/v0/webhooks/acme-desk/acme', { body, headers: { 'content-type': 'application/json', 'x-acme-signature': hmacHex('wrong', body) } });
    expect(forged.status).toBe(401);
    const delivered = await t.call('POST', '/v0/webhooks/acme-desk/acme', { body, headers: { 'content-type': 'application/json', 'x-acme-signature': hmacHex(secret, body) } });
    expect(delivered.status).toBe(200);
    expect((await t.call('GET', '/v0/tickets/acme-desk/A-1', { token })).body).toMatchObject({ source: 'acme-desk', external_id: 'A-1', title: 'Printer on fire' });

    remote.push({ source: 'acme-desk', externalId: 'A-2', title: 'Paper jam', status: 'open', url: null, customerEmail: null, customerName: null, body: null, createdAt: '2026-11-01T11:00:00.000Z', updatedAt: '2026-11-01T11:00:00.000Z' });
    const report = await syncTickets(t.server.tickets, 'acme', connectorFor('acme-desk', effective(acmeDesk, env)));
    expect(report).toMatchObject({ source: 'acme-desk', imported: 1, pages: 1, cursor: '1' });
    expect((await t.call('GET', '/v0/tickets/acme-desk/A-2', { token })).body).toMatchObject({ title: 'Paper jam' });
  });
});

/** The settings the helpdesk reads from `env`. */
function effective(helpdesk: Helpdesk, env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(helpdesk.settings).map(([key, variable]) => [key, env[variable]!]).filter(([, v]) => v));
}

describe('support-chat-kit tickets sync --source', () => {
  it('names the registered helpdesks that can be synced when given another', async () => {
    const cli = resolve(import.meta.dirname, '../../../src/cli/index.ts');
    const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-registry-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    for (const source of ['zendesk', 'webhook']) {
      const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', cli, 'tickets', 'sync', '--source', source, '--org', 'acme', '--data', dataDir], { encoding: 'utf8' }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
      expect(result.code, source).toBe(2);
      expect(result.stderr).toContain(`--source must be one of plain, pylon, linear, got "${source}"`);
    }
  }, 30_000);
});
