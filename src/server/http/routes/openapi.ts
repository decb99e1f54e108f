/** @module GET /v0/openapi.json: the OpenAPI 3.1 description of this server, the reference its tests validate against. */
import { ERROR_CODES, INTEGRATIONS, MAX_PREFER_WAIT_SECONDS, MESSAGE_MAX_LENGTH, NOTE_MAX_LENGTH, SCOPES, VISITOR_ID_MAX_LENGTH } from '../../../protocol/index.js';
import { FEEDBACK_COMMENT_MAX_LENGTH } from '../../insights/feedback.js';
import type { Route } from '../router.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const rateHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const error = (description: string) => ({ description, headers: rateHeaders, content: json(ref('Error')) });
/** A 409 whose outcome is still being decided (an escalation or `Idempotency-Key` in progress) is `retryable` with `Retry-After`. */
const conflictResponse = {
  ...error('Conflict'),
  headers: { ...rateHeaders, 'Retry-After': { required: false, schema: { type: 'integer', minimum: 0 }, description: 'Seconds to wait before retrying a request still in progress' } },
};
/** A 401 carries the Bearer challenge (RFC 9110 §11.6.1). */
const unauthorized = {
  description: 'Invalid or expired API token',
  headers: { ...rateHeaders, 'WWW-Authenticate': { required: true, schema: { type: 'string', const: 'Bearer realm="support-chat"' } } },
  content: json(ref('Error')),
};
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      s === 429 ? { $ref: '#/components/responses/RateLimited' } : s === 401 ? unauthorized : s === 409 ? conflictResponse : error(ERROR_DESCRIPTIONS[s] ?? 'Error'),
    ]),
  );
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Invalid or expired API token',
  403: 'Insufficient permissions',
  404: 'Resource not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request body too large (over 256 KiB)',
  500: 'Internal error',
};
const COUNT = { type: 'integer', minimum: 0 } as const;
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const visitorIdParam = {
  name: 'visitor_id',
  in: 'query',
  required: true,
  description: 'The `visitor.id` given when the conversations were started',
  schema: { type: 'string', minLength: 1, maxLength: VISITOR_ID_MAX_LENGTH },
};
const idempotencyKey = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } };

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Conversational Support API',
    version: 'v0',
    description:
      'Chat answered asynchronously from a knowledge base, escalation to helpdesks, synced tickets and token introspection; answer feedback, insights and deletion of conversations for site owners.',
  },
  servers: [{ url: '/' }],
  security: [{ bearer: [] }],
  paths: {
    '/v0/chat': {
      post: {
        operationId: 'sendMessage',
        summary: 'Send a message (scope chat:write)',
        parameters: [idempotencyKey],
        requestBody: { required: true, content: json(ref('SendMessageRequest')) },
        responses: {
          '202': { description: 'Accepted; poll the conversation', headers: rateHeaders, content: json(ref('SendMessageResult')) },
          ...errors(400, 401, 403, 404, 409, 413, 429, 500),
        },
      },
      get: {
        operationId: 'listVisitorConversations',
        summary: "One visitor's conversations, most recently active first (scope chat:read; our addition)",
        parameters: [visitorIdParam, { name: 'limit', in: 'query', required: false, description: 'At most this many; default 20', schema: { type: 'integer', minimum: 1, maximum: 100 } }],
        responses: {
          '200': { description: "The visitor's conversations", headers: rateHeaders, content: json(ref('ConversationList')) },
          ...errors(400, 401, 403, 429, 500),
        },
      },
      delete: {
        operationId: 'deleteVisitorConversations',
        summary: 'Delete every conversation of one visitor and everything derived from them, now, for data-subject requests (scope chat:write; our addition)',
        parameters: [visitorIdParam],
        responses: {
          '200': { description: 'Deleted; how many', headers: rateHeaders, content: json(ref('VisitorDeletion')) },
          ...errors(400, 401, 403, 429, 500),
        },
      },
    },
    '/v0/chat/{conversation_id}': {
      get: {
        operationId: 'getConversation',
        summary: 'Get a conversation (scope chat:read); `Prefer: wait=N` long-polls up to N seconds',
        parameters: [
          idParam('conversation_id'),
          { name: 'Prefer', in: 'header', required: false, schema: { type: 'string', examples: [`wait=${MAX_PREFER_WAIT_SECONDS}`] } },
        ],
        responses: {
          '200': {
            description: 'The conversation',
            headers: { ...rateHeaders, 'Preference-Applied': { schema: { type: 'string' } } },
            content: json(ref('Conversation')),
          },
          ...errors(401, 403, 404, 429, 500),
        },
      },
      delete: {
        operationId: 'deleteConversation',
        summary: 'Delete a conversation and everything derived from it (messages, answer jobs, feedback) now, for data-subject requests (scope chat:write; our addition)',
        parameters: [idParam('conversation_id')],
        responses: {
          '204': { description: 'Deleted', headers: rateHeaders },
          ...errors(401, 403, 404, 429, 500),
        },
      },
    },
    '/v0/chat/{conversation_id}/feedback': {
      post: {
        operationId: 'rateAnswer',
        summary: "A visitor's rating of an answer; a later rating of the same answer replaces the earlier one (scope chat:write; our addition)",
        parameters: [idParam('conversation_id')],
        requestBody: { required: true, content: json(ref('FeedbackRequest')) },
        responses: {
          '200': { description: 'Recorded', headers: rateHeaders, content: json(ref('FeedbackResult')) },
          ...errors(400, 401, 403, 404, 409, 413, 429, 500),
        },
      },
    },
    '/v0/insights': {
      get: {
        operationId: 'getInsights',
        summary: "The organization's insights over a period: activity per day, unanswered questions grouped by similarity, thumbs-down answers, sources cited most, pages never cited (scope insights:read; our addition)",
        parameters: [
          { name: 'since', in: 'query', required: false, description: 'ISO 8601 date or date-time, inclusive; default 7 days before `until`', schema: { type: 'string' } },
          { name: 'until', in: 'query', required: false, description: 'ISO 8601 date or date-time, exclusive; default now', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The report', headers: rateHeaders, content: json(ref('Insights')) },
          ...errors(400, 401, 403, 429, 500),
        },
      },
    },
    '/v0/chat/{conversation_id}/escalate': {
      post: {
        operationId: 'escalateConversation',
        summary: 'Escalate to a ticketing integration (scope chat:escalate)',
        parameters: [idParam('conversation_id'), idempotencyKey],
        requestBody: { required: true, content: json(ref('EscalationRequest')) },
        responses: {
          '200': { description: 'Ticket created', headers: rateHeaders, content: json(ref('EscalationResult')) },
          ...errors(400, 401, 403, 404, 409, 413, 429, 500),
        },
      },
    },
    '/v0/tickets': {
      get: {
        operationId: 'listTickets',
        summary: 'List synced tickets (scope tickets:read)',
        parameters: [
          { name: 'source', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200 } },
          { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'A page of tickets', headers: rateHeaders, content: json(ref('TicketPage')) },
          ...errors(400, 401, 403, 429, 500),
        },
      },
    },
    '/v0/tickets/{source}/{external_id}': {
      get: {
        operationId: 'getTicket',
        summary: 'Get a synced ticket (scope tickets:read)',
        parameters: [idParam('source'), idParam('external_id')],
        responses: {
          '200': { description: 'The ticket', headers: rateHeaders, content: json(ref('Ticket')) },
          ...errors(401, 403, 404, 429, 500),
        },
      },
      delete: {
        operationId: 'deleteTicket',
        summary: 'Permanently delete a synced ticket (scope tickets:delete)',
        parameters: [idParam('source'), idParam('external_id')],
        responses: {
          '204': { description: 'Deleted', headers: rateHeaders },
          ...errors(401, 403, 404, 429, 500),
        },
      },
    },
    '/v0/me': {
      get: {
        operationId: 'getTokenInfo',
        summary: 'The calling token and its organization (any valid token)',
        responses: {
          '200': { description: 'Token info', headers: rateHeaders, content: json(ref('TokenInfo')) },
          ...errors(401, 429, 500),
        },
      },
    },
    '/v0/webhooks/{source}/{org_id}': {
      post: {
        operationId: 'receiveHelpdeskWebhook',
        summary: "A helpdesk's webhook delivery (Plain, Pylon, Linear), authenticated by its signature with the organization's webhook secret",
        security: [],
        parameters: [{ name: 'source', in: 'path', required: true, schema: { type: 'string', enum: ['plain', 'pylon', 'linear'] } }, idParam('org_id')],
        requestBody: { required: true, content: json({ type: 'object' }) },
        responses: {
          '200': { description: 'Received (and applied, or ignored as not about a ticket or older than what is stored)', headers: rateHeaders, content: json(ref('WebhookReceipt')) },
          ...errors(400, 404, 413, 429, 500),
          '401': error('Invalid webhook signature'),
        },
      },
    },
    '/v0/openapi.json': {
      get: {
        operationId: 'getOpenApi',
        summary: 'This document',
        security: [],
        responses: { '200': { description: 'OpenAPI 3.1 document', headers: rateHeaders, content: json({ type: 'object' }) }, ...errors(429) },
      },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    headers: {
      'X-RateLimit-Limit': { required: true, schema: { type: 'integer' }, description: 'Requests allowed per minute' },
      'X-RateLimit-Remaining': { required: true, schema: { type: 'integer', minimum: 0 }, description: 'Requests remaining in the window' },
      'X-RateLimit-Reset': { required: true, schema: { type: 'integer' }, description: 'Unix time the window resets' },
    },
    responses: {
      RateLimited: {
        description: 'Too many requests',
        headers: { ...rateHeaders, 'Retry-After': { required: true, schema: { type: 'integer', minimum: 0 } } },
        content: json(ref('Error')),
      },
    },
    schemas: {
      WebhookReceipt: {
        type: 'object',
        required: ['received'],
        additionalProperties: false,
        properties: { received: { type: 'boolean', const: true }, ignored: { type: 'string', enum: ['event', 'stale'] } },
      },
      Source: {
        type: 'object',
        required: ['title', 'url'],
        additionalProperties: false,
        properties: { title: { type: 'string' }, url: { type: 'string' } },
      },
      Message: {
        type: 'object',
        required: ['role', 'content', 'sources'],
        additionalProperties: false,
        properties: {
          role: { type: 'string', enum: ['user', 'assistant'] },
          content: { type: 'string' },
          sources: { type: 'array', items: ref('Source') },
        },
      },
      Conversation: {
        type: 'object',
        required: ['id', 'status', 'messages', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          status: { type: 'string', enum: ['completed', 'processing', 'failed'] },
          messages: { type: 'array', items: ref('Message') },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
          visitor: ref('Visitor'),
        },
      },
      Visitor: {
        type: 'object',
        description:
          'Our addition: who a conversation belongs to. The proxy sends it with the first message; a follow-up naming another visitor answers 404. Plain v0 servers ignore it (the proxy then binds conversations to its cookie alone, with no history across devices).',
        required: ['id'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', minLength: 1, maxLength: VISITOR_ID_MAX_LENGTH, description: "The site's id of a signed-in visitor, or the proxy's random id of an anonymous one" },
          email: { type: 'string', format: 'email' },
          name: { type: 'string', minLength: 1 },
          verified: { type: 'boolean', description: 'The site vouched for this visitor (its session or a signed token); an escalation with this email says so in the ticket. Default false' },
        },
      },
      ConversationSummary: {
        type: 'object',
        required: ['id', 'status', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          status: { type: 'string', enum: ['completed', 'processing', 'failed'] },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
          title: { type: 'string', description: 'The first question, shortened to 80 characters' },
        },
      },
      ConversationList: {
        type: 'object',
        required: ['conversations'],
        additionalProperties: false,
        properties: { conversations: { type: 'array', items: ref('ConversationSummary') } },
      },
      VisitorDeletion: {
        type: 'object',
        required: ['deleted'],
        additionalProperties: false,
        properties: { deleted: { ...COUNT, description: 'Conversations deleted' } },
      },
      SendMessageRequest: {
        type: 'object',
        required: ['message'],
        properties: {
          message: { type: 'string', minLength: 1, maxLength: MESSAGE_MAX_LENGTH },
          conversation_id: { type: 'string' },
          visitor: ref('Visitor'),
        },
      },
      SendMessageResult: {
        type: 'object',
        required: ['conversation_id', 'status'],
        additionalProperties: false,
        properties: { conversation_id: { type: 'string' }, status: { type: 'string', const: 'processing' } },
      },
      EscalationRequest: {
        type: 'object',
        required: ['integration', 'email', 'name'],
        additionalProperties: false,
        properties: {
          integration: { type: 'string', enum: [...INTEGRATIONS] },
          email: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          title: { type: 'string' },
          summary: { type: 'string' },
          note: { type: 'string', maxLength: NOTE_MAX_LENGTH, description: "The visitor's own words for the helpdesk, added to the ticket" },
          additional_fields: {
            type: 'object',
            additionalProperties: false,
            properties: {
              label_type_ids: { type: 'array', items: { type: 'string' } },
              priority: { type: 'integer', minimum: 0, maximum: 3 },
            },
          },
        },
      },
      EscalationResult: {
        type: 'object',
        required: ['success', 'integration', 'ticket_id', 'ticket_url'],
        additionalProperties: false,
        properties: {
          success: { type: 'boolean' },
          integration: { type: 'string', enum: [...INTEGRATIONS] },
          ticket_id: { type: 'string' },
          ticket_url: { type: 'string' },
        },
      },
      TokenInfo: {
        type: 'object',
        required: ['token', 'organization'],
        additionalProperties: false,
        properties: {
          token: {
            type: 'object',
            required: ['name', 'prefix', 'scopes'],
            additionalProperties: false,
            properties: {
              name: { type: 'string' },
              prefix: { type: 'string' },
              scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
            },
          },
          organization: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' } } },
        },
      },
      Ticket: {
        type: 'object',
        required: ['source', 'external_id', 'title', 'status', 'url', 'customer_email', 'customer_name', 'created_at', 'updated_at'],
        additionalProperties: false,
        properties: {
          source: { type: 'string' },
          external_id: { type: 'string' },
          title: { type: 'string' },
          status: { type: 'string' },
          url: { type: ['string', 'null'] },
          customer_email: { type: ['string', 'null'] },
          customer_name: { type: ['string', 'null'] },
          created_at: { type: 'string' },
          updated_at: { type: 'string' },
        },
      },
      TicketPage: {
        type: 'object',
        required: ['tickets', 'next_cursor'],
        additionalProperties: false,
        properties: { tickets: { type: 'array', items: ref('Ticket') }, next_cursor: { type: ['string', 'null'] } },
      },
      FeedbackRequest: {
        type: 'object',
        required: ['rating'],
        properties: {
          rating: { type: 'string', enum: ['up', 'down'] },
          comment: { type: 'string', maxLength: FEEDBACK_COMMENT_MAX_LENGTH },
          message_index: { type: 'integer', minimum: 0, description: 'Index of an assistant message in the conversation; default the last one' },
        },
      },
      FeedbackResult: {
        type: 'object',
        required: ['success'],
        additionalProperties: false,
        properties: { success: { type: 'boolean', const: true } },
      },
      InsightCounts: {
        type: 'object',
        required: ['conversations', 'questions', 'answered', 'unanswered', 'escalated', 'thumbs_up', 'thumbs_down'],
        properties: {
          date: { type: 'string', description: 'UTC date, YYYY-MM-DD (days only)' },
          conversations: COUNT,
          questions: COUNT,
          answered: { ...COUNT, description: 'Questions whose answer cited sources' },
          unanswered: { ...COUNT, description: 'Questions the knowledge base had no answer for' },
          escalated: { ...COUNT, description: 'Conversations escalated, counted on their last question' },
          failed: { ...COUNT, description: 'Questions whose answer failed (totals only)' },
          pending: { ...COUNT, description: 'Questions still being answered (totals only)' },
          visitors: { ...COUNT, description: 'Distinct visitors who started a conversation in the period (totals only; conversations that name no visitor are not counted)' },
          thumbs_up: COUNT,
          thumbs_down: COUNT,
        },
      },
      Insights: {
        type: 'object',
        required: ['organization', 'since', 'until', 'totals', 'days', 'unanswered_groups', 'unanswered_group_count', 'unanswered_grouped', 'thumbs_down', 'top_sources', 'uncited_pages', 'uncited_page_count'],
        additionalProperties: false,
        properties: {
          organization: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
          until: { type: 'string', format: 'date-time' },
          totals: ref('InsightCounts'),
          days: { type: 'array', items: ref('InsightCounts') },
          unanswered_groups: {
            type: 'array',
            items: {
              type: 'object',
              required: ['count', 'terms', 'latest_at', 'examples'],
              additionalProperties: false,
              properties: {
                count: COUNT,
                terms: { type: 'array', items: { type: 'string' } },
                latest_at: { type: 'string', format: 'date-time' },
                examples: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['question', 'asked_at'],
                    additionalProperties: false,
                    properties: { question: { type: 'string' }, asked_at: { type: 'string', format: 'date-time' } },
                  },
                },
              },
            },
          },
          unanswered_group_count: COUNT,
          unanswered_grouped: { ...COUNT, description: "Unanswered questions the groups were made from: all of the period's, or its newest 1,000" },
          thumbs_down: {
            type: 'array',
            items: {
              type: 'object',
              required: ['conversation_id', 'message_index', 'question', 'answer', 'comment', 'sources', 'rated_at'],
              additionalProperties: false,
              properties: {
                conversation_id: { type: 'string' },
                message_index: COUNT,
                question: { type: 'string' },
                answer: { type: 'string' },
                comment: { type: ['string', 'null'] },
                sources: { type: 'array', items: ref('Source') },
                rated_at: { type: 'string', format: 'date-time' },
              },
            },
          },
          top_sources: {
            type: 'array',
            items: {
              type: 'object',
              required: ['title', 'url', 'citations'],
              additionalProperties: false,
              properties: { title: { type: 'string' }, url: { type: 'string' }, citations: COUNT },
            },
          },
          uncited_pages: { type: 'array', items: ref('Source') },
          uncited_page_count: COUNT,
        },
      },
      Error: {
        type: 'object',
        required: ['error'],
        additionalProperties: false,
        properties: {
          error: {
            type: 'object',
            required: ['code', 'message'],
            additionalProperties: false,
            properties: {
              code: { type: 'string', enum: [...ERROR_CODES] },
              message: { type: 'string', minLength: 1 },
              retryable: { type: 'boolean' },
            },
          },
        },
      },
    },
  },
} as const;

const body = JSON.stringify(openApiDocument);

export const openApiRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/v0/openapi.json',
    scope: 'public',
    handler: () => ({ status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, body }),
  },
];
