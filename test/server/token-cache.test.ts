/**
 * The token cache under a flood of bad tokens: 10,000 distinct unknown tokens are remembered apart
 * from the real ones, so the real ones stay answered from memory, and the bad ones stay bounded.
 */
import { describe, expect, it } from 'vitest';
import { TOKEN_CACHE_SIZE, TOKEN_PREFIX, TokenService } from '../../src/server/store/tokens.js';
import { TEST_POSTGRES_URL, testDatabases } from '../helpers/database.js';

const open = testDatabases();

// On PostgreSQL entries hold for a second by the clock, which 10,000 lookups outlast anyway.
describe.skipIf(TEST_POSTGRES_URL)('token cache', () => {
  it('keeps answering real tokens from memory while 10,000 distinct bad tokens arrive', async () => {
    const tokens = new TokenService(await open());
    const real = await Promise.all(Array.from({ length: 3 }, (_, i) => tokens.create({ orgId: 'acme', name: `t${i}`, scopes: ['chat:read'] })));
    for (const { token } of real) expect(await tokens.verify(token)).not.toBeNull();
    for (let i = 0; i < 10_000; i++) expect(await tokens.verify(`${TOKEN_PREFIX}bad-${i}`)).toBeNull();
    for (const { token, record } of real) {
      const verified = tokens.verify(token);
      // Answered at once: no database lookup (a Promise) was needed.
      expect(verified).not.toBeInstanceOf(Promise);
      expect(verified).toEqual(record);
    }
    // A bad token seen recently is refused from memory too.
    expect(tokens.verify(`${TOKEN_PREFIX}bad-9999`)).toBeNull();
  });

  it('holds at most TOKEN_CACHE_SIZE bad tokens, and forgets a revoked real one at once', async () => {
    const tokens = new TokenService(await open());
    const { token, record } = await tokens.create({ orgId: 'acme', name: 't', scopes: ['chat:read'] });
    await tokens.verify(token);
    for (let i = 0; i < TOKEN_CACHE_SIZE + 500; i++) await tokens.verify(`${TOKEN_PREFIX}flood-${i}`);
    // The oldest bad ones were let go, not all at once.
    expect(tokens.verify(`${TOKEN_PREFIX}flood-499`)).toBeInstanceOf(Promise);
    expect(tokens.verify(`${TOKEN_PREFIX}flood-500`)).toBeNull();
    await tokens.revoke(record.id);
    expect(await tokens.verify(token)).toBeNull();
  });
});
