/**
 * @module The answer engine: retrieval over the organization's docs and code, answers composed
 * locally from the best passages, or by an OpenAI-compatible LLM grounded in them when configured.
 */
import { setImmediate } from 'node:timers/promises';
import type { Message } from '../../protocol/index.js';
import type { Sql } from '../store/sql.js';
import { composeAnswer, extractiveSummary, extractiveTitle, NOTHING_RELATED, RELATED_INTRO } from './compose.js';
import { answerSignals, THRESHOLDS } from './decision.js';
import { createKnowledgeBase, type KnowledgeBase, type SearchHit } from '../knowledge/index.js';
import type { Embedder } from '../knowledge/ranking/embeddings.js';
import { complete, llmConfigFromEnv, LlmError, streamCompletion, type ChatMessage, type LlmConfig } from './llm.js';
import { NOT_ANSWERED, StreamedReply } from './streamed-reply.js';
import { relatedHits, relevantHits, toSource } from './sources.js';
import type { Answer, AnswerEngine, AnswerRequest, SummaryRequest } from './types.js';

export { kbMigrations, IngestError, type EmbedPendingOptions, type IngestReport, type KnowledgeBase, type KnowledgeSource, type SearchHit } from '../knowledge/index.js';
export type { AnswerEngine } from './types.js';
export { mapCitations, NOT_ANSWERED } from './streamed-reply.js';

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

const SYSTEM_PROMPT = `You are the support assistant of a software product. Answer the customer's question using only the numbered sources below.
Cite every fact with the number of its source in square brackets, like [1] or [2][3].
Reply in the language of the customer's last message.
If the sources do not answer the question, start your reply with ${NOT_ANSWERED}, then say in one sentence that you could not find a direct answer in the documentation and that the pages listed may help or a human can. Do not invent anything.
Keep the answer short: a few sentences, a list or a code block when it helps. Use Markdown.`;

const CONDENSE_PROMPT = `Rewrite the customer's last message as one standalone question that can be understood without the conversation, in the customer's language. Reply with the question alone.`;

function sourceBlock(hits: SearchHit[]): string {
  return hits
    .map((hit, i) => {
      const s = hit.under ?? hit.section;
      const body = s.body.length > 1500 ? `${s.body.slice(0, 1500)}…` : s.body;
      const code = s.code ? `\n\`\`\`${s.lang}\n${s.code.split('\n').slice(0, 40).join('\n')}\n\`\`\`` : '';
      return `[${i + 1}] ${toSource(hit).title} (${hit.section.url})\n${body}${code}`;
    })
    .join('\n\n');
}

/** What the LLM is told of where the last question was asked: the page, and the text the visitor selected there (for this question only). */
function whereAsked(request: AnswerRequest): string {
  const { pageUrl, pageTitle, selection } = request.context ?? {};
  let out = '';
  if (pageUrl) out += `\n\nThe customer asked from the page ${pageTitle ? `"${pageTitle}" ` : ''}(${pageUrl}); "it" or "this" may mean what that page is about.`;
  if (selection) out += `\n\nWith the last question, the customer selected this text on the page:\n"""\n${selection}\n"""`;
  return out;
}

/**
 * How much of a conversation an answer reads: the question's first and last characters (a pasted
 * log with the question after it keeps its question), and the last few earlier user turns, each
 * clipped. Retrieval, the decision and the composition then do a bounded amount of work whatever
 * the visitor sends (16,000 characters a message, twenty turns).
 */
export const READ_LIMITS = { questionHead: 1_500, questionTail: 500, earlierTurns: 3, earlierChars: 1_000 };

/** The question (its head and tail when long) and the last earlier user turns, each clipped (see `READ_LIMITS`). */
export function history(messages: Message[]): { question: string; earlier: string[] } {
  const users = messages.filter((m) => m.role === 'user');
  const last = users.at(-1)?.content ?? '';
  const { questionHead, questionTail, earlierTurns, earlierChars } = READ_LIMITS;
  const question = last.length <= questionHead + questionTail ? last : `${clip(last, 0, questionHead)}\n…\n${clip(last, last.length - questionTail, last.length)}`;
  const earlier = users.slice(Math.max(0, users.length - 1 - earlierTurns), -1).map((m) => clip(m.content, 0, earlierChars));
  return { question, earlier };
}

/** `text.slice(start, end)`, moved inward so as not to split a surrogate pair. */
function clip(text: string, start: number, end: number): string {
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start] ?? '')) start++;
  if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  return text.slice(start, end);
}

/**
 * The local answer engine over a knowledge base. It is the knowledge base too (its methods, and
 * `knowledge`, which the server uses for ticket indexing and background embedding).
 */
