/**
 * @module Escalation through the proxy against the real server and a slow webhook receiver: a slow
 * helpdesk is waited for (not retried into "in progress"), and a second tab sees "in progress" as a
 * retryable state whose retry gets the ticket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createSupportProxy } from '../../src/proxy/index.js';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const SITE = 'https://www.example.com';
const HELPDESK_MS = 1_200;
let api: Awaited<ReturnType<typeof startServer>>;
let receiver: Server;
let token: string;
const deliveries: string[] = [];

beforeAll(async () => {
  // The helpdesk answers after HELPDESK_MS, longer than the proxy's ordinary timeout below.
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      deliveries.push(body);
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), HELPDESK_MS);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const env = {
    SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true',
    SUPPORT_CHAT_WEBHOOK_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/tickets`,
    SUPPORT_CHAT_WEBHOOK_SECRET: 'whsec_proxy_escalation',
    SUPPORT_CHAT_INTEGRATION_TIMEOUT_MS: '5000',
  };
  api = await startServer({ dataDir: ':memory:', port: 0, engine: createTestEngine(), logger: silentLogger, env });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'proxy', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
});
afterAll(async () => {
  await api.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** A visitor whose cookie is shared by every tab it opens. */
function visitor(proxy: ReturnType<typeof createSupportProxy>) {
  let cookie = '';
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await proxy(
      new Request(`${SITE}/api/support${path}`, {
        method,
        headers: { origin: SITE, 'content-type': 'application/json', ...(cookie ? { cookie } : {}), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const set = response.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
    return { status: response.status, headers: response.headers, body: (await response.json().catch(() => null)) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
}

async function answeredConversation(v: ReturnType<typeof visitor>): Promise<string> {
  const sent = await v('POST', '/chat', { message: 'How do I install?' });
  expect(sent.status).toBe(202);
  const polled = await v('GET', `/chat/${sent.body.conversation_id}`, undefined, { prefer: 'wait=10' });
  expect(polled.body.status).toBe('completed');
  return sent.body.conversation_id;
}

describe('escalation through the proxy to the real server', () => {
  it('waits for a helpdesk slower than the proxy’s ordinary timeout and relays the ticket, with one delivery', async () => {
    const v = visitor(createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET, timeoutMs: 300, retries: 2 }));
    const id = await answeredConversation(v);
    const before = deliveries.length;
    const escalated = await v('POST', `/chat/${id}/escalate`, { name: 'Ada', email: 'ada@example.com' });
    expect(escalated.status).toBe(200);
    expect(escalated.body).toMatchObject({ success: true, integration: 'webhook' });
    expect(deliveries.length - before).toBe(1);
  });

  it('answers a second tab "in progress" (retryable, Retry-After), and its retry gets the same ticket', async () => {
    const v = visitor(createSupportProxy({ apiBaseUrl: api.url, token, secret: SECRET }));
    const id = await answeredConversation(v);
    const form = { name: 'Ada', email: 'ada@example.com' };
    const first = v('POST', `/chat/${id}/escalate`, form);
    // The second tab sends once the first one's delivery has reached the helpdesk.
    const before = deliveries.length;
    await expect.poll(() => deliveries.length, { timeout: 5_000, interval: 20 }).toBeGreaterThan(before);
    const second = await v('POST', `/chat/${id}/escalate`, form);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: { code: 'conflict', message: 'Escalation is still in progress', retryable: true } });
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const done = await first;
    expect(done.status).toBe(200);
    const retried = await v('POST', `/chat/${id}/escalate`, form);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(done.body);
    // A later escalation with other details is final: already escalated, not retryable.
    const other = await v('POST', `/chat/${id}/escalate`, { name: 'Ada', email: 'ada@work.example.com' });
    expect(other.status).toBe(409);
    expect(other.body.error.retryable).toBeUndefined();
  });
});
