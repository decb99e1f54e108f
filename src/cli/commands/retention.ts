/** @module `support-chat retention set|show|clear|sweep`: how long an organization's conversations are kept. */
import { insightsMigrations } from '../../server/insights/migrations.js';
import { silentLogger } from '../../server/http/log.js';
import { DEFAULT_RETENTION_DAYS, RetentionInputError, RetentionSettingsStore, RetentionSweep, validRetentionDays } from '../../server/retention/index.js';
import { openDatabase } from '../../server/store/database.js';
import { coreMigrations } from '../../server/store/migrations.js';
import { CliError, dataDir, parse, required } from '../args.js';

function open(dir: string | undefined) {
  return openDatabase({ dataDir: dataDir(dir), migrations: [...coreMigrations, ...insightsMigrations] });
}

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
  const [action, ...rest] = argv;
  if (action === 'set') {
    const { values } = parse(rest, { org: { type: 'string' }, days: { type: 'string' } }, false);
    const orgId = required(values.org, 'org');
    const n = days(values.days, 'days');
    const db = open(values.data);
    try {
      new RetentionSettingsStore(db).set(orgId, n);
    } finally {
      db.close();
    }
    console.log(`Conversations of ${orgId} are kept ${n} days after their last message.`);
    return 0;
  }
  if (action === 'show' || action === 'clear') {
    const { values } = parse(rest, { org: { type: 'string' }, json: { type: 'boolean' } }, false);
    const orgId = required(values.org, 'org');
    const db = open(values.data);
    try {
      const store = new RetentionSettingsStore(db);
      if (action === 'clear') {
        store.clear(orgId);
        console.log(`${orgId} uses the server's default retention again.`);
      } else {
        const own = store.stored(orgId);
        if (values.json) console.log(JSON.stringify({ organization: orgId, days: own, default: own === null }));
        else console.log(own === null ? `${orgId}: the server's default (${DEFAULT_RETENTION_DAYS} days unless serve --retention-days says otherwise)` : `${orgId}: ${own} days`);
      }
    } finally {
      db.close();
    }
    return 0;
  }
  if (action === 'sweep') {
    const { values } = parse(rest, { 'retention-days': { type: 'string' }, json: { type: 'boolean' } }, false);
    const defaultDays = values['retention-days'] === undefined ? undefined : days(values['retention-days'], 'retention-days');
    const db = open(values.data);
    try {
      const report = await new RetentionSweep({ db, logger: silentLogger, defaultDays }).runOnce();
      console.log(values.json ? JSON.stringify(report) : `Deleted ${report.deleted} expired conversations.`);
    } finally {
      db.close();
    }
    return 0;
  }
  throw new CliError(`unknown action "${action ?? ''}"; use set, show, clear or sweep`);
}
