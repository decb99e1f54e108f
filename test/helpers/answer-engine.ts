/** @module The local answer engine on a fresh test database (see openTestSql), closed when the test ends. */
import { onTestFinished } from 'vitest';
import { createAnswerEngine, type AnswerEngineOptions } from '../../src/server/answers/index.js';
import { openTestSql } from './database.js';

/** An answer engine over an empty knowledge base, with no LLM unless one is given; call it inside a test. */
export async function openTestEngine(options: Omit<AnswerEngineOptions, 'sql'> = {}) {
  const sql = await openTestSql();
  onTestFinished(() => sql.close());
  return createAnswerEngine({ ...options, sql, llm: options.llm ?? null });
}
