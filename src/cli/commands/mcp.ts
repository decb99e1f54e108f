/**
 * @module `support-chat-kit mcp --org ORG`: the MCP tools (`search_docs`, `read_page`, `ask`) over
 * stdio, from the local knowledge base, for a site owner's own agent. Stdout carries protocol
 * messages alone: every log line, warning and note goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer, jsonLogger, ServerConfigError } from '../../server/index.js';
import { createMcpServer } from '../../server/mcp/index.js';
import { CliError, ORG_OPTION, parse, PROGRAM } from '../args.js';
import type { Sql } from '../../server/store/sql.js';
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
  const org = values.org!;
  try {
    await requireDocs(sql, org);
  } catch (error) {
    await server.close();
    throw error;
  }
  server.worker.start();
  const mcp = createMcpServer(server.mcp, org);
  const transport = new StdioServerTransport();
  // A message the transport cannot read is logged; one it cannot go on after (a line over its
  // 10 MB buffer) closes it, and the command then stops with that error rather than exiting quietly.
  let lastError: Error | undefined;
  transport.onerror = (error) => {
    lastError = error;
    console.error(`${PROGRAM} mcp: ${error.message}`);
  };
  const transportClosed = new Promise<'transport'>((resolve) => (transport.onclose = () => resolve('transport')));
  await mcp.connect(transport);
  console.error(`${PROGRAM} mcp: serving the docs of ${org} over stdio`);
  // Until the client closes stdin, the transport gives up, or the process is told to stop.
  const stopped = await Promise.race([
    transportClosed,
    new Promise<'client'>((resolve) => {
      const done = () => resolve('client');
      process.stdin.once('end', done);
      process.stdin.once('close', done);
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    }),
  ]);
  await mcp.close();
  await server.close();
  if (stopped === 'transport') throw new CliError(`stopped: ${lastError?.message ?? 'the stdio transport closed'}`, { usage: false });
  return 0;
}

/** A CliError unless the database holds docs of `org`: a mistyped organization would otherwise serve nothing, silently. */
async function requireDocs(sql: Sql, org: string): Promise<void> {
  if (await sql.get('SELECT 1 AS found FROM kb_documents WHERE org_id = ? LIMIT 1', [org])) return;
  const known = (await sql.all<{ org_id: string }>('SELECT DISTINCT org_id FROM kb_documents ORDER BY org_id LIMIT 20')).map((r) => r.org_id);
  const hint = known.length ? `organizations with docs here: ${known.join(', ')}` : `ingest docs first: ${PROGRAM} kb ingest DIR --org ${org}`;
  throw new CliError(`unknown organization "${org}": no docs in this database (${hint})`, { usage: false });
}
