/** @module API tokens: a fixed prefix plus a random secret; only a SHA-256 hash is stored, compared in constant time. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { SCOPES, type Scope } from '../../protocol/index.js';
import type { Sql } from './sql.js';

/** Every token starts with this; a secret scanner can find leaked ones by it. */
export const TOKEN_PREFIX = 'sc_live_';
const SHOWN_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;

export interface TokenRecord {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface CreateTokenInput {
  orgId: string;
  name: string;
  scopes: readonly string[];
  /** When the token stops working; `null` or absent for never. */
  expiresAt?: Date | null;
}

interface TokenRow {
  id: string;
  org_id: string;
  name: string;
  prefix: string;
  hash: Buffer;
  scopes: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

/** Thrown for invalid token input (bad scope, empty name…); the CLI prints its message. */
export class TokenInputError extends Error {
  override name = 'TokenInputError';
}

/**
 * How long a looked-up token is trusted on PostgreSQL, where another process's revocation cannot
 * be seen without asking: a revoked token is refused everywhere within this time (sooner when a
 * shared bus tells every process, see `forget`).
 */
export const TOKEN_CACHE_MS = 1_000;

/** Most tokens of each kind remembered: known ones, and unknown ones (a flood of bad tokens pushes out only older bad ones). */
export const TOKEN_CACHE_SIZE = 10_000;

export class TokenService {
  readonly #sql: Sql;
  readonly #now: () => number;
  /**
   * Looked-up tokens, so the hot path is one map lookup. On SQLite an entry holds while the
   * database is unchanged (no write here, no commit by another process such as `token revoke`), so
   * a revocation takes effect on the next request; on PostgreSQL for TOKEN_CACHE_MS. Expiry is
   * checked on every use.
   */
  readonly #cache = new Map<string, { record: TokenRecord; stamp: number }>();
  /** Tokens that matched nothing, with their stamps: kept apart, so that distinct bad tokens, however many, never push out a real one. */
  readonly #unknown = new Map<string, number>();

  constructor(sql: Sql, now: () => number = Date.now) {
    this.#sql = sql;
    this.#now = now;
  }

  /** Creates a token; the returned `token` string is shown once and never stored. */
  async create(input: CreateTokenInput): Promise<{ token: string; record: TokenRecord }> {
    if (!ID_PATTERN.test(input.orgId)) throw new TokenInputError(`invalid organization id "${input.orgId}" (letters, digits, . _ : - only)`);
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) throw new TokenInputError('token name must be 1 to 200 characters');
    if (input.scopes.length === 0) throw new TokenInputError(`at least one scope is required (${SCOPES.join(', ')})`);
    for (const scope of input.scopes) {
      if (!(SCOPES as readonly string[]).includes(scope)) throw new TokenInputError(`unknown scope "${scope}" (known: ${SCOPES.join(', ')})`);
    }
    const scopes = [...new Set(input.scopes)] as Scope[];
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const row: TokenRow = {
      id: `tok_${randomUUID().replaceAll('-', '')}`,
      org_id: input.orgId,
      name,
      prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
      hash: hashToken(token),
      scopes: JSON.stringify(scopes),
      created_at: new Date(this.#now()).toISOString(),
      expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
      revoked_at: null,
    };
    await this.#sql.run('INSERT INTO tokens (id, org_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      row.id,
      row.org_id,
      row.name,
      row.prefix,
      row.hash,
      row.scopes,
      row.created_at,
      row.expires_at,
      row.revoked_at,
    ]);
    return { token, record: toRecord(row) };
  }

  /**
   * The token's record when it is valid now (known, not revoked, not expired); otherwise null.
   * Answered without waiting when the token was looked up recently (the hot path).
   */
  verify(token: string): TokenRecord | null | Promise<TokenRecord | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const stamp = this.#stamp();
    const cached = this.#cache.get(token);
    if (cached && this.#fresh(cached.stamp, stamp)) return this.#valid(cached.record);
    const unknownAt = cached ? undefined : this.#unknown.get(token);
    if (unknownAt !== undefined && this.#fresh(unknownAt, stamp)) return null;
    return this.#lookUp(token, stamp);
  }

  /** Whether a lookup made at `then` still holds: the database is unchanged (SQLite), or it is recent (PostgreSQL). */
  #fresh(then: number, now: number): boolean {
    return this.#sql.changes ? then === now : now - then < TOKEN_CACHE_MS;
  }

  /** Forgets every looked-up token (another process revoked one). */
  forget(): void {
    this.#cache.clear();
    this.#unknown.clear();
  }

  async #lookUp(token: string, stamp: number): Promise<TokenRecord | null> {
    const hash = hashToken(token);
    const row = await this.#sql.get<TokenRow>('SELECT * FROM tokens WHERE hash = ?', [hash]);
    // The lookup is by hash; comparing the stored hash in constant time guards against any index shortcut.
    const record = row && row.hash.length === hash.length && timingSafeEqual(row.hash, hash) ? toRecord(row) : null;
    if (record) {
      this.#unknown.delete(token);
      remember(this.#cache, token, { record, stamp });
    } else {
      // Unknown tokens are remembered too (the oldest go first), so a flood of bad ones costs a map lookup each.
      this.#cache.delete(token);
      remember(this.#unknown, token, stamp);
    }
    return this.#valid(record);
  }

  #valid(record: TokenRecord | null): TokenRecord | null {
    if (!record || record.revokedAt) return null;
    if (record.expiresAt && Date.parse(record.expiresAt) <= this.#now()) return null;
    return record;
  }

  /** SQLite: the change tracker's stamp; PostgreSQL: the time, for the cache's age. */
  #stamp(): number {
    return this.#sql.changes ? this.#sql.changes.stamp() : performance.now();
  }

  async list(orgId?: string): Promise<TokenRecord[]> {
    const rows = orgId
      ? await this.#sql.all<TokenRow>('SELECT * FROM tokens WHERE org_id = ? ORDER BY created_at, id', [orgId])
      : await this.#sql.all<TokenRow>('SELECT * FROM tokens ORDER BY org_id, created_at, id');
    return rows.map(toRecord);
  }

  /** Revokes by id or by shown prefix; returns the revoked records (none when nothing matched). */
  async revoke(idOrPrefix: string): Promise<TokenRecord[]> {
    const revokedAt = new Date(this.#now()).toISOString();
    const rows = await this.#sql.transaction(async (tx) => {
      const found = await tx.all<TokenRow>('SELECT * FROM tokens WHERE (id = ? OR prefix = ?) AND revoked_at IS NULL', [idOrPrefix, idOrPrefix]);
      if (found.length > 1) throw new TokenInputError(`"${idOrPrefix}" matches ${found.length} tokens; revoke by id`);
      for (const row of found) await tx.run('UPDATE tokens SET revoked_at = ? WHERE id = ?', [revokedAt, row.id]);
      return found;
    });
    this.forget();
    return rows.map((row) => ({ ...toRecord(row), revokedAt }));
  }
}

/** Sets `key`, first dropping the oldest entry when the map holds TOKEN_CACHE_SIZE (a Map iterates in insertion order). */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= TOKEN_CACHE_SIZE) map.delete(map.keys().next().value!);
  map.set(key, value);
}
