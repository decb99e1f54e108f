/**
 * @module Every message of a `/v0/mcp` request counted as its HTTP twin: a JSON-RPC batch of a
 * hundred calls is a hundred requests. `search_docs` spends the search bucket as `GET /v0/search`
 * does, `ask` the send bucket as `POST /v0/chat` does (and needs `chat:write`), anything else is a
 * read. A message over a limit, or calling a tool its token may not call, is answered here with a
 * JSON-RPC error and never reaches the MCP server; the rest of the batch goes on.
 */
import type { Scope } from '../../protocol/index.js';
import { bucketName, type EndpointBucket, type RateDecision } from '../http/rate-limit.js';
import { TOOL_SCOPES, type ToolName } from './tools.js';

/** JSON-RPC error code of a call over a rate limit (implementation-defined server error range; 429 in its digits). */
export const MCP_RATE_LIMITED = -32029;
/** JSON-RPC error code of a call the token's scopes do not allow (403 in its digits). */
export const MCP_FORBIDDEN = -32003;

/** The HTTP endpoint bucket a tool's call spends besides the token's and organization's limits. */
const TOOL_BUCKETS: Partial<Record<ToolName, EndpointBucket>> = { search_docs: 'search', ask: 'send' };

/** One JSON-RPC message as received: only the fields read here are typed. */
interface Message {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown };
}

export interface Metered {
  /** The body to hand the MCP transport: the messages let through, or null when none was. */
  forward: string | null;
  /** JSON-RPC error responses of the requests refused here, in the order received. */
  refusals: object[];
  /** Whether the request was a batch (its answer is then an array). */
  batch: boolean;
}

export interface MeterOptions {
  /** The request body as received. */
  body: string;
  orgId: string;
  scopes: readonly Scope[];
  /** Counts one call as a request to a route of `bucket` (the pipeline's `count`). */
  count(bucket?: EndpointBucket): RateDecision | Promise<RateDecision>;
}

/**
 * Counts each message of `body` in order and splits off those refused. A body that is not a JSON
 * object or a non-empty array is counted once and forwarded whole, for the transport to refuse.
 *
 * @example
 * const { forward, refusals } = await meterMessages({ body, orgId, scopes, count: ctx.count });
 */
export async function meterMessages({ body, orgId, scopes, count }: MeterOptions): Promise<Metered> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const batch = Array.isArray(parsed);
  const messages: unknown[] = batch ? (parsed as unknown[]) : [parsed];
  if (messages.length === 0 || !messages.every(isObject)) {
    const decision = await count();
    return decision.allowed ? { forward: body, refusals: [], batch } : { forward: null, refusals: [limited(null, decision, orgId)], batch: false };
  }
  const allowed: Message[] = [];
  const refusals: object[] = [];
  for (const message of messages as Message[]) {
    const tool = calledTool(message);
    // A call the token may not make is counted as a read: it must not spend the bucket it could not use.
    const permitted = !tool || scopes.includes(TOOL_SCOPES[tool]);
    const decision = await count(tool && permitted ? TOOL_BUCKETS[tool] : undefined);
    const refusal = !decision.allowed ? limited(message.id, decision, orgId) : !permitted ? forbidden(message.id, tool!) : null;
    if (!refusal) allowed.push(message);
    // A notification (no id) is answered by nothing, refused or not.
    else if (message.id !== undefined) refusals.push(refusal);
  }
  if (allowed.length === 0) return { forward: null, refusals, batch };
  return { forward: refusals.length === 0 && allowed.length === messages.length ? body : JSON.stringify(batch ? allowed : allowed[0]), refusals, batch };
}

function isObject(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The tool a `tools/call` message calls, when it is one of ours. */
function calledTool(message: Message): ToolName | undefined {
  if (message.method !== 'tools/call') return undefined;
  const name = message.params?.name;
  return typeof name === 'string' && Object.hasOwn(TOOL_SCOPES, name) ? (name as ToolName) : undefined;
}

/** The error of a call over a limit: which limit, and in how many seconds to retry. */
function limited(id: unknown, decision: RateDecision, orgId: string): object {
  const limit = bucketName(decision.refusedBy, orgId);
  return {
    jsonrpc: '2.0',
    id: id ?? null,
    error: {
      code: MCP_RATE_LIMITED,
      message: `Rate limit exceeded: the ${limit} of ${decision.limit} a minute is used up; retry after ${decision.retryAfter} seconds`,
      data: { code: 'rate_limited', limit, limit_per_minute: decision.limit, retry_after: decision.retryAfter },
    },
  };
}

function forbidden(id: unknown, tool: ToolName): object {
  const scope = TOOL_SCOPES[tool];
  return {
    jsonrpc: '2.0',
    id: id ?? null,
    error: { code: MCP_FORBIDDEN, message: `${tool} needs a token with scope ${scope}`, data: { code: 'forbidden', scope } },
  };
}
