/** @module POST /v0/mcp: the MCP Streamable HTTP endpoint over the organization's docs (scope `chat:read`, our addition; see src/server/mcp/). */
import { mcpHandler, type McpHttpOptions } from '../../mcp/http.js';
import type { Route } from '../router.js';

/** The route, bound to the tools' backend and the accepted browser origins. */
export function mcpRoutes(options: McpHttpOptions): Route[] {
  return [{ method: 'POST', pattern: '/v0/mcp', scope: 'chat:read', handler: mcpHandler(options) }];
}
