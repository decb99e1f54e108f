/** @module `support-chat tickets list`: the synced helpdesk tickets of an organization. */
import { openDatabase } from '../../server/store/database.js';
import { SqliteTicketStore, ticketMigrations } from '../../server/tickets/store.js';
import { CliError, dataDir, parse, required } from '../args.js';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'list') return list(rest);
  if (action === 'sync') throw new CliError('ticket sync connectors (plain, pylon, linear) are not part of this build yet');
  throw new CliError(`unknown action "${action ?? ''}"; use list`);
}

async function list(argv: string[]): Promise<number> {
  const { values } = parse(argv, { org: { type: 'string' }, source: { type: 'string' }, json: { type: 'boolean' } }, false);
  const orgId = required(values.org, 'org');
  const db = openDatabase({ dataDir: dataDir(values.data), migrations: ticketMigrations });
  try {
    // Listing reads no derived data, so there is nothing to forget here.
    const store = new SqliteTicketStore(db, { forget: async () => undefined });
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
    db.close();
  }
}
