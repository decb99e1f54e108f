/**
 * Helpdesk webhook bodies over real HTTP: nothing is read for a source or organization without a
 * receiver, a receiver's body is capped at 64 KiB and must arrive within the body timeout, and a
 * flood of slow bodies for unknown organizations is answered at once instead of being buffered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { IntegrationSettingsStore } from '../../src/server/escalation/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { rawRequest, within } from '../helpers/raw-http.js';

let api: Awaited<ReturnType<typeof startServer>>;
const BODY_TIMEOUT_MS = 300;

beforeAll(async () => {
  // A large per-address limit: this file sends thousands of requests from one address on purpose.
  api = await startServer({
    dataDir: ':memory:',
    port: 0,
    engine: createTestEngine(),
    logger: silentLogger,
    startWorker: false,
    env: {},
    webhookBodyTimeoutMs: BODY_TIMEOUT_MS,
    rateLimits: { perAddress: 100_000 },
  });
  await new IntegrationSettingsStore(api.server.sql).set('acme', 'pylon', { webhookSecret: 'whsec_acme' });
});
afterAll(() => api.close());

const head = (path: string, length: number | 'chunked') =>
  `POST ${path} HTTP/1.1\r\nHost: api.test\r\nContent-Type: application/json\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

describe('POST /v0/webhooks/{source}/{org} bodies', () => {
  it.each([
    ['an organization without a secret', '/v0/webhooks/pylon/unknown-org'],
    ['an unknown source', '/v0/webhooks/zendesk/acme'],
    ['a helpdesk that receives nothing', '/v0/webhooks/webhook/acme'],
  ])('answers 404 for %s before the body arrives, and closes the connection', async (_, path) => {
    const exchange = rawRequest(api.url, head(path, 60_000), '{"a":');
    expect(await within(exchange.status, 3_000, 'status')).toBe(404);
    await within(exchange.closed, 3_000, 'close');
    expect(exchange.received()).toMatch(/connection: close/i);
  });

  it('answers 408 to a body that does not arrive within the timeout, and closes the connection', async () => {
    const exchange = rawRequest(api.url, head('/v0/webhooks/pylon/acme', 1_000), '{"a":');
    const started = performance.now();
    expect(await within(exchange.status, 3_000, 'status')).toBe(408);
    expect(performance.now() - started).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
    expect(exchange.received()).toContain('"code":"bad_request"');
    await within(exchange.closed, 3_000, 'close');
  });

  it('answers 413 to a chunked body past 64 KiB without reading the rest', async () => {
    const chunk = Buffer.from(`${(40_000).toString(16)}\r\n${'x'.repeat(40_000)}\r\n`);
    const exchange = rawRequest(api.url, head('/v0/webhooks/pylon/acme', 'chunked'), Buffer.concat([chunk, chunk]));
    expect(await within(exchange.status, 3_000, 'status')).toBe(413);
    await within(exchange.closed, 3_000, 'close');
  });

  it('still receives a signed delivery within the cap', async () => {
    const res = await fetch(`${api.url}/v0/webhooks/pylon/acme`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
  });

  it('answers 2,000 slow deliveries for unknown organizations at once, buffering none of their bodies', async () => {
    const part = Buffer.alloc(48 * 1024, 0x61);
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const exchanges = Array.from({ length: 2_000 }, (_, i) => rawRequest(api.url, head(`/v0/webhooks/plain/org-${i}`, 'chunked'), Buffer.concat([Buffer.from(`${(64 * 1024).toString(16)}\r\n`), part])));
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
    try {
      const statuses = await within(Promise.all(exchanges.map((e) => e.status)), 20_000, 'statuses');
      // A server that closes while the client still sends may reset the connection before the 404 is read.
      expect(statuses.filter((s) => s !== 404 && s !== 0)).toEqual([]);
      expect(statuses.filter((s) => s === 404).length).toBeGreaterThan(0);
      await within(Promise.all(exchanges.map((e) => e.closed)), 20_000, 'closes');
    } finally {
      clearInterval(sampler);
      for (const e of exchanges) e.socket.destroy();
    }
    // 2,000 bodies of 48 KiB held as text would be about 96 MiB.
    expect((peak - before) / 2 ** 20).toBeLessThan(40);
  }, 60_000);
});
