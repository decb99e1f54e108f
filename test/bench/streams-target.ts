/**
 * @module A process of the deployment the streams benchmark loads (run with --expose-gc), so that
 * the API process's memory and event loop are its own: `serve --role api` or `--role worker` on
 * one SQLite data directory, sharing Redis (the turns' events and the bus), answering with the LLM
 * stand-in the benchmark runs. The worker ingests the knowledge base; the API process makes the
 * token. Each reports on IPC and takes commands there: `memory` (after a full collection),
 * `delay-start` / `delay-stop` (the event loop's delay, perf_hooks), `pause` / `resume` (the worker).
 */
import { resolve } from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createAnswerEngine, type KnowledgeBase } from '../../src/server/answers/index.js';
import type { AnswerEngine } from '../../src/server/answers/types.js';

const UNLIMITED = { perToken: 1e9, perOrganization: 1e9, perAddress: 1e9, endpoints: { send: 1e9, escalate: 1e9, deleteTicket: 1e9 } };
const [role, llmUrl, dataDir, redisUrl, writing] = process.argv.slice(2) as ['api' | 'worker', string, string, string, string];

const { url, server } = await startServer({
  role,
  dataDir,
  port: 0,
  logger: silentLogger,
  rateLimits: UNLIMITED,
  workerConcurrency: Number(writing),
  connections: { maxConnections: 8_192 },
  engine: (sql) => createAnswerEngine({ sql, llm: { baseUrl: llmUrl, apiKey: 'test-key', model: 'test-model', timeoutMs: 60_000 }, embedder: null }),
  env: { SUPPORT_CHAT_REDIS_URL: redisUrl },
});
if (role === 'worker') await (server.engine as AnswerEngine & KnowledgeBase).ingest('bench', [resolve(import.meta.dirname, '../fixtures/kb/docs')]);
const token = role === 'api' ? (await server.tokens.create({ orgId: 'bench', name: 'bench', scopes: ['chat:read', 'chat:write'] })).token : '';

const RESOLUTION_MS = 10;
let delay: IntervalHistogram | undefined;
const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (message: { cmd: string }) => {
  const send = (data: Record<string, unknown>) => process.send!({ cmd: message.cmd, ...data });
  if (message.cmd === 'memory') {
    gc?.();
    gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    send({ heapUsed, rss, open: server.streams.open });
  } else if (message.cmd === 'delay-start') {
    delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    delay.enable();
    send({});
  } else if (message.cmd === 'delay-stop') {
    delay!.disable();
    // The histogram holds the time between its timer's ticks: the delay is what exceeds the tick.
    const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    send({ p50: late(delay!.percentile(50)), p99: late(delay!.percentile(99)), max: late(delay!.max) });
  } else if (message.cmd === 'pause') {
    void server.worker.stop().then(() => send({}));
  } else if (message.cmd === 'resume') {
    server.worker.start();
    send({});
  }
});
process.on('disconnect', () => process.exit(0));
process.send!({ cmd: 'ready', url, token });
