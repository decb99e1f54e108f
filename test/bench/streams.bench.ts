/**
 * @module Streamed answers (`GET /v0/chat/{id}/events`): one API process holding 1,000
 * concurrent streams (memory per stream, the event loop's delay while they wait and while their
 * answers are written by a worker process), and the time from the provider's first token to the
 * first delta out of the API process. The API and the worker run in their own processes
 * (streams-target.ts) on one SQLite data directory and Redis; the LLM stand-in, in this one,
 * streams each reply in 4-character chunks 50 ms apart, and notes when each reply's first chunk
 * left it, on the same clock as the client's arrivals. Needs Redis (SUPPORT_CHAT_TEST_REDIS_URL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_REDIS_URL } from '../helpers/redis.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { joinedDeltas, openEvents, type SseStream } from '../helpers/sse-reader.js';
import { quantile, type BenchTable } from './table.js';

const STREAMS = 1_000;
const SEQUENTIAL = 30;
/** Answers the worker writes at once. */
const WRITING = 64;
const QUESTION = 'What is the rate limit per token?';
const REPLY = 'Each token may send 120 requests per minute [1]. Each organization may send 600 requests per minute [1], across all its tokens.';

export async function run(): Promise<BenchTable[]> {
  const llm = await fakeLlm();
  llm.chunkChars = 4;
  llm.chunkDelayMs = 50;
  const dataDir = mkdtempSync(join(tmpdir(), 'support-chat-streams-bench-'));
  const start = (role: 'api' | 'worker') =>
    spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(import.meta.dirname, 'streams-target.ts'), role, llm.baseUrl, dataDir, TEST_REDIS_URL, String(WRITING)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const tell = (child: ChildProcess) => <T extends Record<string, unknown>>(cmd: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const on = (message: { cmd: string } & T) => {
        if (message.cmd !== cmd) return;
        child.off('message', on);
        resolve(message);
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`streams target exited with ${code}`)));
      if (cmd !== 'ready') child.send({ cmd });
    });
  // The worker first: it migrates the database and ingests the knowledge base.
  const workerProcess = start('worker');
  const worker = tell(workerProcess);
  await worker('ready');
  const apiProcess = start('api');
  const command = tell(apiProcess);
  try {
    const { url, token } = await command<{ url: string; token: string }>('ready');
    const auth = { authorization: `Bearer ${token}` };
    const send = async (n: number) => {
      llm.script.push(REPLY);
      const response = await fetch(`${url}/v0/chat`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ message: `${QUESTION} (${n})` }) });
      return ((await response.json()) as { conversation_id: string }).conversation_id;
    };
    /** First token to first delta, per turn: the stand-in's first chunk of the request asking question `n`. */
    const latency = (turns: { n: number; stream: SseStream }[]) => {
      const requestOf = new Map<string, number>();
      llm.requests.forEach((r, i) => requestOf.set(r.messages.at(-1)!.content, i));
      return turns.map(({ n, stream }) => stream.events.find((e) => e.event === 'delta')!.at - llm.firstChunkAt[requestOf.get(`${QUESTION} (${n})`)!]!);
    };
    const correct = (turns: { stream: SseStream }[]) =>
      turns.filter(({ stream }) => {
        const terminal = stream.events.at(-1);
        return terminal?.event === 'completed' && joinedDeltas(stream.events) === (JSON.parse(terminal.data) as { messages: { content: string }[] }).messages.at(-1)!.content;
      }).length;

    // One turn at a time.
    const sequential: { n: number; stream: SseStream }[] = [];
    for (let n = 0; n < SEQUENTIAL; n++) {
      const id = await send(n);
      const stream = await openEvents(`${url}/v0/chat/${id}/events`, auth);
      await stream.until((e) => e.event === 'completed', 60_000);
      sequential.push({ n, stream });
    }

    // 1,000 streams held open on turns queued while the worker is paused.
    await worker('pause');
    const ids: string[] = [];
    for (let n = SEQUENTIAL; n < SEQUENTIAL + STREAMS; n++) ids.push(await send(n));
    const before = await command<{ heapUsed: number; rss: number }>('memory');
    const held = await Promise.all(ids.map(async (id, i) => ({ n: SEQUENTIAL + i, stream: await openEvents(`${url}/v0/chat/${id}/events`, auth) })));
    while (held.some(({ stream }) => stream.comments.length === 0)) await new Promise((r) => setTimeout(r, 50));
    const open = await command<{ heapUsed: number; rss: number; open: number }>('memory');
    await command('delay-start');
    await new Promise((r) => setTimeout(r, 5_000));
    const idle = await command<{ p50: number; p99: number; max: number }>('delay-stop');

    // The worker answers all 1,000 (WRITING at a time), every stream receiving its turn's deltas.
    await command('delay-start');
    const started = performance.now();
    await worker('resume');
    await Promise.all(held.map(({ stream }) => stream.ended));
    const seconds = (performance.now() - started) / 1000;
    const busy = await command<{ p50: number; p99: number; max: number }>('delay-stop');
    const deltas = held.reduce((sum, { stream }) => sum + stream.events.filter((e) => e.event === 'delta').length, 0);

    const kb = (bytes: number) => bytes / 1024 / STREAMS;
    const sequentialLatency = latency(sequential);
    const loadedLatency = latency(held);
    const missing = loadedLatency.filter((ms) => Number.isNaN(ms)).length;
    if (missing > 0) console.warn(`${missing} turns had no first delta or no LLM request`);
    return [
      {
        title: `${STREAMS.toLocaleString('en')} concurrent streams on one API process (a worker process answers; SQLite, Redis)`,
        columns: ['measure', 'value'],
        rows: [
          ['streams open at once', open.open],
          ['heap per open stream (KB, after a full collection)', kb(open.heapUsed - before.heapUsed)],
          ['RSS per open stream (KB)', kb(open.rss - before.rss)],
          ['event-loop delay of the API process, streams waiting: p50 / p99 / max (ms)', `${idle.p50.toFixed(1)} / ${idle.p99.toFixed(1)} / ${idle.max.toFixed(1)}`],
          [`event-loop delay of the API process, all ${STREAMS} answered and streamed: p50 / p99 / max (ms)`, `${busy.p50.toFixed(1)} / ${busy.p99.toFixed(1)} / ${busy.max.toFixed(1)}`],
          ['delta events sent while answering (per second)', Math.round(deltas / seconds)],
          ['streams whose deltas joined are the final content', `${correct(held)} of ${STREAMS}`],
        ],
        notes: [`The answering phase took ${seconds.toFixed(1)} s (the stand-in writes each ${REPLY.length}-character reply over ${Math.ceil(REPLY.length / 4)} chunks 50 ms apart; ${WRITING} answers at a time).`],
      },
      {
        title: "Provider's first token to the first delta out of the server",
        columns: ['turns', 'n', 'p50 (ms)', 'p99 (ms)', 'max (ms)'],
        rows: [
          ['one at a time', sequential.length, quantile(sequentialLatency, 0.5), quantile(sequentialLatency, 0.99), Math.max(...sequentialLatency)],
          [`${STREAMS} at once (${WRITING} written at a time)`, held.length, quantile(loadedLatency, 0.5), quantile(loadedLatency, 0.99), Math.max(...loadedLatency)],
        ],
        notes: [`One at a time, ${correct(sequential)} of ${sequential.length} streams' deltas joined are the final content.`],
      },
    ];
  } finally {
    apiProcess.kill();
    workerProcess.kill();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
