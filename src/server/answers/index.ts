/**
 * @module The answer engine: retrieval over the organization's docs and code, answers composed
 * locally from the best passages, or by an OpenAI-compatible LLM grounded in them when configured.
 */
import type { Message, Source } from '../../protocol/index.js';
import type { Sql } from '../store/sql.js';
import { composeAnswer, extractiveSummary, extractiveTitle, NO_ANSWER } from './compose.js';
import { KnowledgeStore, type IngestOptions, type IngestReport, type SearchHit, type TicketDocument, type Vocabulary } from './knowledge-base.js';
import { sentenceEncoder, type Embedder } from './embeddings.js';
import type { KnowledgeSource } from './ingest/source-registry.js';
import { complete, llmConfigFromEnv, type ChatMessage, type LlmConfig } from './llm.js';
import { relevantHits, toSource } from './sources.js';
import type { Answer, AnswerEngine, AnswerRequest, SummaryRequest } from './types.js';

export { kbMigrations, IngestError, type IngestReport, type SearchHit } from './knowledge-base.js';
export type { KnowledgeSource } from './ingest/source-registry.js';
export type { AnswerEngine } from './types.js';

export interface KnowledgeBase {
  /** Files, folders and docs sites (by URL), remembered as the organization's sources. */
  ingest(orgId: string, paths: string[], options?: IngestOptions): Promise<IngestReport>;
  /** The organization's sources and their last sync. */
  sources(orgId: string): Promise<KnowledgeSource[]>;
  /** Ingests the organization's sources again (`kinds: ['url']`: its docs sites only). */
  sync(orgId: string, options?: Parameters<KnowledgeStore['sync']>[1]): Promise<IngestReport & { sources: number }>;
  search(orgId: string, query: string, options?: { history?: string[]; limit?: number; includeTickets?: boolean }): Promise<SearchHit[]>;
  indexTicket(orgId: string, ticket: TicketDocument): Promise<void>;
  stats(orgId: string): Promise<{ documents: number; sections: number; prose: number; embedded: number }>;
  /** What the organization's knowledge base knows of a term (as the tokenizer returns it). */
  vocabulary(orgId: string): Promise<Vocabulary>;
}

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
}

const SYSTEM_PROMPT = `You are the support assistant of a software product. Answer the customer's question using only the numbered sources below.
Cite every fact with the number of its source in square brackets, like [1] or [2][3].
If the sources do not answer the question, say plainly that you could not find it in the documentation and suggest talking to a human. Do not invent anything.
Keep the answer short: a few sentences, a list or a code block when it helps. Use Markdown.`;

function sourceBlock(hits: SearchHit[]): string {
  return hits
    .map((hit, i) => {
      const s = hit.section;
      const body = s.body.length > 1500 ? `${s.body.slice(0, 1500)}…` : s.body;
      const code = s.code ? `\n\`\`\`${s.lang}\n${s.code.split('\n').slice(0, 40).join('\n')}\n\`\`\`` : '';
      return `[${i + 1}] ${toSource(hit).title} (${s.url})\n${body}${code}`;
    })
    .join('\n\n');
}

/** Keeps only the sources the reply cites, renumbering its citations to match. */
export function mapCitations(text: string, sources: Source[]): { content: string; sources: Source[] } {
  const order: number[] = [];
  for (const m of text.matchAll(/\[(\d{1,2})\]/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= sources.length && !order.includes(n)) order.push(n);
  }
  const content = text.replace(/\[(\d{1,2})\]/g, (m, d: string) => {
    const position = order.indexOf(Number(d));
    return position >= 0 ? `[${position + 1}]` : '';
  });
  return { content: content.replace(/[ \t]+([.,;:])/g, '$1'), sources: order.map((n) => sources[n - 1]!) };
}

function history(messages: Message[]): { question: string; earlier: string[] } {
  const users = messages.filter((m) => m.role === 'user');
  return { question: users.at(-1)?.content ?? '', earlier: users.slice(0, -1).map((m) => m.content) };
}

export function createAnswerEngine(options: AnswerEngineOptions): AnswerEngine & KnowledgeBase {
  const store = new KnowledgeStore(options.sql, options.embedder !== undefined ? options.embedder : sentenceEncoder);
  const llm = options.llm !== undefined ? options.llm : llmConfigFromEnv(options.env ?? process.env, options.fetch);

  async function llmAnswer(config: LlmConfig, request: AnswerRequest, hits: SearchHit[]): Promise<Answer> {
    const sources = hits.map(toSource);
    const conversation: ChatMessage[] = request.messages.slice(-8).map((m) => ({ role: m.role, content: m.content }));
    const reply = await complete(
      config,
      [{ role: 'system', content: `${SYSTEM_PROMPT}\n\nSources:\n\n${sourceBlock(hits) || '(none found)'}` }, ...conversation],
      { signal: request.signal },
    );
    return mapCitations(reply, sources);
  }

  return {
    async answer(request: AnswerRequest): Promise<Answer> {
      const { question, earlier } = history(request.messages);
      // One check that the organization's index is current serves the whole answer.
      const kb = await store.snapshot(request.orgId);
      const hits = kb.search(question, { history: earlier, limit: 10, vector: await store.embedQuestion(question) });
      if (llm) {
        // The LLM decides, under the grounded prompt, whether the best passages answer: no local gate.
        const grounded = relevantHits(hits);
        if (grounded.length === 0) return { content: NO_ANSWER, sources: [] };
        try {
          return await llmAnswer(llm, request, grounded);
        } catch (error) {
          if (request.signal.aborted) throw error;
          // The provider failed: the local answer is still faithful to the sources.
        }
      }
      return composeAnswer(question, hits, kb.vocabulary, earlier);
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

    forgetTicket: (orgId, source, externalId) => store.forgetTicket(orgId, source, externalId),

    ingest: (orgId, paths, ingestOptions) => store.ingest(orgId, paths, ingestOptions),
    sources: (orgId) => store.sources(orgId),
    sync: (orgId, syncOptions) => store.sync(orgId, syncOptions),
    search: (orgId, query, searchOptions) => store.search(orgId, query, searchOptions),
    indexTicket: (orgId, ticket) => store.indexTicket(orgId, ticket),
    stats: (orgId) => store.stats(orgId),
    vocabulary: (orgId) => store.vocabulary(orgId),
  };
}
