/**
 * The exhaustion probe (issue #25), bounded in count and time: while a public route is requested
 * every 100 ms over real HTTP, the server is sent connections that say nothing, webhook bodies
 * that never finish, floods of large webhook deliveries for organizations without a receiver,
 * 2,000 distinct bad tokens, and escalations whose receiver answers without a link or
 * whose integration is not configured. That route's worst latency stays under 500 ms, the heap
 * comes back near its baseline once the connections are closed, and no secret (the API token,
 * the webhook's URL, any integration secret) is in anything a visitor could be sent.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { IntegrationSettingsStore } from '../../src/server/escalation/index.js';
import { silentLogger } from '../../src/server/log.js';
import { TOKEN_PREFIX } from '../../src/server/store/tokens.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { rawRequest, within, type RawExchange } from '../helpers/raw-http.js';

const WEBHOOK_SECRET = 'whsec_probe_signing_secret_value';
const PYLON_SECRET = 'pylon_probe_webhook_secret_value';
const HOOK_PATH = '/services/T0PROBE/B0PROBE/probeCapabilityPath';
let api: Awaited<ReturnType<typeof startServer>>;
let hook: Server;
let hookUrl = '';
let token = '';
/** Every response a visitor-facing client got: status line, headers and body. */
const seen: string[] = [];

