/** @module A controllable answer engine for server tests: answers on demand, fails when told. */
import type { Answer, AnswerEngine, AnswerRequest, SummaryRequest } from '../../src/server/answers/types.js';

export interface TestEngine extends AnswerEngine {
  /** Questions seen, in order. */
  asked: string[];
  /** When set, answers wait for `release()`. */
  hold: boolean;
  release(): void;
  /** Answers fail this many more times. */
  failures: number;
  /** forgetTicket fails this many more times. */
  forgetFailures: number;
  forgotten: string[];
}

export function createTestEngine(answer: (question: string) => Answer = (q) => ({ content: `About "${q}": see the guide.`, sources: [{ title: 'Guide', url: 'https://docs.example.com/guide' }] })): TestEngine {
  let waiting: (() => void)[] = [];
  const engine: TestEngine = {
    asked: [],
    hold: false,
    failures: 0,
    forgetFailures: 0,
    forgotten: [],
    release() {
      const w = waiting;
      waiting = [];
      for (const resolve of w) resolve();
    },
    async answer(request: AnswerRequest) {
      const question = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      engine.asked.push(question);
      if (engine.hold) {
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve);
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
        });
      }
      if (engine.failures > 0) {
        engine.failures--;
        throw new Error('engine failure for the test');
      }
      return answer(question);
    },
    async summarize(request: SummaryRequest) {
      return `Summary of ${request.messages.length} messages`;
    },
    async title(request: SummaryRequest) {
      return request.messages[0]?.content.slice(0, 80) ?? 'Conversation';
    },
    async forgetTicket(orgId: string, source: string, externalId: string) {
      if (engine.forgetFailures > 0) {
        engine.forgetFailures--;
        throw new Error('index unavailable for the test');
      }
      engine.forgotten.push(`${orgId}/${source}/${externalId}`);
    },
  };
  return engine;
}
