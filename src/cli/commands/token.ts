/** @module `support-chat token create|list|revoke`. */
import { openDatabase } from '../../server/store/database.js';
import { coreMigrations } from '../../server/store/migrations.js';
import { TokenInputError, TokenService, type TokenRecord } from '../../server/store/tokens.js';
import { CliError, dataDir, parse, required } from '../args.js';

function service(dir: string | undefined) {
  const db = openDatabase({ dataDir: dataDir(dir), migrations: coreMigrations });
  return { db, tokens: new TokenService(db) };
}

function toJson(record: TokenRecord) {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    scopes: record.scopes,
    organization: record.orgId,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
  };
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  try {
    if (action === 'create') return create(rest);
    if (action === 'list') return list(rest);
    if (action === 'revoke') return revoke(rest);
  } catch (error) {
    if (error instanceof TokenInputError) throw new CliError(error.message);
    throw error;
  }
  throw new CliError(`unknown action "${action ?? ''}"; use create, list or revoke`);
}

function create(argv: string[]): number {
  const { values } = parse(
    argv,
    { org: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-in': { type: 'string' }, json: { type: 'boolean' } },
    false,
  );
  const orgId = required(values.org, 'org');
  const name = required(values.name, 'name');
  const scopes = required(values.scopes, 'scopes')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let expiresAt: Date | null = null;
  if (values['expires-in'] !== undefined) {
    const days = Number(values['expires-in']);
    if (!Number.isFinite(days) || days <= 0) throw new CliError('--expires-in must be a positive number of days');
    expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  const { db, tokens } = service(values.data);
  try {
    const { token, record } = tokens.create({ orgId, name, scopes, expiresAt });
    if (values.json) console.log(JSON.stringify({ token, ...toJson(record) }));
    else {
      console.log(token);
      console.error(`Created token ${record.id} (${record.prefix}…) for organization ${orgId} with scopes ${record.scopes.join(', ')}.`);
      console.error('It is shown once: store it now.');
    }
  } finally {
    db.close();
  }
  return 0;
}

function list(argv: string[]): number {
  const { values } = parse(argv, { org: { type: 'string' }, json: { type: 'boolean' } }, false);
  const { db, tokens } = service(values.data);
  try {
    const records = tokens.list(values.org);
    if (values.json) console.log(JSON.stringify(records.map(toJson)));
    else if (records.length === 0) console.log('No tokens.');
    else {
      for (const r of records) {
        const state = r.revokedAt ? 'revoked' : r.expiresAt && Date.parse(r.expiresAt) <= Date.now() ? 'expired' : 'active';
        console.log(`${r.id}  ${r.prefix}…  ${r.orgId}  ${r.name}  [${r.scopes.join(',')}]  ${state}${r.expiresAt ? `  expires ${r.expiresAt}` : ''}`);
      }
    }
  } finally {
    db.close();
  }
  return 0;
}

function revoke(argv: string[]): number {
  const { values, positionals } = parse(argv, {});
  const target = positionals[0];
  if (!target || positionals.length > 1) throw new CliError('usage: token revoke PREFIX_OR_ID');
  const { db, tokens } = service(values.data);
  try {
    const revoked = tokens.revoke(target);
    if (revoked.length === 0) throw new CliError(`no active token matches "${target}"`);
    console.log(`Revoked ${revoked[0]!.id} (${revoked[0]!.prefix}…).`);
  } finally {
    db.close();
  }
  return 0;
}
