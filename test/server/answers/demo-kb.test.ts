import { beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { resolve } from 'node:path';
import { createAnswerEngine } from '../../../src/server/answers/index.js';

/** `npm start`'s knowledge base: this project's README, docs and source (see scripts/start.mjs). */
const repo = resolve(import.meta.dirname, '../../..');
const engine = createAnswerEngine({ db: new Database(':memory:'), llm: null });

beforeAll(async () => {
  await engine.ingest('demo', [resolve(repo, 'README.md'), resolve(repo, 'docs'), resolve(repo, 'src')], { baseUrl: 'http://localhost:8080/source/' });
}, 60_000);

const ask = (question: string) => engine.answer({ orgId: 'demo', messages: [{ role: 'user', content: question, sources: [] }], signal: new AbortController().signal });

describe("the demo answers its own users from the docs that explain it", () => {
  it.each([
    ['How do I embed the widget on my site?', 'README#embed-the-widget', /data-endpoint="\/api\/support"/],
    ['How do I run the proxy in Next.js?', 'README#run-the-proxy', /Next\.js/],
    ['How do I use the proxy with Express?', 'docs/proxy#mounting', /expressMiddleware\(proxy\)/],
    ['Can conversations be escalated to Linear?', 'docs/integrations#escalation', /Linear/],
    ['What are the rate limits?', 'docs/server#rate-limits', /X-RateLimit-Limit/],
    ['Does it support dark mode?', 'README#embed-the-widget', /`theme` \(`light` \| `dark` \| `auto`\)/],
    ['Which languages does it support?', 'docs/widget#attributes-and-properties', /`lang`/],
    ['How do I configure an LLM?', 'docs/engine#answers-with-an-llm', /SUPPORT_CHAT_LLM_BASE_URL/],
  ])('%s', async (question, source, phrase) => {
    const answer = await ask(question);
    expect(answer.sources[0]?.url).toBe(`http://localhost:8080/source/${source}`);
    expect(answer.content).toMatch(phrase);
  });
});
