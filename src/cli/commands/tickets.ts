/** @module `support-chat-kit tickets list|sync`: the synced helpdesk tickets of an organization. */
import { createAnswerEngine } from '../../server/answers/index.js';
import { IntegrationError, IntegrationSettingsStore } from '../../server/escalation/index.js';
import { helpdesks } from '../../server/helpdesks/index.js';
import { SqlTicketStore } from '../../server/tickets/store.js';
import { connectorForOrg, syncTickets } from '../../server/tickets/sync.js';
import { CliError, dispatch, ORG_OPTION, parse, PROGRAM } from '../args.js';
import { openDatabase } from '../database.js';

export async function run(argv: string[]): Promise<number> {
  return dispatch(argv, { list, sync });
}

async function list(argv: string[]): Promise<number> {
  const { values } = parse(argv, { org: ORG_OPTION, source: { type: 'string', description: 'only this helpdesk (plain, pylon, linear)' }, json: { type: 'boolean', description: 'print JSON' } }, false);
  const orgId = values.org!;
  const sql = await openDatabase(values);
  try {
    // Listing reads no derived data, so there is nothing to forget here.
    const store = new SqlTicketStore(sql, { forget: async () => undefined });
    const tickets = [];
    let cursor: string | undefined;
    do {
      const page = await store.list(orgId, { source: values.source, limit: 200, cursor });
      tickets.push(...page.tickets);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    if (values.json) console.log(JSON.stringify(tickets));
    else if (tickets.length === 0) console.log('No tickets.');
    else for (const t of tickets) console.log(`${t.source}/${t.external_id}  ${t.status}  ${t.title}`);
    return 0;
  } finally {
    await sql.close();
  }
}

async function sync(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      org: ORG_OPTION,
      source: { type: 'string', value: 'plain|pylon|linear', required: true, description: 'the helpdesk to import from' },
      full: { type: 'boolean', description: 'import everything again, not only what changed' },
      json: { type: 'boolean', description: 'print the report as JSON' },
    },
    false,
  );
  const orgId = values.org!;
  const source = values.source!.toLowerCase();
  if (!helpdesks.get(source)?.sync) throw new CliError(`--source must be one of ${helpdesks.syncable().join(', ')}, got "${source}"`);
  const sql = await openDatabase(values);
  try {
    const engine = createAnswerEngine({ sql, llm: null });
    const store = new SqlTicketStore(sql, {
      forget: (org, src, id) => engine.forgetTicket(org, src, id),
      index: (org, ticket) => engine.indexTicket(org, ticket),
    });
    const tty = process.stderr.isTTY && !values.json;
    const report = await syncTickets(store, orgId, connectorForOrg(await new IntegrationSettingsStore(sql).stored(orgId, source), process.env, source), {
      full: values.full,
      onPage: tty ? (r) => process.stderr.write(`\r${r.pages} pages, ${r.imported} tickets`.padEnd(40)) : undefined,
    });
    if (tty) process.stderr.write('\n');
    if (values.json) console.log(JSON.stringify(report));
    else console.log(`Synced ${source} for ${orgId}: ${report.imported} tickets imported or updated, ${report.restored} deleted tickets restored, in ${report.pages} pages.`);
    return 0;
  } catch (error) {
    // Configuration and helpdesk failures are the operator's to fix or retry; no stack trace.
    if (error instanceof IntegrationError) {
      console.error(`${PROGRAM} tickets sync: ${error.message}${error.retryable ? ' (try again later; the sync resumes where it stopped)' : ''}`);
      return 1;
    }
    throw error;
  } finally {
    await sql.close();
  }
}
