/**
 * @module The MCP server over an organization's knowledge base: the tools (tools.ts), over
 * Streamable HTTP at `/v0/mcp` (http.ts) and over stdio (`support-chat-kit mcp`), read from the
 * same backend.
 */
import type { ConversationLifecycle } from '../conversations/lifecycle.js';
import type { Logger } from '../log.js';
import { indexedPage, searchDocs, type Ranking } from '../knowledge/index.js';
import type { ConversationStore } from '../store/conversations.js';
import type { Sql } from '../store/sql.js';
import { conversationAsk } from './ask.js';
import type { McpBackend } from './tools.js';

export { createMcpServer, MCP_SERVER_INFO, type McpBackend } from './tools.js';
export { parseOrigins } from './origin.js';
export { mcpRoutes } from './http.js';

export interface McpBackendOptions {
  sql: Sql;
  /** The ranking `GET /v0/search` uses; null (an engine without a knowledge base) finds nothing. */
  knowledge: Ranking | null;
  lifecycle: ConversationLifecycle;
  conversations: ConversationStore;
  logger: Logger;
  /** How long `ask` waits for its answer. @default ASK_WAIT_MS */
  askWaitMs?: number;
}

/** What the tools read: search as `GET /v0/search`, pages from the knowledge base, answers through conversations. */
export function mcpBackend({ sql, knowledge, lifecycle, conversations, logger, askWaitMs }: McpBackendOptions): McpBackend {
  return {
    search: async (orgId, query, limit) => (knowledge ? searchDocs(knowledge, orgId, query, { limit }) : []),
    page: (orgId, url) => indexedPage(sql, orgId, url),
    ask: conversationAsk({ lifecycle, conversations, waitMs: askWaitMs }),
    logger,
  };
}
