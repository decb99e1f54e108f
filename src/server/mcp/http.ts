/**
 * @module `/v0/mcp` over the server's own pipeline: the request reaches here authenticated (scope
 * `chat:read`) with its body read within the usual cap; each of its messages is counted as its
 * HTTP twin (metering.ts), and the SDK's Streamable HTTP transport, stateless and answering in
 * JSON, runs the rest of the MCP exchange on a server made for the token's organization, with the
 * tools the token may call.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { HttpError } from '../http/errors.js';
import type { ApiResponse } from '../http/exchange.js';
import type { Route, RouteContext } from '../http/router.js';
import { originAllowed } from './origin.js';
import { meterMessages, type Metered } from './metering.js';
import { createMcpServer, toolsFor, type McpBackend } from './tools.js';

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
    const auth = ctx.auth!;
    const metered = await meterMessages({ body: ctx.rawBody(), orgId: auth.orgId, scopes: auth.scopes, count: ctx.count! });
    if (metered.forward === null) return answeredHere(metered);
    const headers = new Headers();
    for (const name of FORWARDED) {
      const value = ctx.request.header(name);
      if (value !== null) headers.set(name, value);
    }
    const request = new Request('http://mcp.invalid/v0/mcp', { method: 'POST', headers, body: metered.forward });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = createMcpServer(backend, auth.orgId, toolsFor(auth.scopes));
    const gone = () => void server.close();
    const signal = ctx.request.signal;
    signal.addEventListener('abort', gone, { once: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      const body = await response.text();
      const out: Record<string, string> = {};
      response.headers.forEach((value, name) => (out[name] = value));
      return withRefusals({ status: response.status, headers: out, body }, metered);
    } finally {
      signal.removeEventListener('abort', gone);
      await server.close();
    }
  };
}

/** The answer when every message was refused: their errors (nothing, 202, when all were notifications). */
function answeredHere({ refusals, batch }: Metered): ApiResponse {
  if (refusals.length === 0) return { status: 202, headers: {}, body: '' };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch ? refusals : refusals[0]) };
}

/** The transport's answer with the errors of the messages refused before it, in one JSON-RPC batch response. */
function withRefusals(response: ApiResponse, metered: Metered): ApiResponse {
  if (metered.refusals.length === 0) return response;
  if (response.status === 202) return answeredHere(metered);
  if (response.status !== 200 || !response.body) return response;
  const answered: unknown = JSON.parse(response.body);
  const body = JSON.stringify([...(Array.isArray(answered) ? answered : [answered]), ...metered.refusals]);
  return { ...response, headers: { ...response.headers, 'content-type': 'application/json' }, body };
}

/** `POST /v0/mcp` (scope `chat:read`, our addition), bound to the tools' backend and the accepted browser origins. */
export function mcpRoutes(options: McpHttpOptions): Route[] {
  return [{ method: 'POST', pattern: '/v0/mcp', scope: 'chat:read', countsEach: true, handler: mcpHandler(options) }];
}
