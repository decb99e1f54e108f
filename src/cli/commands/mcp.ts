/**
 * @module `support-chat-kit mcp --org ORG`: the MCP tools (`search_docs`, `read_page`, `ask`) over
 * stdio, from the local knowledge base, for a site owner's own agent. Stdout carries protocol
 * messages alone: every log line, warning and note goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer, jsonLogger, ServerConfigError } from '../../server/index.js';
import { createMcpServer } from '../../server/mcp/index.js';
import { CliError, ORG_OPTION, parse, PROGRAM } from '../args.js';
import { openDatabase } from '../database.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { org: ORG_OPTION }, false);
  // From here on stdout is the protocol's: what any part of the process prints goes to stderr.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = console.error;
  const sql = await openDatabase(values);
  let server: Awaited<ReturnType<typeof createServer>>;
  try {
    // Answers are made here, by this process's worker; nothing else of the server runs.
    server = await createServer({ sql, role: 'all', startWorker: false, logger: jsonLogger((line) => process.stderr.write(line)) });
  } catch (error) {
    await sql.close().catch(() => undefined);
    if (error instanceof ServerConfigError) throw new CliError(error.message, { usage: false });
    throw error;
  }
  server.worker.start();
  const mcp = createMcpServer(server.mcp, values.org!);
  const transport = new StdioServerTransport();
  await mcp.connect(transport);
  console.error(`${PROGRAM} mcp: serving the docs of ${values.org} over stdio`);
  // Until the client closes stdin, or the process is told to stop.
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await mcp.close();
  await server.close();
  return 0;
}
