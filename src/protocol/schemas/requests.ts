/**
 * @module The request bodies of the v0 API, and of the proxy's routes: the one definition of each
 * field, which the server's routes, the proxy and the test stand-ins parse with and the OpenAPI
 * document describes. Optional fields may also be `null` (read as absent), as they always could.
 */
import { z } from 'zod';
import {
  CONVERSATION_ID_MAX_LENGTH,
  CONVERSATION_ID_PATTERN,
  EMAIL_MAX_LENGTH,
  EMAIL_PATTERN,
  FEEDBACK_COMMENT_MAX_LENGTH,
  HELPDESK_NAME_PATTERN,
  isHelpdeskName,
  LABEL_TYPE_ID_MAX_LENGTH,
  LABEL_TYPE_IDS_MAX_ITEMS,
  MESSAGE_MAX_LENGTH,
  NAME_MAX_LENGTH,
  NOTE_MAX_LENGTH,
  PAGE_TITLE_MAX_LENGTH,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_MAX_LENGTH,
  SELECTION_MAX_LENGTH,
  PRIORITY_MAX,
  SUMMARY_MAX_LENGTH,
  TITLE_MAX_LENGTH,
} from '../limits.js';
import { isPlausibleEmail } from '../input.js';
import { isVisitorId, VISITOR_ID_MAX_LENGTH } from '../visitor.js';
import { integer, oneOf, pageUrl, text } from './fields.js';

const CONVERSATION_ID = new RegExp(CONVERSATION_ID_PATTERN);

/** Issues marked with this status are answered with it (404) rather than 400. */
export const NOT_FOUND = { status: 404 } as const;

/**
 * A conversation id sent in a body: a string of at most 128 characters, else 400; one of another
 * shape cannot name any conversation, so it is answered as one that does not exist (404).
 */
const conversationIdField = text('conversation_id', { min: 1, max: CONVERSATION_ID_MAX_LENGTH, pattern: CONVERSATION_ID_PATTERN }).check((ctx) => {
  if (!CONVERSATION_ID.test(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'Resource not found', params: NOT_FOUND });
});

/**
 * Our extension of `POST /v0/chat` (and of a Conversation that has one): who the conversation
 * belongs to, as the site says. Plain v0 servers ignore it.
 */
export const ConversationVisitor = z
  .strictObject(
    {
      id: text('visitor.id', { max: VISITOR_ID_MAX_LENGTH, description: "The site's id of a signed-in visitor, or the proxy's random id of an anonymous one" })
        .check((ctx) => {
          if (!isVisitorId(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: `"visitor.id" must be a string of 1 to ${VISITOR_ID_MAX_LENGTH} printable characters` });
        })
        .meta({ minLength: 1 }),
      email: text('visitor.email', { min: 1, max: EMAIL_MAX_LENGTH, pattern: `^\\s*${EMAIL_PATTERN.slice(1, -1)}\\s*$` })
        .check((ctx) => {
          if (!isPlausibleEmail(ctx.value.trim())) ctx.issues.push({ code: 'custom', input: ctx.value, message: '"visitor.email" must be an email address' });
        })
        .nullish(),
      name: text('visitor.name', { min: 1, max: NAME_MAX_LENGTH }).nullish(),
      verified: z
        .boolean({ error: '"visitor.verified" must be a boolean' })
        .nullish()
        .meta({ description: 'The site vouched for this visitor (its session or a signed token); an escalation with this email says so in the ticket. Default false' }),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field "visitor.${issue.keys[0]}"` : '"visitor" must be an object') },
  )
  .meta({
    description:
      'Our addition: who a conversation belongs to. The proxy sends it with the first message; a follow-up naming another visitor answers 404. Plain v0 servers ignore it (the proxy then binds conversations to its cookie alone, with no history across devices).',
  });

/**
 * Our extension of `POST /v0/chat`: where the visitor asked from. Retrieval weighs that page and
 * its neighbours, the conversation keeps the page, and a selection is read with that one question.
 */
export const PageContext = z
  .strictObject(
    {
      page_url: pageUrl('context.page_url').nullish(),
      page_title: text('context.page_title', { max: PAGE_TITLE_MAX_LENGTH, description: "The page's title" }).nullish(),
      selection: text('context.selection', { max: SELECTION_MAX_LENGTH, description: 'Text the visitor selected on the page, read with this question only' }).nullish(),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field "context.${issue.keys[0]}"` : '"context" must be an object') },
  )
  .meta({ description: 'Our addition: the page the visitor asks from. Plain v0 servers ignore it.' });

/** `POST /v0/chat` (and, without `visitor`, the proxy's `POST {basePath}/chat`). */
export const SendMessageRequest = z
  .object({
    message: text('message', { min: 1, max: MESSAGE_MAX_LENGTH }),
    conversation_id: conversationIdField.nullish().meta({ description: 'Continue this conversation; a new one starts without it' }),
    visitor: ConversationVisitor.nullish(),
    context: PageContext.nullish(),
  })
  .meta({ description: 'A visitor message' });

/** The proxy's `POST {basePath}/chat`: the visitor is the proxy's to say, never the browser's. */
export const VisitorSendMessageRequest = SendMessageRequest.omit({ visitor: true });

