/**
 * @module Fair queues: how long one organization's next answer takes while another organization's
 * 100 questions wait, over HTTP against the real server (SQLite, 4 workers), with an answer engine
 * that takes a fixed time per answer (an LLM's latency).
 */
import { startServer } from '../../src/server/index.js';
import { silentLogger } from '../../src/server/log.js';
import { createTestEngine } from '../helpers/test-engine.js';
import { quantile, type BenchTable } from './table.js';

const ANSWER_MS = Number(process.env.BENCH_ANSWER_MS ?? 200);
const FLOOD = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** One round on a fresh server: B floods, then A asks once; A's answer time and B's questions still waiting then. */
async function round(): Promise<{ answerMs: number; backlog: number; aloneMs: number }> {
  const engine = createTestEngine();
  const answer = engine.answer.bind(engine);
  engine.answer = async (request) => {
    await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
    return answer(request);
  };
  const api = await startServer({ dataDir: ':memory:', port: 0, engine, logger: silentLogger, env: {} });
  try {
    const token = async (orgId: string) => (await api.server.tokens.create({ orgId, name: 'bench', scopes: ['chat:read', 'chat:write'] })).token;
    const [a, b] = [await token('org-a'), await token('org-b')];
    const send = async (t: string, message: string) => {
      const response = await fetch(`${api.url}/v0/chat`, { method: 'POST', headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
      return ((await response.json()) as { conversation_id: string }).conversation_id;
    };
    const settled = async (t: string, id: string) => {
      for (;;) {
        const response = await fetch(`${api.url}/v0/chat/${id}`, { headers: { authorization: `Bearer ${t}`, prefer: 'wait=10' } });
        if (((await response.json()) as { status: string }).status !== 'processing') return;
      }
    };
    // A's answer with the queue empty: the engine's time and the server's own.
    let started = performance.now();
    await settled(a, await send(a, 'How do I reset my password?'));
    const aloneMs = performance.now() - started;
    const flood = await Promise.all(Array.from({ length: FLOOD }, (_, i) => send(b, `Long question ${i}`)));
    started = performance.now();
    await settled(a, await send(a, 'How do I change my email?'));
    const answerMs = performance.now() - started;
    const backlog = engine.asked.length;
    await Promise.all(flood.map((id) => settled(b, id)));
    return { answerMs, backlog: FLOOD - (backlog - 2), aloneMs };
  } finally {
    await api.close();
  }
}

export async function run(): Promise<BenchTable[]> {
  const rounds: Awaited<ReturnType<typeof round>>[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
  const median = (values: number[]) => quantile(values, 0.5);
  return [
    {
      title: `Organization A's next answer while B's ${FLOOD} questions wait (SQLite, 4 workers, ${ANSWER_MS} ms per answer; median of ${ROUNDS} rounds)`,
      columns: ['A alone, ms', 'A behind B, ms', "B's questions not yet taken then", 'first-in-first-out would wait, ms'],
      rows: [[median(rounds.map((r) => r.aloneMs)), median(rounds.map((r) => r.answerMs)), median(rounds.map((r) => r.backlog)), (FLOOD / 4) * ANSWER_MS]],
      notes: ['Goal: A behind B within about one answer of A alone (a worker frees up, then takes A first).'],
    },
  ];
}
