/** @module Random input to the proxy, in front of the real server: never a 5xx, always the error shape and rate limit headers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSupportProxy } from '../../src/proxy/index.js';
import { encodeVisitor } from '../../src/proxy/visitor.js';
import type { SupportServer } from '../../src/server/index.js';
import { ERROR_CODES } from '../../src/protocol/index.js';
import { fuzzTarget } from '../helpers/fuzz-target.js';

const SECRET = 'a-visitor-signing-secret-of-32-chars!!';
const SITE = 'https://www.example.com';
let server: SupportServer;
let proxy: ReturnType<typeof createSupportProxy>;
let owned: string;

beforeAll(async () => {
  let token: string;
  ({ server, token, conversationId: owned } = await fuzzTarget(['chat:read', 'chat:write', 'chat:escalate']));
  proxy = createSupportProxy({
    apiBaseUrl: 'http://api.test',
    token,
    secret: SECRET,
    retries: 0,
    trustProxy: true,
    visitorLimits: { messages: 1e9, polls: 1e9, escalations: 1e9, newVisitorsPerAddress: 1e9, perAddress: 1e9 },
    fetch: (input, init) => server.fetch(new Request(input, init)),
  });
});
afterAll(async () => server.close());

const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
// Weighted towards requests that pass the origin and routing checks, so the input checks behind them are reached.
const path = fc.oneof(
  { arbitrary: fc.constantFrom('/api/support/chat', '/api/support/chat/OWNED', '/api/support/chat/OWNED/escalate'), weight: 6 },
  fc.constantFrom('/api/support/', '/api/support', '/', '/api/support/chat/../chat'),
  fc.string().map((s) => `/api/support/chat/${encodeURIComponent(s)}`),
  fc.string().map((s) => `/api/support/chat/${encodeURIComponent(s)}/escalate`),
  fc.webPath(),
);
const body = fc.oneof(
  fc.string(),
  fc.json(),
  fc.record({ message: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())), conversation_id: fc.oneof(fc.string(), fc.constant('OWNED'), fc.integer()) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc.record({ name: fc.string(), email: fc.oneof(fc.emailAddress(), fc.string()), note: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
);

describe('bad input to the proxy', () => {
  it('never causes a 5xx, and every error is in the spec’s shape with rate limit headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ arbitrary: fc.constant('POST'), weight: 4 }, { arbitrary: fc.constant('GET'), weight: 2 }, fc.constantFrom('DELETE', 'PUT', 'OPTIONS', 'PATCH')),
        path,
        body,
        fc.record(
          {
            origin: fc.oneof({ arbitrary: fc.constant(SITE), weight: 4 }, headerValue),
            cookie: fc.oneof({ arbitrary: fc.constant('own'), weight: 4 }, headerValue),
            forwarded: headerValue,
            contentType: fc.oneof({ arbitrary: fc.constant('application/json'), weight: 4 }, headerValue),
            prefer: headerValue,
          },
          { requiredKeys: [] },
        ),
        async (method, rawPath, text, h) => {
          const headers = new Headers();
          if (h.origin) headers.set('origin', h.origin);
          if (h.cookie === 'own') headers.set('cookie', `sc_visitor=${encodeVisitor(SECRET, { id: 'fuzzer', conversations: [owned] })}`);
          else if (h.cookie) headers.set('cookie', h.cookie);
          if (h.forwarded) headers.set('x-forwarded-for', h.forwarded);
          if (h.contentType) headers.set('content-type', h.contentType);
          if (h.prefer) headers.set('prefer', h.prefer.replace(/\d{2,}/g, '1'));
          const url = `${SITE}${rawPath.replaceAll('OWNED', owned).replace(/^(?!\/)/, '/')}`;
          const hasBody = method !== 'GET';
          const response = await proxy(new Request(url, { method, headers, body: hasBody ? text.replaceAll('OWNED', owned) : undefined }));
          expect(response.status).toBeLessThan(500);
          for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(response.headers.get(name)).toMatch(/^\d+$/);
          if (response.status >= 400) {
            const json = (await response.json()) as { error: { code: string; message: string } };
            expect(ERROR_CODES).toContain(json.error.code);
            expect(typeof json.error.message).toBe('string');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