/** The visitor's part of an escalation: what the widget sends the proxy, and part of every escalation. */
const contact = {
  name: text('name', { min: 1, max: NAME_MAX_LENGTH }),
  email: text('email', { min: 1, max: EMAIL_MAX_LENGTH, pattern: `^\\s*${EMAIL_PATTERN.slice(1, -1)}\\s*$` }).check((ctx) => {
    if (!isPlausibleEmail(ctx.value.trim())) ctx.issues.push({ code: 'custom', input: ctx.value, message: '"email" must be an email address' });
  }),
  note: text('note', { max: NOTE_MAX_LENGTH, description: "The visitor's own words for the helpdesk, added to the ticket" }).nullish(),
};

/** The proxy's `POST {basePath}/chat/:id/escalate`: only the visitor's contact; the site owner's options choose the rest. */
export const VisitorEscalationRequest = z.object(contact);

const LABELS_MESSAGE = `"additional_fields.label_type_ids" must be an array of up to ${LABEL_TYPE_IDS_MAX_ITEMS} non-empty strings`;

/** `POST /v0/chat/{id}/escalate`. Unknown fields are refused, so a misspelt one is not silently dropped. */
export const EscalationRequest = z.strictObject(
  {
    integration: text('integration', { min: 1, max: 64, pattern: HELPDESK_NAME_PATTERN, description: 'A helpdesk the server has: plain, pylon, linear, webhook, or one it registered' }).check((ctx) => {
      if (!isHelpdeskName(ctx.value)) ctx.issues.push({ code: 'custom', input: ctx.value, message: '"integration" must be the name of a helpdesk (lowercase letters, digits and dashes)' });
    }),
    ...contact,
    title: text('title', { min: 1, max: TITLE_MAX_LENGTH }).nullish(),
    summary: text('summary', { min: 1, max: SUMMARY_MAX_LENGTH }).nullish(),
    additional_fields: z
      .strictObject(
        {
          label_type_ids: z
            .array(
              z.string({ error: LABELS_MESSAGE }).check((ctx) => {
                const length = ctx.value.length > LABEL_TYPE_ID_MAX_LENGTH ? [...ctx.value].length : ctx.value.length;
                if (length === 0 || length > LABEL_TYPE_ID_MAX_LENGTH) ctx.issues.push({ code: 'custom', input: ctx.value, message: LABELS_MESSAGE });
              }).meta({ minLength: 1, maxLength: LABEL_TYPE_ID_MAX_LENGTH }),
              { error: LABELS_MESSAGE },
            )
            .max(LABEL_TYPE_IDS_MAX_ITEMS, { error: LABELS_MESSAGE })
            .optional(),
          priority: integer(`"additional_fields.priority" must be an integer from 0 (urgent) to ${PRIORITY_MAX} (low)`, 0, PRIORITY_MAX).optional(),
        },
        { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field "additional_fields.${issue.keys[0]}"` : '"additional_fields" must be an object') },
      )
      .nullish(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `Unknown field "${issue.keys[0]}"` : 'Request body must be a JSON object') },
);

/** `POST /v0/chat/{id}/feedback` (and the proxy's). */
export const FeedbackRequest = z.object({
  rating: oneOf('rating', ['up', 'down'], '"rating" must be "up" or "down"'),
  comment: text('comment', { max: FEEDBACK_COMMENT_MAX_LENGTH }).nullish(),
  message_index: integer('"message_index" must be a non-negative integer', 0)
    .nullish()
    .meta({ description: 'Index of an assistant message in the conversation; default the last one' }),
});

const SEARCH_LIMIT_MESSAGE = `"limit" must be an integer from 1 to ${SEARCH_LIMIT_MAX}`;

/**
 * The query parameters of `GET /v0/search` (and of the proxy's `GET {basePath}/search`), as
 * strings; `q` is read trimmed (see `readSearchQuery`).
 */
export const SearchQuery = z.object({
  q: text('q', { min: 1, max: SEARCH_QUERY_MAX_LENGTH }),
  limit: z
    .string({ error: SEARCH_LIMIT_MESSAGE })
    .check((ctx) => {
      if (!/^\d{1,2}$/.test(ctx.value) || Number(ctx.value) < 1 || Number(ctx.value) > SEARCH_LIMIT_MAX) ctx.issues.push({ code: 'custom', input: ctx.value, message: SEARCH_LIMIT_MESSAGE });
    })
    .transform(Number)
    .optional()
    .meta({ description: `Most results, 1 to ${SEARCH_LIMIT_MAX}; default ${SEARCH_LIMIT_DEFAULT}` }),
  page_url: pageUrl('page_url').optional(),
});

export type SendMessageBody = z.infer<typeof SendMessageRequest>;
export type PageContextBody = z.infer<typeof PageContext>;
export type SearchQueryParams = z.output<typeof SearchQuery>;
export type ConversationVisitorBody = z.infer<typeof ConversationVisitor>;
export type EscalationBody = z.infer<typeof EscalationRequest>;
export type VisitorEscalationBody = z.infer<typeof VisitorEscalationRequest>;
export type FeedbackBody = z.infer<typeof FeedbackRequest>;
