/**
 * @module The LLM's part of an answer, when one is configured: a follow-up condensed to a
 * standalone question, and the reply written under a grounded prompt from the numbered sources,
 * streamed as it is written.
 */
import { NOT_ANSWERED, StreamedReply } from './streamed-reply.js';
import { RELATED_INTRO } from './compose.js';
import { complete, LlmError, streamCompletion, type ChatMessage, type LlmConfig } from './llm.js';
import { toSource } from './sources.js';
import { fence, type Passage, type PassageBlock, type SearchHit } from '../knowledge/index.js';
import type { Answer, AnswerRequest } from './types.js';

const SYSTEM_PROMPT = `You are the support assistant of a software product. Answer the customer's question using only the numbered sources below.
Cite every fact with the number of its source in square brackets, like [1] or [2][3].
Reply in the language of the customer's last message.
If the sources do not answer the question, start your reply with ${NOT_ANSWERED}, then say in one sentence that you could not find a direct answer in the documentation and that the pages listed may help or a human can. Do not invent anything.
Keep the answer short: a few sentences, a list or a code block when it helps. Use Markdown.`;

const CONDENSE_PROMPT = `Rewrite the customer's last message as one standalone question that can be understood without the conversation, in the customer's language. Reply with the question alone.`;

/** How much of a source the LLM reads: its blocks up to this many characters, and at least its first. */
const SOURCE_CHARACTERS = 1_500;
/** How many lines of a code block the LLM reads. */
const SOURCE_CODE_LINES = 40;

/**
 * A source as the LLM reads it: its passage's blocks as written, in page order, code fenced with
 * its language, cut at a block boundary after `SOURCE_CHARACTERS` (a longer first block at a
 * sentence or a line), with "…" where something was left out.
 */
function sourceText(passage: Passage): string {
  const parts: string[] = [];
  let length = 0;
  for (const block of passage.blocks) {
    let text = block.text;
    if (block.kind === 'code') {
      const lines = text.split('\n');
      text = fence(lines.slice(0, SOURCE_CODE_LINES).join('\n') + (lines.length > SOURCE_CODE_LINES ? '\n…' : ''), block.lang ?? '');
    }
    if (parts.length > 0 && length + text.length > SOURCE_CHARACTERS) return `${parts.join('\n\n')}\n\n…`;
    if (parts.length === 0 && block.kind !== 'code' && text.length > SOURCE_CHARACTERS) return `${firstPieces(block)}\n…`;
    parts.push(text);
    length += text.length + 2;
  }
  return parts.join('\n\n');
}

/**
 * A first block too long for a source, cut where it may be: prose after its last whole sentence
 * within `SOURCE_CHARACTERS`, a list, table or quote after its last whole line (at least one).
 */
function firstPieces(block: PassageBlock): string {
  const prose = block.kind === 'paragraph' || block.kind === 'heading';
  const pieces = prose ? block.sentences : block.text.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const piece of pieces) {
    if (kept.length > 0 && used + piece.length > SOURCE_CHARACTERS) break;
    kept.push(piece);
    used += piece.length + 1;
  }
  return kept.join(prose ? ' ' : '\n');
}

function sourceBlock(hits: SearchHit[]): string {
  return hits.map((hit, i) => `[${i + 1}] ${toSource(hit).title} (${hit.section.url})\n${sourceText((hit.under ?? hit.section).passage)}`).join('\n\n');
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
 * The LLM's answer, streamed as it is written (`request.stream`): each piece is final when
 * passed on (see streamed-reply.ts). Throws when the provider fails; `streamed` then says
 * whether any text was passed on (the local answer can no longer replace it).
 */
export async function llmAnswer(config: LlmConfig, request: AnswerRequest, hits: SearchHit[], related: SearchHit[], progress: { streamed: boolean }): Promise<Answer> {
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
export async function condensed(config: LlmConfig, request: AnswerRequest): Promise<string | null> {
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

/** The extractive summary's LLM counterpart: a few sentences for the human agent who takes the conversation over. */
export async function llmSummary(config: LlmConfig, request: { messages: AnswerRequest['messages']; signal?: AbortSignal }): Promise<string> {
  const transcript = request.messages.map((m) => `${m.role === 'user' ? 'Customer' : 'Assistant'}: ${m.content}`).join('\n\n');
  return complete(
    config,
    [
      { role: 'system', content: 'Summarise this support conversation for the human agent who takes it over: what the customer wants, what was already answered, what is still open. Three to five sentences, no invention.' },
      { role: 'user', content: transcript.slice(0, 12_000) },
    ],
    { signal: request.signal, maxTokens: 300 },
  );
}
