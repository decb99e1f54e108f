/**
 * @module GET /v0/openapi.json: the OpenAPI 3.1 description of this server, the reference its tests
 * validate against. Its operations are listed here; every body schema is generated from the
 * protocol's zod schemas (src/protocol/schemas), the same ones the routes parse with.
 */
import {
  CONVERSATION_ID_MAX_LENGTH,
  CONVERSATION_LIST_LIMIT_DEFAULT,
  CONVERSATION_LIST_LIMIT_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  CONVERSATION_ID_PATTERN,
  MAX_PREFER_WAIT_SECONDS,
  PAGE_URL_MAX_LENGTH,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_MAX_LENGTH,
  VISITOR_ID_MAX_LENGTH,
} from '../../../protocol/index.js';
import { componentSchemas } from '../../../protocol/schemas/index.js';
import { helpdesks } from '../../helpdesks/index.js';
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
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
/** A conversation id: the shape the server issues; any other is answered 404. */
const conversationIdParam = {
  name: 'conversation_id',
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: CONVERSATION_ID_MAX_LENGTH, pattern: CONVERSATION_ID_PATTERN },
};
const visitorIdParam = {
  name: 'visitor_id',
  in: 'query',
  required: true,
  description: 'The `visitor.id` given when the conversations were started',
  schema: { type: 'string', minLength: 1, maxLength: VISITOR_ID_MAX_LENGTH },
};
const idempotencyKey = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN } };

/**
 * The document as this process's helpdesk registry stands: a helpdesk registered at run time
 * (`helpdesks.register`) is a documented webhook source of servers made after it.
 */