beforeAll(async () => {
  // A hook that answers like Slack's: 200 "ok", no link.
  hook = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const address = hook.address();
  hookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${HOOK_PATH}?token=probeQuerySecret`;
  api = await startServer({
    dataDir: ':memory:',
    port: 0,
    engine: createTestEngine(),
    logger: silentLogger,
    startWorker: true,
    // Every request of this probe comes from one address; the per-address limit is not what is measured.
    rateLimits: { perAddress: 1_000_000, perToken: 1_000_000, perOrganization: 1_000_000, endpoints: { send: 1_000_000, escalate: 1_000_000 } },
    connections: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 },
    webhookBodyTimeoutMs: 500,
    env: { SUPPORT_CHAT_ALLOW_LOCAL_TARGETS: 'true', SUPPORT_CHAT_WEBHOOK_URL: hookUrl, SUPPORT_CHAT_WEBHOOK_SECRET: WEBHOOK_SECRET },
  });
  await new IntegrationSettingsStore(api.server.sql).set('acme', 'pylon', { webhookSecret: PYLON_SECRET });
  token = (await api.server.tokens.create({ orgId: 'acme', name: 'probe', scopes: ['chat:read', 'chat:write', 'chat:escalate'] })).token;
});

afterAll(async () => {
  await api.close();
  hook.closeAllConnections();
  await new Promise<void>((resolve) => hook.close(() => resolve()));
});

async function record(response: Response): Promise<{ status: number; body: string }> {
  const body = await response.text();
  seen.push(`${response.status} ${JSON.stringify([...response.headers])} ${body}`);
  return { status: response.status, body };
}

/** Requests `path` every 100 ms until stopped; answers each request's latency in ms. */
function monitor(path: string) {
  const latencies: number[] = [];
  const statuses: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const { status } = await record(await fetch(`${api.url}${path}`));
      latencies.push(performance.now() - started);
      statuses.push(status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    latencies,
    statuses,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Runs `work` on `items` with at most `concurrency` at once. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

const MiB = 2 ** 20;
// A full collection on demand: the heap is compared once garbage is gone, so what remains is what was kept.
setFlagsFromString('--expose_gc');
const collect = runInNewContext('gc') as () => void;
const chunkedHead = (path: string) => `POST ${path} HTTP/1.1\r\nHost: api.test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;

describe('exhaustion probe', () => {
  it('keeps a public route fast, memory bounded and secrets out of every response', async () => {
    // Warm up: the route, the token path and the heap settle before the baseline.
    for (let i = 0; i < 20; i++) await record(await fetch(`${api.url}/v0/openapi.json`));
    await new Promise((resolve) => setTimeout(resolve, 200));
    collect();
    const baseline = process.memoryUsage();
    const watch = monitor('/v0/openapi.json');
    let peakHeap = baseline.heapUsed;
    const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);

    // The attacking client shares this process's event loop with the server: it opens its
    // connections 20 at a time, so that what is measured is the server, not the client's own
    // burst, and so that the kernel's accept queue (511) does not overflow: a connection dropped
    // there looks open to the client while the server has never seen it.
    const opened = async (count: number, open: (i: number) => RawExchange): Promise<RawExchange[]> => {
      const all: RawExchange[] = [];
      for (let i = 0; i < count; i++) {
        all.push(open(i));
        if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return all;
    };
    const part = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(48 * 1024, 0x61)]);
    const [silent, slow, flood] = await Promise.all([
      // 1. 500 connections that send nothing: closed by the headers timeout.
      opened(500, () => rawRequest(api.url, '')),
      // 2. 200 webhook bodies for a real receiver that never finish: 408 at the body timeout.
      opened(200, () => rawRequest(api.url, chunkedHead('/v0/webhooks/pylon/acme'), '8000\r\n{"slow":')),
      // 3. 1,000 deliveries of 48 KiB (of a declared 64 KiB chunk) for organizations without a receiver: 404 before the body.
      opened(1_000, (i) => rawRequest(api.url, chunkedHead(`/v0/webhooks/plain/nobody-${i}`), part)),
    ]);
    // 4. 2,000 distinct bad tokens, 20 at a time.
    const bad = Array.from({ length: 2_000 }, (_, i) => `${TOKEN_PREFIX}forged${i.toString(36).padStart(8, '0')}`);
    const badTokens = pool(bad, 20, async (forged) => {
      const { status } = await record(await fetch(`${api.url}/v0/me`, { headers: { authorization: `Bearer ${forged}` } }));
      expect(status).toBe(401);
    });
    // 5. Visitors' escalations meanwhile: one to the hook that answers without a link, one to an integration not configured.
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const escalations = (async () => {
      const sent = JSON.parse((await record(await fetch(`${api.url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'My invoice is wrong' }) }))).body) as { conversation_id: string };
      await record(await fetch(`${api.url}/v0/chat/${sent.conversation_id}`, { headers: { ...headers, prefer: 'wait=10' } }));
      const body = JSON.stringify({ integration: 'webhook', name: 'Ada', email: 'ada@example.com' });
      const webhook = await record(await fetch(`${api.url}/v0/chat/${sent.conversation_id}/escalate`, { method: 'POST', headers, body }));
      expect(webhook.status).toBe(200);
      expect(JSON.parse(webhook.body).ticket_url).toBe('');
      const second = JSON.parse((await record(await fetch(`${api.url}/v0/chat`, { method: 'POST', headers, body: JSON.stringify({ message: 'Another question' }) }))).body) as { conversation_id: string };
      await record(await fetch(`${api.url}/v0/chat/${second.conversation_id}`, { headers: { ...headers, prefer: 'wait=10' } }));
      const linear = await record(await fetch(`${api.url}/v0/chat/${second.conversation_id}/escalate`, { method: 'POST', headers, body: body.replace('webhook', 'linear') }));
      expect(linear.status).toBe(500);
    })();

    try {
      await within(Promise.all([badTokens, escalations]), 30_000, 'bad tokens and escalations');
      expect(new Set(await within(Promise.all(slow.map((s) => s.status)), 10_000, 'slow bodies'))).toEqual(new Set([408]));
      const floodStatuses = await within(Promise.all(flood.map((f) => f.status)), 10_000, 'flood');
      // Refused before the body (404), by the request timeout when the server got to it late (408),
      // or reset before the client read its answer (0, a server that closes while the client still sends).
      expect(floodStatuses.filter((s) => s !== 404 && s !== 408 && s !== 0)).toEqual([]);
      console.log(`flood: ${floodStatuses.filter((s) => s === 404).length} × 404, ${floodStatuses.filter((s) => s === 408).length} × 408, ${floodStatuses.filter((s) => s === 0).length} reset`);
      const open = { silent: silent.length, slow: slow.length, flood: flood.length };
      for (const [name, group] of Object.entries({ silent, slow, flood })) for (const c of group) void c.closed.then(() => open[name as keyof typeof open]--);
      await within(Promise.all([...silent, ...slow, ...flood].map((c) => c.closed)), 10_000, 'every probe connection closed by the server').catch((error: Error) => {
        const stuck = silent.filter((c) => !c.socket.destroyed);
        throw new Error(`${error.message}; still open: ${JSON.stringify(open)}; silent still connecting: ${stuck.filter((c) => c.socket.connecting).length}, received: ${stuck.filter((c) => c.received()).length}, readyState ${[...new Set(stuck.map((c) => c.socket.readyState))].join()}`);
      });
      for (const c of [...slow, ...flood]) seen.push(c.received());
    } finally {
      for (const c of [...silent, ...slow, ...flood]) c.socket.destroy();
      clearInterval(sampler);
      await watch.stop();
    }

    // Memory: the connections are gone; give the collector a moment, then compare with the baseline.
    collect();
    let after = process.memoryUsage();
    for (let i = 0; i < 20 && after.heapUsed - baseline.heapUsed > 32 * MiB; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      collect();
      after = process.memoryUsage();
    }
    const sorted = [...watch.latencies].sort((a, b) => a - b);
    const worst = sorted.at(-1)!;
    console.log(
      `exhaustion probe: ${watch.latencies.length} probes of GET /v0/openapi.json, p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, worst ${worst.toFixed(1)} ms; ` +
        `heap ${(baseline.heapUsed / MiB).toFixed(1)} MiB before, ${(peakHeap / MiB).toFixed(1)} MiB peak, ${(after.heapUsed / MiB).toFixed(1)} MiB after; ` +
        `rss ${(baseline.rss / MiB).toFixed(0)} → ${(after.rss / MiB).toFixed(0)} MiB`,
    );
    expect(watch.statuses.every((s) => s === 200)).toBe(true);
    expect(watch.latencies.length).toBeGreaterThan(10);
    expect(worst).toBeLessThan(500);
    expect((after.heapUsed - baseline.heapUsed) / MiB).toBeLessThan(32);

    // Secrets: none in anything a visitor-facing client was sent.
    const everything = seen.join('\n');
    for (const secret of [token, hookUrl, HOOK_PATH, 'probeCapabilityPath', 'probeQuerySecret', WEBHOOK_SECRET, PYLON_SECRET, 'SUPPORT_CHAT_', 'LINEAR_']) {
      expect(everything.includes(secret), secret).toBe(false);
    }
  }, 90_000);
});