export function createAnswerEngine(options: AnswerEngineOptions): AnswerEngine & KnowledgeBase & { knowledge: KnowledgeBase } {
  const knowledge = options.knowledge ?? createKnowledgeBase({ sql: options.sql, embedder: options.embedder });
  const llm = options.llm !== undefined ? options.llm : llmConfigFromEnv(options.env ?? process.env, options.fetch);

  /**
   * The LLM's answer, streamed as it is written (`request.stream`): each piece is final when
   * passed on (see streamed-reply.ts). Throws when the provider fails; `streamed` then says
   * whether any text was passed on (the local answer can no longer replace it).
   */
  async function llmAnswer(config: LlmConfig, request: AnswerRequest, hits: SearchHit[], related: SearchHit[], progress: { streamed: boolean }): Promise<Answer> {
    const sources = hits.map(toSource);
    const conversation: ChatMessage[] = request.messages.slice(-8).map((m) => ({ role: m.role, content: m.content }));
    const reply = new StreamedReply(sources);
    const send = (text: string) => {
      if (!text) return;
      progress.streamed = true;
      request.stream?.delta(text);
    };
    request.stream?.status('writing');
    await streamCompletion(config, [{ role: 'system', content: `${SYSTEM_PROMPT}${whereAsked(request)}\n\nSources:\n\n${sourceBlock(hits) || '(none found)'}` }, ...conversation], {
      signal: request.signal,
      onText: (piece) => send(reply.push(piece)),
    });
    const end = reply.end();
    send(end.text);
    // The model's own signal that its sources do not answer: the passages become related pages.
    if (end.notAnswered) {
      if (!end.content) send(RELATED_INTRO);
      return { content: end.content || RELATED_INTRO, sources: related.map(toSource), isUncertain: true };
    }
    if (!end.content) throw new LlmError('provider returned no content');
    // The marker after some text (already streamed): uncertain, its citations kept.
    if (end.markerLater) return { content: end.content, sources: end.cited.length > 0 ? end.cited : related.map(toSource), isUncertain: true };
    // A reply that cites none of its sources did not answer from them.
    return { content: end.content, sources: end.cited, isUncertain: end.cited.length === 0 };
  }

  /**
   * A follow-up as a standalone question ("and on Windows?" → "How do I install it on
   * Windows?"), by the LLM; null without earlier turns, or when the provider fails (retrieval then
   * weighs the earlier turns' words).
   */
  async function condensed(config: LlmConfig, request: AnswerRequest): Promise<string | null> {
    if (!request.messages.some((m, i) => m.role === 'user' && i < request.messages.length - 1)) return null;
    const transcript = request.messages.slice(-8).map((m) => `${m.role === 'user' ? 'Customer' : 'Assistant'}: ${m.content}`).join('\n\n');
    try {
      const question = await complete(config, [{ role: 'system', content: CONDENSE_PROMPT }, { role: 'user', content: transcript.slice(0, 8_000) }], { signal: request.signal, maxTokens: 120 });
      return question.split('\n')[0]!.trim() || null;
    } catch (error) {
      if (request.signal.aborted) throw error;
      return null;
    }
  }

  return {
    ...knowledge,
    knowledge,
    async answer(request: AnswerRequest): Promise<Answer> {
      const { question, earlier } = history(request.messages);
      // One check that the organization's index is current serves the whole answer.
      const kb = await knowledge.snapshot(request.orgId);
      // With an LLM, a follow-up is condensed to a standalone question before retrieval.
      const standalone = llm ? await condensed(llm, request) : null;
      const query = standalone ?? question;
      const context = standalone ? [] : earlier;
      // The page asked from weighs its sections and its neighbours'; a selection is read as an earlier turn, for this question only.
      const { pageUrl, selection } = request.context ?? {};
      const hits = kb.search(query, { history: selection ? [...context, selection] : context, limit: 10, vector: await knowledge.embedQuestion(query), pageUrl });
      // Retrieval and composition are each a few milliseconds of work: other requests go between them.
      await setImmediate();
      if (llm) {
        // The LLM decides, under the grounded prompt, whether the best passages answer; it is not
        // called when no section matches, or the best one means something else (the weather).
        const grounded = relevantHits(hits);
        const signals = answerSignals(query, hits, kb.vocabulary, context);
        if (grounded.length === 0 || (signals?.embedded && signals.nearest < THRESHOLDS.meaning)) return NOTHING_RELATED;
        const progress = { streamed: false };
        try {
          return await llmAnswer(llm, request, grounded, relatedHits(hits), progress);
        } catch (error) {
          // Text already streamed cannot be replaced: the turn fails (the worker makes that final).
          if (request.signal.aborted || progress.streamed) throw error;
          // The provider failed before its first word: the local answer is still faithful to the sources.
        }
      }
      return composeAnswer(query, hits, kb.vocabulary, context);
    },

    async summarize(request: SummaryRequest): Promise<string> {
      if (llm) {
        try {
          const transcript = request.messages.map((m) => `${m.role === 'user' ? 'Customer' : 'Assistant'}: ${m.content}`).join('\n\n');
          return await complete(
            llm,
            [
              { role: 'system', content: 'Summarise this support conversation for the human agent who takes it over: what the customer wants, what was already answered, what is still open. Three to five sentences, no invention.' },
              { role: 'user', content: transcript.slice(0, 12_000) },
            ],
            { signal: request.signal, maxTokens: 300 },
          );
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
