/**
 * Integration targets on this machine or the link-local network (a cloud's metadata service) are
 * refused unless SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true: escalation never calls them, and says only
 * that retrying will not help.
 */
import { createServer } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectorForOrg } from '../../../src/server/tickets/sync.js';
import { guardTargets } from '../../../src/server/helpdesks/targets.js';
import { isLocalAddress } from '../../../src/server/local-targets.js';
import { IntegrationError } from '../../../src/server/helpdesks/types.js';
import { testServer, webhookReceiver, type Receiver } from '../../helpers/server.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('isLocalAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['169.254.169.254', true],
    ['fe80::1', true],
    ['0.0.0.0', true],
    ['::', true],
    ['10.0.0.1', false],
    ['203.0.113.9', false],
    ['2001:db8::1', false],
    // NAT64 (RFC 6052), 6to4 and IPv4-compatible addresses are judged by the IPv4 address they carry.
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::169.254.169.254', true],
    ['64:ff9b::808:808', false],
    ['64:ff9b:1::1', true],
    ['2002:7f00:1::', true],
    ['2002:a9fe:a9fe::1', true],
    ['2002:808:808::1', false],
    ['::127.0.0.1', true],
    ['::7f00:1', true],
    ['::a9fe:a9fe', true],
    ['::808:808', false],
    ['not-an-ip', false],
  ])('%s: %s', (address, local) => expect(isLocalAddress(address)).toBe(local));

  it.each([
    ['64:ff9b::a00:1', true],
    ['2002:c0a8:101::', true],
    ['::10.0.0.1', true],
    ['64:ff9b::cb00:7109', false],
  ])('with private networks, %s: %s', (address, local) => expect(isLocalAddress(address, { private: true })).toBe(local));
});

describe('integration targets', () => {
  async function escalateTo(url: string, allow?: string) {
    const lines: string[] = [];
    const logger = { info: () => undefined, warn: (f: object) => lines.push(JSON.stringify(f)), error: (f: object) => lines.push(JSON.stringify(f)) };
    const t = await testServer({ logger, integrations: undefined, env: { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: allow ?? 'false', SUPPORT_CHAT_WEBHOOK_URL: url, SUPPORT_CHAT_WEBHOOK_SECRET: 's' } });
    const token = await t.token();
    const sent = await t.call('POST', '/v0/chat', { token, body: { message: 'help' } });
    await t.answer();
    const res = await t.call('POST', `/v0/chat/${sent.body.conversation_id}/escalate`, { token, body: { integration: 'webhook', name: 'Ada', email: 'ada@example.com' } });
    return { res, lines };
  }

  it('refuses a webhook on this machine, calling nothing, unless allowed', async () => {
    receiver = await webhookReceiver();
    const refused = await escalateTo(receiver.url);
    expect(refused.res.status).toBe(500);
    expect(refused.res.body.error.retryable).toBe(false);
    expect(receiver.deliveries).toHaveLength(0);
    expect(refused.lines.join('\n')).toContain('is a loopback or link-local address (127.0.0.1); set SUPPORT_CHAT_ALLOW_LOCAL_TARGETS=true to allow it');
    const allowed = await escalateTo(receiver.url, 'true');
    expect(allowed.res.status).toBe(200);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it.each(['http://169.254.169.254/latest/meta-data/', 'http://[::1]:9/hook', 'http://[::ffff:127.0.0.1]:9/hook', 'http://localhost:9/hook', 'http://0.0.0.0:9/hook'])('refuses %s', async (url) => {
    const { res, lines } = await escalateTo(url);
    expect(res.status).toBe(500);
    expect(res.body.error.retryable).toBe(false);
    expect(lines.join('\n')).toContain('loopback or link-local');
  });

  it('checks what a name resolves to, and lets other targets through', async () => {
    const calls: string[] = [];
    const fake: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response('{}');
    };
    const guarded = guardTargets(fake, false, { resolve: async (host) => (host === 'rebind.example' ? ['203.0.113.5', '127.0.0.1'] : ['203.0.113.5']) });
    await expect(guarded('https://rebind.example/hook')).rejects.toThrow(IntegrationError);
    expect((await guarded('https://hooks.example.com/x')).status).toBe(200);
    expect(calls).toEqual(['https://hooks.example.com/x']);
  });

  it('checks the address the connection uses: a name that resolves elsewhere a moment later (DNS rebinding) reaches nothing', async () => {
    let hits = 0;
    const local = createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    const { port } = local.address() as AddressInfo;
    try {
      // Public when checked before the call; this machine when the connection looks the name up.
      const rebinding = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as unknown as LookupFunction;
      const guarded = guardTargets(undefined, false, { resolve: async () => ['203.0.113.5'], lookup: rebinding });
      const refused = await guarded(`http://rebind.example:${port}/hook`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(IntegrationError);
      expect((refused as IntegrationError).retryable).toBe(false);
      expect((refused as Error).message).toContain('loopback or link-local address (127.0.0.1)');
      expect(hits).toBe(0);
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });

  it('refuses a local API URL for `tickets sync` too', async () => {
    const connector = connectorForOrg({ apiKey: 'plainApiKey_x', apiUrl: 'http://127.0.0.1:9/graphql', workspaceId: 'w' }, {}, 'plain');
    await expect(connector.changes(null).next()).rejects.toThrow(/loopback or link-local/);
  });
});
