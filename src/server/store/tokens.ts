/** @module API tokens: a fixed prefix plus a random secret; only a SHA-256 hash is stored, compared in constant time. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { SCOPES, type Scope } from '../../protocol/index.js';
import { changeTracker, type ChangeTracker, type Db } from './database.js';

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

export class TokenService {
  readonly #db: Db;
  readonly #now: () => number;
  readonly #changes: ChangeTracker;
  /**
   * Looked-up tokens, so the hot path is one map lookup. An entry holds while the database is
   * unchanged (no write here, no commit by another process such as `token revoke`), so a
   * revocation takes effect on the next request. Expiry is checked on every use.
   */
  readonly #cache = new Map<string, { record: TokenRecord | null; stamp: number }>();

  constructor(db: Db, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
    this.#changes = changeTracker(db);
  }

  /** Creates a token; the returned `token` string is shown once and never stored. */
  create(input: CreateTokenInput): { token: string; record: TokenRecord } {
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
    this.#db
      .prepare(
        `INSERT INTO tokens (id, org_id, name, prefix, hash, scopes, created_at, expires_at, revoked_at)
         VALUES (@id, @org_id, @name, @prefix, @hash, @scopes, @created_at, @expires_at, @revoked_at)`,
      )
      .run(row);
    return { token, record: toRecord(row) };
  }

  /** The token's record when it is valid now (known, not revoked, not expired); otherwise null. */
  verify(token: string): TokenRecord | null {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const stamp = this.#changes.stamp();
    const cached = this.#cache.get(token);
    let record: TokenRecord | null;
    if (cached && cached.stamp === stamp) {
      record = cached.record;
    } else {
      const hash = hashToken(token);
      const row = this.#db.prepare('SELECT * FROM tokens WHERE hash = ?').get(hash) as TokenRow | undefined;
      // The lookup is by hash; comparing the stored hash in constant time guards against any index shortcut.
      record = row && row.hash.length === hash.length && timingSafeEqual(row.hash, hash) ? toRecord(row) : null;
      // Unknown tokens are remembered too (bounded), so a flood of bad ones costs a map lookup each.
      if (this.#cache.size >= 10_000) this.#cache.clear();
      this.#cache.set(token, { record, stamp });
    }
    if (!record || record.revokedAt) return null;
    if (record.expiresAt && Date.parse(record.expiresAt) <= this.#now()) return null;
    return record;
  }

  list(orgId?: string): TokenRecord[] {
    const rows = (
      orgId
        ? this.#db.prepare('SELECT * FROM tokens WHERE org_id = ? ORDER BY created_at, id').all(orgId)
        : this.#db.prepare('SELECT * FROM tokens ORDER BY org_id, created_at, id').all()
    ) as TokenRow[];
    return rows.map(toRecord);
  }

  /** Revokes by id or by shown prefix; returns the revoked records (none when nothing matched). */
  revoke(idOrPrefix: string): TokenRecord[] {
    const rows = this.#db
      .prepare('SELECT * FROM tokens WHERE (id = ? OR prefix = ?) AND revoked_at IS NULL')
      .all(idOrPrefix, idOrPrefix) as TokenRow[];
    if (rows.length > 1) throw new TokenInputError(`"${idOrPrefix}" matches ${rows.length} tokens; revoke by id`);
    const revokedAt = new Date(this.#now()).toISOString();
    for (const row of rows) this.#db.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ?').run(revokedAt, row.id);
    return rows.map((row) => ({ ...toRecord(row), revokedAt }));
  }
}
