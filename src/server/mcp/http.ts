/**
 * @module `/v0/mcp` over the server's own pipeline: the request reaches here authenticated (scope
 * `chat:read`), counted against its token as reads are, and with its body read within the usual
 * cap; the SDK's Streamable HTTP transport, stateless and answering in JSON, runs the MCP
 * exchange on a server made for the token's organization.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { HttpError } from '../http/errors.js';
import type { ApiResponse } from '../http/exchange.js';
import type { Route, RouteContext } from '../http/router.js';
import { originAllowed } from './origin.js';
import { createMcpServer, type McpBackend } from './tools.js';

/** The request headers the transport reads; no other header reaches it. */
const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'] as const;

export interface McpHttpOptions {
  backend: McpBackend;
  /** Browser origins accepted besides loopback ones (see origin.ts). */
  allowedOrigins: ReadonlySet<string>;
}

/**
 * The handler of `POST /v0/mcp`. A browser origin that is not accepted gets 403; a client that goes
 * away mid-call closes the MCP server, which aborts its tools (an `ask` stops waiting).
 */
export function mcpHandler({ backend, allowedOrigins }: McpHttpOptions) {
  return async (ctx: RouteContext): Promise<ApiResponse> => {
    const origin = ctx.request.header('origin');
    if (!originAllowed(origin, ctx.request.header('host'), allowedOrigins)) {
      throw new HttpError(403, 'forbidden', `Origin ${JSON.stringify(origin)} may not call /v0/mcp`);
    }
    const headers = new Headers();
    for (const name of FORWARDED) {
      const value = ctx.request.header(name);
      if (value !== null) headers.set(name, value);
    }
    const request = new Request('http://mcp.invalid/v0/mcp', { method: 'POST', headers, body: ctx.rawBody() });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = createMcpServer(backend, ctx.auth!.orgId);
    const gone = () => void server.close();
    const signal = ctx.request.signal;
    signal.addEventListener('abort', gone, { once: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      const body = await response.text();
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => (out[name] = value));
      return { status: response.status, headers: out, body };
    } finally {
      signal.removeEventListener('abort', gone);
      await server.close();
    }
  };
}

/** `POST /v0/mcp` (scope `chat:read`, our addition), bound to the tools' backend and the accepted browser origins. */
export function mcpRoutes(options: McpHttpOptions): Route[] {
  return [{ method: 'POST', pattern: '/v0/mcp', scope: 'chat:read', handler: mcpHandler(options) }];
}
