/** @module `support-chat-kit retention set|show|clear|sweep`: how long an organization's conversations are kept. */
import { silentLogger } from '../../server/log.js';
import { DEFAULT_RETENTION_DAYS, RetentionInputError, RetentionSettingsStore, RetentionSweep, validRetentionDays } from '../../server/retention/index.js';
import { ConversationStore } from '../../server/store/conversations.js';
import { CliError, dispatch, ORG_OPTION, parse, required } from '../args.js';
import { openDatabase } from '../database.js';

/** A whole number of days from an option, or a CliError naming it. */
function days(value: string | undefined, flag: string): number {
  const n = Number(required(value, flag));
  try {
    return validRetentionDays(n);
  } catch (error) {
    if (error instanceof RetentionInputError) throw new CliError(`--${flag}: ${error.message}`);
    throw error;
  }
}

export async function run(argv: string[]): Promise<number> {
  return dispatch(argv, { set, show: (rest) => showOrClear('show', rest), clear: (rest) => showOrClear('clear', rest), sweep });
}

async function set(rest: string[]): Promise<number> {
  const { values } = parse(rest, { org: ORG_OPTION, days: { type: 'string', required: true, description: 'keep conversations this many days after their last message' } }, false);
  const orgId = values.org!;
  const n = days(values.days, 'days');
  const sql = await openDatabase(values);
  try {
    await new RetentionSettingsStore(sql).set(orgId, n);
  } finally {
    await sql.close();
  }
  console.log(`Conversations of ${orgId} are kept ${n} days after their last message.`);
  return 0;
}

async function showOrClear(action: 'show' | 'clear', rest: string[]): Promise<number> {
  const { values } = parse(rest, action === 'show' ? { org: ORG_OPTION, json: { type: 'boolean', description: 'print JSON' } } : { org: ORG_OPTION }, false);
  const orgId = values.org!;
  const sql = await openDatabase(values);
  try {
    const store = new RetentionSettingsStore(sql);
    if (action === 'clear') {
      await store.clear(orgId);
      console.log(`${orgId} uses the server's default retention again.`);
    } else {
      const own = await store.stored(orgId);
      if (values.json) console.log(JSON.stringify({ organization: orgId, days: own, default: own === null }));
      else console.log(own === null ? `${orgId}: the server's default (${DEFAULT_RETENTION_DAYS} days unless serve --retention-days says otherwise)` : `${orgId}: ${own} days`);
    }
  } finally {
    await sql.close();
  }
  return 0;
}

async function sweep(rest: string[]): Promise<number> {
  const { values } = parse(rest, { 'retention-days': { type: 'string', value: 'DAYS', description: 'the default for organizations without their own (default: 90)' }, json: { type: 'boolean', description: 'print JSON' } }, false);
  const defaultDays = values['retention-days'] === undefined ? undefined : days(values['retention-days'], 'retention-days');
  const sql = await openDatabase(values);
  try {
    const report = await new RetentionSweep({ sql, conversations: new ConversationStore(sql), logger: silentLogger, defaultDays }).runOnce();
    console.log(values.json ? JSON.stringify(report) : `Deleted ${report.deleted} expired conversations.`);
  } finally {
    await sql.close();
  }
  return 0;
}
