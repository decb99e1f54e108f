/**
 * @module The response bodies of the v0 API, described once: the OpenAPI document is generated from
 * these, and the tests check every response against that document.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';
import { SCOPES } from '../scopes.js';
import { CONVERSATION_ID_MAX_LENGTH, CONVERSATION_ID_PATTERN, SEARCH_EXCERPT_MAX_LENGTH } from '../limits.js';
import { ConversationVisitor } from './requests.js';

const count = () => z.int().min(0);
const dateTime = () => z.iso.datetime({ offset: true });
const conversationId = () => z.string().max(CONVERSATION_ID_MAX_LENGTH).regex(new RegExp(CONVERSATION_ID_PATTERN));

export const Source = z.strictObject({ title: z.string(), url: z.string() });

const UserMessage = z.strictObject({
  role: z.literal('user'),
  content: z.string(),
  sources: z.array(Source).meta({ description: 'Always empty on user messages' }),
});

const AssistantMessage = z.strictObject({
  role: z.literal('assistant'),
  content: z.string(),
  sources: z.array(Source),
  // Optional: our addition to v0, which servers that do not send it leave out (docs/server.md, "Decisions where the spec is silent").
  is_uncertain: z.boolean().optional().meta({
    description: 'Extension: false when the content answers from its sources; true with sources offers related pages without claiming an answer; true without sources found nothing related',
  }),
});

export const Message = z.discriminatedUnion('role', [UserMessage, AssistantMessage]);

export const Conversation = z.strictObject({
  id: conversationId(),
  status: z.enum(['completed', 'processing', 'failed']),
  messages: z.array(Message),
  created_at: dateTime(),
  updated_at: dateTime(),
  visitor: ConversationVisitor.optional(),
});

/** One entry of `GET /v0/chat?visitor_id=` (and of the proxy's `GET {basePath}/chat`). */
export const ConversationSummary = z.strictObject({
  id: conversationId(),
  status: z.enum(['completed', 'processing', 'failed']),
  created_at: dateTime(),
  updated_at: dateTime(),
  title: z.string().optional().meta({ description: 'The first question, shortened to 80 characters' }),
});

export const ConversationList = z.strictObject({ conversations: z.array(ConversationSummary) });

export const VisitorDeletion = z.strictObject({ deleted: count().meta({ description: 'Conversations deleted' }) });

export const SendMessageResult = z.strictObject({ conversation_id: conversationId(), status: z.literal('processing') });

export const EscalationResult = z.strictObject({
  success: z.literal(true),
  integration: z.string().meta({ description: 'The helpdesk the ticket was made in (the request\'s `integration`)' }),
  ticket_id: z.string(),
  ticket_url: z.string(),
});

export const TokenInfo = z.strictObject({
  token: z.strictObject({ name: z.string(), prefix: z.string(), scopes: z.array(z.enum(SCOPES)) }),
  organization: z.strictObject({ id: z.string() }),
});

