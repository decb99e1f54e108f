/**
 * @module The answer engine: retrieval over the organization's docs and code, answers composed
 * locally from the best passages, or by an OpenAI-compatible LLM grounded in them when configured.
 */
import { setImmediate } from 'node:timers/promises';
import type { Sql } from '../store/sql.js';
import { composeAnswer, extractiveSummary, extractiveTitle, NO_ANSWER, NOTHING_RELATED } from './compose.js';
import { answerSignals, THRESHOLDS, type AnswerSignals } from './decision.js';
import { createKnowledgeBase, embedReadings, type Embedder, type KnowledgeBase, type KnowledgeSnapshot, type SearchHit } from '../knowledge/index.js';
import { llmConfigFromEnv, type LlmConfig } from './llm.js';
import { condensed, llmAnswer, llmSummary } from './llm-answer.js';
import { relatedHits, relevantHits } from './sources.js';
import { conversationContext, conversationPage, FOLLOW_UP_NO_ANSWER, meaningOf } from './follow-up.js';
import { history } from './conversation.js';
import type { Answer, AnswerEngine, AnswerRequest, SummaryRequest } from './types.js';

export { kbMigrations, IngestError, type EmbedPendingOptions, type IngestReport, type KnowledgeBase, type KnowledgeSource, type SearchHit } from '../knowledge/index.js';
export type { AnswerEngine } from './types.js';
export { mapCitations, NOT_ANSWERED } from './streamed-reply.js';
export { history, READ_LIMITS } from './conversation.js';

export interface AnswerEngineOptions {
  /** The database, migrated with the knowledge base's migrations (`kbMigrations`, part of src/server/schema.ts). */
  sql: Sql;
  /** SUPPORT_CHAT_LLM_BASE_URL, _API_KEY, _MODEL. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** An explicit LLM configuration, instead of the environment's. */
  llm?: LlmConfig | null;
  /**
   * What embeds doc sections at ingest and questions at search, for the semantic rerank; null
   * ranks by words alone. @default the Universal Sentence Encoder, on a thread of the process (see embeddings.ts)
   */
  embedder?: Embedder | null;
  /** The knowledge base to answer from. @default one over `sql` with `embedder` */
  knowledge?: KnowledgeBase;
}

/** What retrieval found for a question: the text it searched for, the earlier turns it weighed, and the ranked hits. */
interface Retrieved {
  kb: KnowledgeSnapshot;
  /** The question searched for (a follow-up condensed by the LLM, when one is configured). */
  query: string;
  /** The earlier turns weighed with it (see follow-up.ts). */
  context: string[];
  hits: SearchHit[];
}

/**
 * The local answer engine over a knowledge base. It is the knowledge base too (its methods, and
 * `knowledge`, which the server uses for ticket indexing and background embedding).
 */
/** What a reply is decided from: the sections ranked for the question as the engine retrieved them, and the decision's signals over them. */
export interface Explained {
  hits: SearchHit[];
  signals: AnswerSignals | null;
}

export function createAnswerEngine(options: AnswerEngineOptions): AnswerEngine & KnowledgeBase & { knowledge: KnowledgeBase; explain(request: AnswerRequest): Promise<Explained> } {
  const knowledge = options.knowledge ?? createKnowledgeBase({ sql: options.sql, embedder: options.embedder });
  const llm = options.llm !== undefined ? options.llm : llmConfigFromEnv(options.env ?? process.env, options.fetch);

  /** The ranked sections for a conversation's last question, read with its conversation (see follow-up.ts). */
  async function retrieve(request: AnswerRequest): Promise<Retrieved> {
    const { question, earlier } = history(request.messages);
    // One check that the organization's index is current serves the whole answer.
    const kb = await knowledge.snapshot(request.orgId);
    // With an LLM, a follow-up is condensed to a standalone question before retrieval.
    const standalone = llm ? await condensed(llm, request) : null;
    const query = standalone ?? question;
    const context = standalone ? [] : conversationContext(request.messages, question, earlier, kb.vocabulary);
    // The page asked from weighs its sections and its neighbours'; a selection is read as an earlier turn, for this question only.
    // A follow-up that leans back is asked from the page its previous answer came from (see follow-up.ts).
    const { pageUrl = standalone ? undefined : conversationPage(request.messages, question, earlier, kb.vocabulary), selection } = request.context ?? {};
    // A follow-up that leans back is embedded with its conversation's subject (see follow-up.ts);
    // a misspelled word both as typed and as the word it means (see `Vocabulary.readings`).
    const readings = kb.vocabulary.readings(standalone ? query : meaningOf(query, earlier, context));
    const vectors = await embedReadings(readings, (text, orgId) => knowledge.embedQuestion(text, orgId), request.orgId);
    const hits = kb.search(query, { history: selection ? [...context, selection] : context, limit: 10, vector: vectors, pageUrl });
    return { kb, query, context, hits };
  }

  /**
   * The LLM's reply from the best passages, or null when the local answer is to be given instead
   * (the provider failed before its first word). The LLM decides, under the grounded prompt,
   * whether the passages answer; it is not called when no section matches, or the best one means
   * something else (the weather).
   */
  async function llmReply(config: LlmConfig, request: AnswerRequest, { kb, query, context, hits }: Retrieved): Promise<Answer | null> {
    const grounded = relevantHits(hits);
    const signals = answerSignals(query, hits, kb.vocabulary, context);
    if (grounded.length === 0 || (signals?.embedded && signals.nearest < THRESHOLDS.meaning)) return NOTHING_RELATED;
    const progress = { streamed: false };
    try {
      return await llmAnswer(config, request, grounded, relatedHits(hits), progress);
    } catch (error) {
      // Text already streamed cannot be replaced: the turn fails (the worker makes that final).
      if (request.signal.aborted || progress.streamed) throw error;
      // The provider failed before its first word: the local answer is still faithful to the sources.
      return null;
    }
  }

  /** The reply to a conversation's last question: retrieval, then the LLM's answer or the local one. */
  async function answerOnce(request: AnswerRequest): Promise<Answer> {
    const retrieved = await retrieve(request);
    // Retrieval and composition are each a few milliseconds of work: other requests go between them.
    await setImmediate();
    const written = llm ? await llmReply(llm, request, retrieved) : null;
    if (written) return written;
    return composeAnswer(retrieved.query, retrieved.hits, retrieved.kb.vocabulary, retrieved.context);
  }

  return {
    ...knowledge,
    knowledge,
    async answer(request: AnswerRequest): Promise<Answer> {
      const { earlier } = history(request.messages);
      const reply = await answerOnce(request);
      // A follow-up that found nothing is not asked to be rephrased (see follow-up.ts).
      return earlier.length > 0 && reply.content === NO_ANSWER ? { ...reply, content: FOLLOW_UP_NO_ANSWER } : reply;
    },

    /** What the reply to the conversation's last question is decided from, retrieved as `answer` retrieves it (the bench fits the decision on these signals). */
    async explain(request: AnswerRequest): Promise<Explained> {
      const { kb, query, context, hits } = await retrieve(request);
      return { hits, signals: answerSignals(query, hits, kb.vocabulary, context) };
    },

    async summarize(request: SummaryRequest): Promise<string> {
      if (llm) {
        try {
          return await llmSummary(llm, request);
        } catch {
          // Fall back to the extractive summary below.
        }
      }
      return extractiveSummary(request.messages);
    },

    async title(request: SummaryRequest): Promise<string> {
      return extractiveTitle(request.messages);
    },
  };
}
