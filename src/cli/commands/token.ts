/** @module `support-chat-kit token create|list|revoke`. */
import { TokenInputError, TokenService, type TokenRecord } from '../../server/store/tokens.js';
import { CliError, dispatch, ORG_OPTION, parse, PROGRAM } from '../args.js';
import { RedisBus } from '../../server/bus/index.js';
import { openDatabase, type DatabaseFlags } from '../database.js';

async function service(flags: DatabaseFlags) {
  const sql = await openDatabase(flags);
  return { sql, tokens: new TokenService(sql) };
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
  try {
    return await dispatch(argv, { create, list, revoke });
  } catch (error) {
    if (error instanceof TokenInputError) throw new CliError(error.message);
    throw error;
  }
}

async function create(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    {
      org: ORG_OPTION,
      name: { type: 'string', required: true, description: "what the token is for (\"website\")" },
      scopes: { type: 'string', value: 'SCOPE,...', required: true, description: 'chat:read, chat:write, chat:escalate, tickets:read, insights:read, …' },
      'expires-in': { type: 'string', value: 'DAYS', description: 'expires after this many days (default: never)' },
      json: { type: 'boolean', description: 'print the token and its record as JSON' },
    },
    false,
  );
  const orgId = values.org!;
  const name = values.name!;
  const scopes = values.scopes!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let expiresAt: Date | null = null;
  if (values['expires-in'] !== undefined) {
    const days = Number(values['expires-in']);
    if (!Number.isFinite(days) || days <= 0) throw new CliError('--expires-in must be a positive number of days');
    expiresAt = new Date(Date.now() + days * 86_400_000);
  }
  const { sql, tokens } = await service(values);
  try {
    const { token, record } = await tokens.create({ orgId, name, scopes, expiresAt });
    if (values.json) console.log(JSON.stringify({ token, ...toJson(record) }));
    else {
      console.log(token);
      console.error(`Created token ${record.id} (${record.prefix}…) for organization ${orgId} with scopes ${record.scopes.join(', ')}.`);
      console.error('It is shown once: store it now.');
    }
  } finally {
    await sql.close();
  }
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values } = parse(argv, { org: { type: 'string', env: 'SUPPORT_CHAT_ORG', description: "only this organization's tokens" }, json: { type: 'boolean', description: 'print JSON' } }, false);
  const { sql, tokens } = await service(values);
  try {
    const records = await tokens.list(values.org);
    if (values.json) console.log(JSON.stringify(records.map(toJson)));
    else if (records.length === 0) console.log('No tokens.');
    else {
      for (const r of records) {
        const state = r.revokedAt ? 'revoked' : r.expiresAt && Date.parse(r.expiresAt) <= Date.now() ? 'expired' : 'active';
        console.log(`${r.id}  ${r.prefix}…  ${r.orgId}  ${r.name}  [${r.scopes.join(',')}]  ${state}${r.expiresAt ? `  expires ${r.expiresAt}` : ''}`);
      }
    }
  } finally {
    await sql.close();
  }
  return 0;
}

/**
 * Tells running servers that share Redis (SUPPORT_CHAT_REDIS_URL) to drop their token caches now.
 * Without Redis, or when it does not answer, they refuse the token anyway within a second on
 * PostgreSQL (TOKEN_CACHE_MS) and on the next request on SQLite.
 */
async function tellServers(): Promise<void> {
  const url = process.env.SUPPORT_CHAT_REDIS_URL;
  if (!url) return;
  const bus = new RedisBus({ url });
  try {
    await bus.ready(2_000);
    bus.publish('tokens', 'revoked');
    await bus.flush();
  } catch (error) {
    console.error(`${PROGRAM}: running servers were not told through Redis (${error instanceof Error ? error.message : String(error)}); they refuse the token within a second`);
  } finally {
    await bus.close();
  }
}

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {}, 'PREFIX_OR_ID');
  const target = positionals[0];
  if (!target || positionals.length > 1) throw new CliError('name one token by its prefix or id');
  const { sql, tokens } = await service(values);
  try {
    const revoked = await tokens.revoke(target);
    if (revoked.length === 0) throw new CliError(`no active token matches "${target}"; ${PROGRAM} token list shows them`, { usage: false });
    console.log(`Revoked ${revoked[0]!.id} (${revoked[0]!.prefix}…).`);
    await tellServers();
  } finally {
    await sql.close();
  }
  return 0;
}