export function buildOpenApiDocument() {
  const webhookSources = helpdesks.all().filter((h) => h.webhook).map((h) => h.name);
  const schemas = componentSchemas();
  // The helpdesks an escalation may name: the registry's, so one registered at run time is documented too.
  const integration = (schemas.EscalationRequest!.properties as Record<string, Record<string, unknown>>).integration!;
  integration.enum = helpdesks.all().map((h) => h.name);
  return {
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
          parameters: [
            visitorIdParam,
            { name: 'verified', in: 'query', required: false, description: "Only a verified (`true`) or an anonymous (`false`) visitor's; default both", schema: { type: 'string', enum: ['true', 'false'] } },
            { name: 'limit', in: 'query', required: false, description: `At most this many; default ${CONVERSATION_LIST_LIMIT_DEFAULT}`, schema: { type: 'integer', minimum: 1, maximum: CONVERSATION_LIST_LIMIT_MAX } },
          ],
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
            conversationIdParam,
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
          parameters: [conversationIdParam],
          responses: {
            '204': { description: 'Deleted', headers: rateHeaders },
            ...errors(401, 403, 404, 429, 500),
          },
        },
      },
      '/v0/chat/{conversation_id}/events': {
        get: {
          operationId: 'streamConversation',
          summary: 'The turn in progress as it is written, as `text/event-stream` (scope chat:read; our addition)',
          description: [
            'Events, each with an `id: <turn>-<n>` (the turn is the conversation\'s n-th user message; n increases by one per event):',
            '`event: status`, data `StreamStatus` (`retrieving`, `writing`); `event: delta`, data `StreamDelta` (`{"text": "…"}`: the deltas of a turn joined are exactly its final `content`);',
            'then one terminal event, `event: completed` or `event: failed`, data the `Conversation` as `GET /v0/chat/{conversation_id}` returns it, and the stream ends.',
            'Without `Last-Event-ID` the stream starts at the turn\'s first event; with it, right after that event (an ID of an earlier turn starts the current turn from its first event).',
            'A conversation that is not processing gets its terminal event at once. A `: keepalive` comment is sent after 15 s without an event.',
          ].join(' '),
          parameters: [
            conversationIdParam,
            { name: 'Last-Event-ID', in: 'header', required: false, description: 'The `id` of the last event received: the stream resumes after it', schema: { type: 'string', examples: ['1-14'] } },
            { name: 'last_event_id', in: 'query', required: false, description: 'As the `Last-Event-ID` header (for clients that cannot set headers); the header wins when both are given', schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'The event stream',
              headers: {
                ...rateHeaders,
                'Cache-Control': { schema: { type: 'string', const: 'no-cache, no-transform' } },
                'X-Accel-Buffering': { schema: { type: 'string', const: 'no' } },
              },
              content: {
                'text/event-stream': {
                  schema: { type: 'string' },
                  'x-events': { status: ref('StreamStatus'), delta: ref('StreamDelta'), completed: ref('Conversation'), failed: ref('Conversation') },
                },
              },
            },
            '204': { description: '`Last-Event-ID` names the settled turn\'s terminal event: nothing more to send (EventSource stops reconnecting)', headers: rateHeaders },
            ...errors(400, 401, 403, 404, 429, 500),
          },
        },
      },
      '/v0/chat/{conversation_id}/feedback': {
        post: {
          operationId: 'rateAnswer',
          summary: "A visitor's rating of an answer; a later rating of the same answer replaces the earlier one (scope chat:write; our addition)",
          parameters: [conversationIdParam],
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
          parameters: [conversationIdParam, idempotencyKey],
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
      '/v0/search': {
        get: {
          operationId: 'searchDocs',
          summary: "Search the organization's docs: ranked sections with plain-text excerpts, at most three of one page, never tickets (scope chat:read; our addition)",
          parameters: [
            { name: 'q', in: 'query', required: true, description: 'The query, trimmed', schema: { type: 'string', minLength: 1, maxLength: SEARCH_QUERY_MAX_LENGTH } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT } },
            {
              name: 'page_url',
              in: 'query',
              required: false,
              description: 'The page the reader is on: its sections and its neighbours (same path prefix) rank higher',
              schema: { type: 'string', format: 'uri', maxLength: PAGE_URL_MAX_LENGTH },
            },
          ],
          responses: {
            '200': { description: 'The results, best first', headers: rateHeaders, content: json(ref('SearchResults')) },
            ...errors(400, 401, 403, 429, 500),
          },
        },
      },
      '/v0/mcp': {
        post: {
          operationId: 'mcp',
          summary:
            "MCP Streamable HTTP (stateless, JSON responses): the read-only tools search_docs, read_page and ask over the organization's docs; a browser Origin must be loopback or one the operator allowed (scope chat:read; our addition, see docs/mcp.md)",
          requestBody: { required: true, content: json({ type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol' }) },
          responses: {
            '200': { description: 'The JSON-RPC response', headers: rateHeaders, content: json({ type: 'object' }) },
            '202': { description: 'A notification or response was accepted', headers: rateHeaders },
            '400': { description: 'Not JSON, or not a JSON-RPC message (a JSON-RPC error)', headers: rateHeaders, content: json({ type: 'object' }) },
            ...errors(401, 403, 413, 429, 500),
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
      '/v0/health': {
        get: {
          operationId: 'getHealth',
          summary: "Whether this process's sentence embeddings work: when they are down, search and answers rank by words alone (any valid token; our addition)",
          responses: {
            '200': { description: 'Health', headers: rateHeaders, content: json(ref('Health')) },
            ...errors(401, 429, 500),
          },
        },
      },
      '/v0/webhooks/{source}/{org_id}': {
        post: {
          operationId: 'receiveHelpdeskWebhook',
          summary: "A helpdesk's webhook delivery (Plain, Pylon, Linear), authenticated by its signature with the organization's webhook secret",
          security: [],
          parameters: [{ name: 'source', in: 'path', required: true, schema: { type: 'string', enum: webhookSources } }, idParam('org_id')],
          requestBody: { required: true, content: json({ type: 'object' }) },
          responses: {
            '200': { description: 'Received (and applied, or ignored as not about a ticket or older than what is stored)', headers: rateHeaders, content: json(ref('WebhookReceipt')) },
            ...errors(400, 404, 429, 500),
            '401': error('Invalid webhook signature'),
            '408': error('The body did not arrive in time (10 s by default)'),
            '413': error('Request body too large (over 64 KiB)'),
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
      schemas,
    },
  } as const;
}

/** The document as the registry stood when this module loaded (servers serve their own, see openApiRoutes). */
export const openApiDocument = buildOpenApiDocument();

/** The route serving the document, made (and serialized) once per server. */
export function openApiRoutes(): Route[] {
  const body = JSON.stringify(buildOpenApiDocument());
  return [
    {
      method: 'GET',
      pattern: '/v0/openapi.json',
      scope: 'public',
      handler: () => ({ status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }, body }),
    },
  ];
}
