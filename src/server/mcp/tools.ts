/**
 * @module The MCP tools over an organization's knowledge base: `search_docs`, `read_page` and
 * `ask`, read-only, on the SDK's `McpServer`. One server is made per organization and transport
 * (per request over HTTP, once over stdio); it sees that organization's docs alone, never tickets.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MESSAGE_MAX_LENGTH, PAGE_URL_MAX_LENGTH, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX_LENGTH } from '../../protocol/limits.js';
import { SearchResults, Source, type SearchResult } from '../../protocol/schemas/responses.js';
import { integer, text } from '../../protocol/schemas/fields.js';
import type { Scope } from '../../protocol/index.js';
import type { Logger } from '../log.js';
import type { IndexedPage } from '../knowledge/index.js';
import { ASK_WAIT_MS, type Ask } from './ask.js';
import { pageMarkdown, PAGE_MAX_CHARS } from './page.js';

/** What the tools read, for any organization; `createMcpServer` binds it to one. */
export interface McpBackend {
  /** The organization's docs for a query, as `GET /v0/search` answers them. */
  search(orgId: string, query: string, limit: number): Promise<SearchResult[]>;
  /** One page of the organization's knowledge base, or null when it holds no such page. */
  page(orgId: string, url: string): Promise<IndexedPage | null>;
  /** The engine's answer to a question, asked in a conversation started through MCP. */
  ask: Ask;
  logger: Logger;
}

/**
 * The scope a token needs to call each tool, as it would need it for the tool's HTTP twin:
 * `search_docs` is `GET /v0/search`, `read_page` a read, `ask` is `POST /v0/chat`.
 */
export const TOOL_SCOPES = { search_docs: 'chat:read', read_page: 'chat:read', ask: 'chat:write' } as const satisfies Record<string, Scope>;

export type ToolName = keyof typeof TOOL_SCOPES;

/** The tools a token with `scopes` may call. */
export function toolsFor(scopes: readonly Scope[]): Set<ToolName> {
  return new Set((Object.keys(TOOL_SCOPES) as ToolName[]).filter((name) => scopes.includes(TOOL_SCOPES[name])));
}

/** The server's name and version as MCP clients see them. */
export const MCP_SERVER_INFO = { name: 'support-chat-kit', version: '0.1.0' } as const;

const ALL_TOOLS: ReadonlySet<ToolName> = new Set(Object.keys(TOOL_SCOPES) as ToolName[]);

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const AskResult = z.strictObject({
  answer: z.string().meta({ description: 'The reply, in Markdown' }),
  sources: z.array(Source).meta({ description: 'The pages the reply cites (or, when uncertain, the related pages), best first' }),
  uncertain: z.boolean().meta({ description: 'True when the docs hold no direct answer: the sources are then only related' }),
  conversation_id: z.string(),
});

/** A tool's failure as the agent reads it: a result with `isError`, never a thrown error. */
const failure = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/**
 * The tools, bound to `orgId`: those in `tools` alone, so a client lists only what it may call.
 * Arguments are checked by their schemas (the HTTP API's bounds, each message naming its field); a
 * check that fails is a tool error.
 *
 * @example
 * const server = createMcpServer(backend, 'acme');
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer(backend: McpBackend, orgId: string, tools: ReadonlySet<ToolName> = ALL_TOOLS): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    instructions: 'Tools over this product\'s documentation: search_docs finds sections, read_page reads a whole page, ask answers a question from the docs with sources.',
  });

  /** Runs a tool; an unexpected error is logged and answered as a tool error without its details. */
  const guarded =
    <A>(name: string, run: (args: A, signal: AbortSignal) => Promise<CallToolResult>) =>
    async (args: A, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
      try {
        return await run(args, extra.signal);
      } catch (error) {
        backend.logger.error({ msg: 'mcp tool failed', tool: name, org: orgId, error: error instanceof Error ? error.message : String(error) });
        return failure('An internal error occurred; try again.');
      }
    };

  if (tools.has('search_docs')) server.registerTool(
    'search_docs',
    {
      title: 'Search the docs',
      description: 'Searches the documentation: the best-matching sections, at most 3 of one page, each with its page title, URL and a short excerpt. Use read_page to read a result in full.',
      inputSchema: {
        query: text('query', { min: 1, max: SEARCH_QUERY_MAX_LENGTH, description: 'Words or a question' }),
        limit: integer(`"limit" must be an integer from 1 to ${SEARCH_LIMIT_MAX}`, 1, SEARCH_LIMIT_MAX)
          .optional()
          .meta({ description: `Most results; default ${SEARCH_LIMIT_DEFAULT}` }),
      },
      outputSchema: SearchResults,
      annotations: READ_ONLY,
    },
    guarded('search_docs', async ({ query, limit }: { query: string; limit?: number }) => {
      const results = await backend.search(orgId, query.trim(), limit ?? SEARCH_LIMIT_DEFAULT);
      const text = results.length
        ? results.map((r, i) => `${i + 1}. ${r.section ? `${r.title} › ${r.section}` : r.title}\n   ${r.url}\n   ${r.excerpt}`).join('\n\n')
        : `Nothing in the documentation matches "${query.trim()}".`;
      return { content: [{ type: 'text', text }], structuredContent: { results } };
    }),
  );

  if (tools.has('read_page')) server.registerTool(
    'read_page',
    {
      title: 'Read a docs page',
      description: `Reads one page of the documentation, by its URL (as search_docs gives it), as Markdown with its headings; at most ${PAGE_MAX_CHARS.toLocaleString('en-US')} characters.`,
      inputSchema: { url: text('url', { min: 1, max: PAGE_URL_MAX_LENGTH, description: "The page's URL; a #fragment is ignored" }) },
      annotations: READ_ONLY,
    },
    guarded('read_page', async ({ url }: { url: string }) => {
      const page = await backend.page(orgId, url.trim());
      if (!page) return failure(`No page at ${url.trim()} in the documentation: use a URL that search_docs returned.`);
      const { markdown } = pageMarkdown(page);
      return { content: [{ type: 'text', text: markdown }] };
    }),
  );

  if (tools.has('ask')) server.registerTool(
    'ask',
    {
      title: 'Ask the docs',
      description: `Answers a question from the documentation, with the pages it cites, and says when the docs hold no direct answer. Takes a few seconds (at most ${ASK_WAIT_MS / 1000}).`,
      inputSchema: { question: text('question', { min: 1, max: MESSAGE_MAX_LENGTH, description: 'The question, in any language' }) },
      outputSchema: AskResult,
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    guarded('ask', async ({ question }: { question: string }, signal) => {
      const outcome = await backend.ask(orgId, question, signal);
      if (!outcome.ok) {
        if (outcome.reason === 'late') return failure(`No answer within ${ASK_WAIT_MS / 1000} seconds; try again, or use search_docs.`);
        if (outcome.reason === 'cancelled') return failure('The question was cancelled.');
        return failure('The answer could not be produced; try again, or use search_docs.');
      }
      const links = outcome.sources.map((s) => `- [${s.title}](${s.url})`).join('\n');
      const heading = outcome.uncertain ? 'No direct answer in the documentation. Related pages:' : 'Sources:';
      const text = `${outcome.answer}${links ? `\n\n${heading}\n${links}` : ''}`;
      return {
        content: [{ type: 'text', text }],
        structuredContent: { answer: outcome.answer, sources: outcome.sources, uncertain: outcome.uncertain, conversation_id: outcome.conversationId },
      };
    }),
  );
  return server;
}
