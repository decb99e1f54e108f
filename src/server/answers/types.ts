/** @module The answer engine as the server sees it: answers, summaries, and forgetting derived knowledge. */
import type { Message, Source } from '../../protocol/index.js';

export interface AnswerRequest {
  orgId: string;
  /** The whole conversation so far, oldest first; the last entry is the user turn to answer. */
  messages: Message[];
  /** Aborted when the job's lease is lost or the server shuts down. */
  signal: AbortSignal;
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
}