export const Ticket = z.strictObject({
  source: z.string(),
  external_id: z.string(),
  title: z.string(),
  status: z.string(),
  url: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_name: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const TicketPage = z.strictObject({ tickets: z.array(Ticket), next_cursor: z.string().nullable() });

export const FeedbackResult = z.strictObject({ success: z.literal(true) });

export const WebhookReceipt = z.strictObject({ received: z.literal(true), ignored: z.enum(['event', 'stale']).optional() });

export const InsightCounts = z.object({
  date: z.string().optional().meta({ description: 'UTC date, YYYY-MM-DD (days only)' }),
  conversations: count(),
  questions: count(),
  answered: count().meta({ description: 'Questions whose answer cited sources (is_uncertain false)' }),
  unanswered: count().meta({ description: 'Questions the knowledge base had no answer for: the reply cited nothing, or was uncertain (related pages)' }),
  escalated: count().meta({ description: 'Conversations escalated, counted on their last question' }),
  failed: count().optional().meta({ description: 'Questions whose answer failed (totals only)' }),
  pending: count().optional().meta({ description: 'Questions still being answered (totals only)' }),
  visitors: count()
    .optional()
    .meta({ description: 'Distinct visitors who started a conversation in the period (totals only; conversations that name no visitor are not counted)' }),
  thumbs_up: count(),
  thumbs_down: count(),
  mcp: count().optional().meta({ description: 'Questions asked through the MCP tool `ask`, also counted in `questions` (totals only)' }),
});

export const Insights = z.strictObject({
  organization: z.string(),
  since: dateTime(),
  until: dateTime(),
  totals: InsightCounts,
  days: z.array(InsightCounts),
  unanswered_groups: z.array(
    z.strictObject({
      count: count(),
      terms: z.array(z.string()),
      latest_at: dateTime(),
      examples: z.array(
        z.strictObject({
          question: z.string(),
          asked_at: dateTime(),
          related: z.array(Source).meta({ description: 'The related pages an uncertain reply showed (empty when it cited nothing)' }),
        }),
      ),
    }),
  ),
  unanswered_group_count: count(),
  unanswered_grouped: count().meta({ description: "Unanswered questions the groups were made from: all of the period's, or its newest 1,000" }),
  thumbs_down: z.array(
    z.strictObject({
      conversation_id: z.string(),
      message_index: count(),
      question: z.string(),
      answer: z.string(),
      comment: z.string().nullable(),
      sources: z.array(Source),
      rated_at: dateTime(),
    }),
  ),
  top_sources: z.array(z.strictObject({ title: z.string(), url: z.string(), citations: count() })),
  uncited_pages: z.array(Source),
  uncited_page_count: count(),
  question_pages: z
    .array(z.strictObject({ url: z.string(), title: z.string().nullable(), questions: count(), unanswered: count() }))
    .meta({ description: 'The pages questions were asked from (the widget sends where the visitor is), most questions first' }),
  question_page_count: count(),
  searches: z
    .strictObject({
      totals: z.strictObject({ searches: count(), zero_result_searches: count() }),
      top_searches: z.array(z.strictObject({ query: z.string(), searches: count(), zero_results: count(), last_results: count() })),
      zero_result_searches: z.array(z.strictObject({ query: z.string(), searches: count(), last_at: dateTime(), last_page_url: z.string().nullable() })),
      search_query_count: count(),
    })
    .meta({ description: 'Searches (GET /v0/search) of the period by the UTC days it covers: the queries searched most, and those that found nothing (normalized: lowercase, blanks collapsed; email addresses masked)' }),
});

export const ErrorResponse = z.strictObject({
  error: z.strictObject({
    code: z.enum(ERROR_CODES),
    message: z.string().min(1),
    retryable: z.boolean().optional(),
  }),
});

/** `event: delta` of `GET /v0/chat/{id}/events`: the next piece of the assistant's reply. */
export const StreamDelta = z.strictObject({
  text: z.string().meta({ description: "The next piece of the reply; a turn's deltas joined are exactly its final `content`" }),
});

/** `event: status` of `GET /v0/chat/{id}/events`: what the server is doing on the turn. */
export const StreamStatus = z.strictObject({
  status: z.enum(['retrieving', 'writing']).meta({ description: '`retrieving`: searching the knowledge base; `writing`: the model is writing the reply' }),
});

/** One result of `GET /v0/search`: a section of a page, with a plain-text excerpt and where the query's words are in it. */
export const SearchResult = z.strictObject({
  url: z.string().meta({ description: "The section's address (the page's, with the heading's anchor)" }),
  title: z.string().meta({ description: "The page's title" }),
  section: z.string().nullable().meta({ description: "The section's heading; null for the page's opening" }),
  excerpt: z.string().meta({ maxLength: SEARCH_EXCERPT_MAX_LENGTH, description: `Plain text (no Markdown, no HTML) of at most ${SEARCH_EXCERPT_MAX_LENGTH} characters around the best match; "…" where it was cut` }),
  highlights: z
    .array(z.tuple([count(), count()]))
    .meta({ description: 'The [start, end) offsets (UTF-16 code units) in `excerpt` of the words that match the query' }),
});

/** `GET /v0/search`: ranked sections, at most three of one page. */
export const SearchResults = z.strictObject({ results: z.array(SearchResult) });

/** `GET /v0/health`: whether the parts search and answers lean on work now (our addition). */
export const Health = z.strictObject({
  embeddings: z
    .strictObject({
      state: z.enum(['idle', 'starting', 'ready', 'down', 'off']).meta({
        description: '`ready`: questions are ranked by meaning and words; `down`: the model could not start, so by words alone (retried on a later question); `idle`: not started yet; `off`: configured without embeddings',
      }),
      threads: count().meta({ description: 'Embedding threads ready now' }),
      size: count().meta({ description: 'Embedding threads the process is sized for' }),
      error: z.string().optional().meta({ description: 'Why the model could not start, while it cannot' }),
    })
    .meta({ description: "The sentence embeddings' state in the process that answered" }),
});

export type SearchResult = z.infer<typeof SearchResult>;
export type SearchResults = z.infer<typeof SearchResults>;
export type Health = z.infer<typeof Health>;
