/**
 * @module The MCP tool `ask` as a conversation: the question is sent through the conversation
 * lifecycle (channel `mcp`), answered by a worker as every question is (the engine, LLM or local,
 * in turn with other organizations' questions), and read back once it settles. The insights report
 * counts it as asked through MCP.
 */
import type { Source } from '../../protocol/index.js';
import type { ConversationLifecycle } from '../conversations/lifecycle.js';
import type { ConversationStore } from '../store/conversations.js';

/**
 * How long `ask` waits for its answer: under the 60 seconds an MCP client waits for a result by
 * default (the SDK's `DEFAULT_REQUEST_TIMEOUT_MSEC`), so the agent hears why rather than a timeout.
 */
export const ASK_WAIT_MS = 55_000;

/** What `ask` answers. */
export type AskOutcome =
  | { ok: true; conversationId: string; answer: string; sources: Source[]; uncertain: boolean }
  | { ok: false; conversationId?: string; reason: 'failed' | 'late' | 'cancelled' };

export interface AskDeps {
  lifecycle: ConversationLifecycle;
  conversations: ConversationStore;
  /** @default ASK_WAIT_MS */
  waitMs?: number;
}

/**
 * Asks `question` in a new conversation of `orgId` started through MCP and waits (until `signal`
 * aborts, or `waitMs`) for its answer.
 *
 * @example
 * const ask = conversationAsk({ lifecycle, conversations });
 * const outcome = await ask('acme', 'How do I rotate an API key?', signal);
 * if (outcome.ok) console.log(outcome.answer, outcome.sources);
 */
export function conversationAsk({ lifecycle, conversations, waitMs }: AskDeps) {
  const wait = waitMs ?? ASK_WAIT_MS;
  return async (orgId: string, question: string, signal: AbortSignal): Promise<AskOutcome> => {
    const sent = await lifecycle.send(orgId, question, undefined, undefined, { channel: 'mcp' });
    // A new conversation is never full nor still processing.
    if (!sent.ok) return { ok: false, reason: 'failed' };
    const conversationId = sent.conversationId;
    const settled = await lifecycle.waitUntilSettled(orgId, conversationId, wait, signal);
    if (signal.aborted) return { ok: false, conversationId, reason: 'cancelled' };
    if (!settled || settled.status === 'failed') return { ok: false, conversationId, reason: 'failed' };
    if (settled.status === 'processing') return { ok: false, conversationId, reason: 'late' };
    const reply = (await conversations.messages(conversationId)).findLast((m) => m.role === 'assistant');
    if (!reply) return { ok: false, conversationId, reason: 'failed' };
    return { ok: true, conversationId, answer: reply.content, sources: reply.sources, uncertain: reply.is_uncertain === true };
  };
}

export type Ask = ReturnType<typeof conversationAsk>;
