/** @module The answer engine as the server sees it: answers, summaries, and forgetting derived knowledge. */
import type { Message, Source } from '../../protocol/index.js';
import type { KnowledgeBase } from '../knowledge/index.js';
import type { QuestionContext } from '../store/conversations.js';

export interface AnswerRequest {
  orgId: string;
  /** The whole conversation so far, oldest first; the last entry is the user turn to answer. */
  messages: Message[];
  /** Aborted when the job's lease is lost or the server shuts down. */
  signal: AbortSignal;
  /** Where the last question was asked from, and text the visitor selected for it (see `QuestionContext`). */
  context?: QuestionContext;
  /**
   * Told the reply as it is written: its pieces joined are exactly the answer's final `content`
   * (so an engine streams only text it will not rewrite). An engine may stream nothing; the
   * worker then streams the content once the answer is done.
   */
  stream?: AnswerStream;
}

export interface AnswerStream {
  /** The engine started writing the reply (an LLM was asked). */
  status(status: 'writing'): void;
  /** The next piece of the reply's final text. */
  delta(text: string): void;
}

export interface Answer {
  /** Markdown text of the reply. */
  content: string;
  /** At most 5, best first, no duplicates; empty when nothing relevant was found. */
  sources: Source[];
  /**
   * True when the reply is not an answer: `sources` are then the related pages (or none, when
   * nothing in the knowledge base is related). @default false
   */
  isUncertain?: boolean;
}

export interface SummaryRequest {
  orgId: string;
  messages: Message[];
  signal?: AbortSignal;
}

export interface AnswerEngine {
  /** Produces the assistant's reply to the last user message. Throws when no answer can be produced. */
  answer(request: AnswerRequest): Promise<Answer>;
  /** A faithful summary of the conversation for an escalation ticket. */
  summarize(request: SummaryRequest): Promise<string>;
  /** A short ticket title for the conversation (at most ~80 characters). */
  title(request: SummaryRequest): Promise<string>;
  /** Removes from the index anything derived from the ticket `source`/`externalId` (called when a ticket is deleted). */
  forgetTicket(orgId: string, source: string, externalId: string): Promise<void>;
  /** The knowledge base it answers from, when it has one: the server indexes synced tickets in it and embeds its pending sections in the background. */
  readonly knowledge?: KnowledgeBase;
}
